// The text of one streaming session: committed segments (the job record's), the texts that
// make `full_text`, and the last partial of each channel's open turn (for stable/unstable
// words). Committed text never changes; a partial only describes its channel's open turn.
//
// Multi-channel sessions (channels=2): every segment carries its `channel` and `speaker`; the
// record's segments are in time order (start, then channel) and renumbered, and the full text
// is one `speaker: text` line per change of speaker in that order.
import type { Segment, SegmentWord } from '../platform/db/job-records.js';
import { speakerLines } from '../engines/asr/asr.js';
import type { PartialMessage } from './ws-messages.js';

const SAMPLES_PER_MS = 16;
const toMs = (samples: number): number => Math.round(samples / SAMPLES_PER_MS);

export interface SegmentLabel {
  readonly channel: number;
  readonly speaker: string;
}

export class SessionTranscript {
  readonly segments: Segment[] = [];
  readonly #texts: string[] = [];
  readonly #lastPartial = new Map<number, { turnId: number; words: string[] }>();

  constructor(private readonly multichannel = false) {}

  /** A new turn opened or the open one closed on `channel`: its next partial starts afresh. */
  resetPartial(channel = 0): void {
    this.#lastPartial.delete(channel);
  }

  /**
   * The partial message for the open turn's interim text; `stable_text` is the leading words of
   * `text` that `stableText` (a live stream's beam prefix) holds or, without it, what two
   * partials in a row agree on.
   */
  partial(turnId: number, span: { start: number; end: number }, text: string, channel = 0, stableText?: string): PartialMessage {
    const words = text.length > 0 ? text.split(/\s+/) : [];
    const last = this.#lastPartial.get(channel);
    const stable = stableText === undefined ? null : stableText.length > 0 ? stableText.split(/\s+/) : [];
    const previous = stable ?? (last?.turnId === turnId ? last.words : []);
    let agree = 0;
    while (agree < words.length && agree < previous.length && words[agree] === previous[agree]) agree++;
    this.#lastPartial.set(channel, { turnId, words });
    return {
      type: 'partial',
      turn_id: turnId,
      start_ms: toMs(span.start),
      end_ms: toMs(span.end),
      text,
      stable_text: words.slice(0, agree).join(' '),
      unstable_text: words.slice(agree).join(' '),
    };
  }

  /** Commits a piece's text (nothing for empty text) and its words (stream ms); returns the piece's segments. */
  commit(span: { start: number; end: number }, text: string, confidence: number | null, label?: SegmentLabel, words?: readonly SegmentWord[]): Segment[] {
    if (text.length === 0) return [];
    const startMs = toMs(span.start);
    const endMs = toMs(span.end);
    const segment: Segment = {
      id: this.segments.length,
      start_ms: startMs,
      end_ms: endMs,
      duration_ms: endMs - startMs,
      text,
      speaker: label?.speaker ?? null,
      confidence,
      ...(label !== undefined ? { channel: label.channel } : {}),
      ...(words !== undefined ? { words } : {}),
    };
    this.segments.push(segment);
    this.#texts.push(text);
    return [segment];
  }

  /** The segments as the job record keeps them: commit order (mono) or time order, renumbered (multi-channel). */
  get recordSegments(): Segment[] {
    if (!this.multichannel) return this.segments;
    return [...this.segments].sort((a, b) => a.start_ms - b.start_ms || (a.channel ?? 0) - (b.channel ?? 0)).map((segment, id) => ({ ...segment, id }));
  }

  get fullText(): string {
    if (!this.multichannel) return this.#texts.join(' ');
    return speakerLines(this.recordSegments);
  }
}
