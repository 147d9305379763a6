// Overlapping speech across the channels of one multi-channel session (channels=2): speech
// spans in (the endpointer's speech start and end positions per channel, unpadded), barge-ins
// and overlaps out. Pure: positions are absolute 16 kHz sample positions, the same time base on
// every channel.
//
// Semantics:
// - Barge-in: channel B's speech starts (speech_start event at position p) while channel A's
//   turn is open and began before p. Reported at once, when B's start event arrives: A's turn
//   is open as far as the endpointer knows, i.e. A has not yet been silent for the endpoint
//   silence (a reply that follows A's last word within WS_ENDPOINT_SILENCE_MS counts too).
// - Overlap: the intersection of a speech span of one channel with a speech span of another,
//   reported once both spans have ended (only then are both ends known: the endpointer reports
//   an end only after its silence window, so a start event may arrive before the other
//   channel's earlier end). Empty intersections are never reported. A forced split (a turn at
//   WS_MAX_TURN_MS) ends a span, so one long overlap may be reported in two adjacent parts.

export interface Overlap {
  readonly start: number;
  readonly end: number;
  /** The two channels, lower index first. */
  readonly channels: readonly [number, number];
}

export interface Interrupted {
  readonly channel: number;
  /** Where the interrupted channel's speech started. */
  readonly since: number;
}

interface Span {
  readonly start: number;
  readonly end: number;
}

export class OverlapTracker {
  readonly #open: (number | null)[];
  readonly #closed: Span[][];
  /** Where each channel's last span ended: its next span starts at or after this. */
  readonly #lastEnd: number[];
  /** The latest position any event reported. */
  #latest = 0;

  /**
   * `horizonSamples`: how far before the latest reported position a speech start can still be
   * reported (the VAD's delay; default 10 s), which bounds the spans kept for comparison.
   */
  constructor(
    readonly channels: number,
    private readonly horizonSamples = 160_000,
  ) {
    this.#open = Array.from({ length: channels }, () => null);
    this.#closed = Array.from({ length: channels }, () => []);
    this.#lastEnd = Array.from({ length: channels }, () => 0);
  }

  /** Speech starts on `channel` at `position`: the channels whose open speech it interrupts. */
  speechStart(channel: number, position: number): Interrupted[] {
    this.#open[channel] = position;
    this.#latest = Math.max(this.#latest, position);
    const interrupted: Interrupted[] = [];
    for (let other = 0; other < this.channels; other++) {
      const since = this.#open[other];
      if (other !== channel && since !== null && since !== undefined && since < position) interrupted.push({ channel: other, since });
    }
    return interrupted;
  }

  /** Speech on `channel` ran [start, end): the overlaps this resolves, in time order. */
  speechEnd(channel: number, start: number, end: number): Overlap[] {
    this.#open[channel] = null;
    this.#lastEnd[channel] = Math.max(this.#lastEnd[channel]!, end);
    this.#latest = Math.max(this.#latest, end);
    if (end <= start) return [];
    const overlaps: Overlap[] = [];
    for (let other = 0; other < this.channels; other++) {
      if (other === channel) continue;
      for (const span of this.#closed[other]!) {
        const from = Math.max(start, span.start);
        const to = Math.min(end, span.end);
        if (to > from) overlaps.push({ start: from, end: to, channels: channel < other ? [channel, other] : [other, channel] });
      }
    }
    this.#closed[channel]!.push({ start, end });
    this.#prune();
    return overlaps.sort((a, b) => a.start - b.start);
  }

  /** CLEAR: open speech and remembered spans are gone. */
  clear(position: number): void {
    for (let c = 0; c < this.channels; c++) {
      this.#open[c] = null;
      this.#closed[c] = [];
      this.#lastEnd[c] = Math.max(this.#lastEnd[c]!, position);
    }
  }

  /** Spans kept for later comparisons (bounded: see #prune). */
  get rememberedSpans(): number {
    return this.#closed.reduce((sum, spans) => sum + spans.length, 0);
  }

  /**
   * A closed span is dropped once no other channel's open or future span can reach back into
   * it: a future span starts after that channel's last end and within the horizon of the latest
   * position.
   */
  #prune(): void {
    const horizon = this.#latest - this.horizonSamples;
    for (let c = 0; c < this.channels; c++) {
      let earliestFuture = Number.POSITIVE_INFINITY;
      for (let other = 0; other < this.channels; other++) {
        if (other !== c) earliestFuture = Math.min(earliestFuture, this.#open[other] ?? Math.max(this.#lastEnd[other]!, horizon));
      }
      this.#closed[c] = this.#closed[c]!.filter((span) => span.end > earliestFuture);
    }
  }
}
