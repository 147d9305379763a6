// What the speech gate knows about one channel's audio: the Silero probabilities of the windows
// it analysed, reduced to runs of speech. Pure: windows in (probability, end position), answers
// out; no audio, no clock.
//
// Rules:
// - A window is speech at probability >= `threshold`. A run of at least `minRunWindows`
//   consecutive speech windows is evidence of speech over the run's span; shorter runs are not
//   (a tone, a chord or a click scores the odd window above the threshold, speech scores
//   hundreds of milliseconds in a row: measured in docs/streaming.md "Speech gate").
// - Windows arrive in stream order. A window that does not start where the last one ended (the
//   feed jumped: a new turn, CLEAR) breaks the run; `reset` says where analysis continues.
// - `analysed` is the end of the last window seen: audio before it has been judged.
// - Runs ending before `prune`'s position are forgotten (nothing asks about them any more).

export interface SpeechEvidenceOptions {
  /** Samples per window (512 for Silero at 16 kHz). */
  readonly windowSamples: number;
  readonly threshold: number;
  readonly minRunWindows: number;
}

export interface SampleSpan {
  readonly start: number;
  readonly end: number;
}

export class SpeechEvidence {
  readonly #runs: Array<{ start: number; end: number }> = [];
  #analysed = 0;
  #runStart = 0;
  #runWindows = 0;

  constructor(private readonly options: SpeechEvidenceOptions) {}

  /** End of the last window seen (absolute 16 kHz samples). */
  get analysed(): number {
    return this.#analysed;
  }

  /** Analysis continues at `position` (a new stretch of audio): the run in progress ends. */
  reset(position: number): void {
    this.#analysed = position;
    this.#runWindows = 0;
  }

  /** One window's speech probability; the window ends at `end`. */
  add(probability: number, end: number): void {
    const { windowSamples, threshold, minRunWindows } = this.options;
    const start = end - windowSamples;
    if (start !== this.#analysed) this.#runWindows = 0;
    this.#analysed = end;
    if (probability < threshold) {
      this.#runWindows = 0;
      return;
    }
    if (this.#runWindows === 0) this.#runStart = start;
    this.#runWindows++;
    if (this.#runWindows === minRunWindows) this.#runs.push({ start: this.#runStart, end });
    else if (this.#runWindows > minRunWindows) this.#runs[this.#runs.length - 1]!.end = end;
  }

  /** Whether a speech run overlaps [start, end). */
  hasSpeech(start: number, end: number): boolean {
    return this.#runs.some((run) => run.start < end && run.end > start);
  }

  /** The speech runs overlapping [start, end), clipped to it, in order. */
  spans(start: number, end: number): SampleSpan[] {
    return this.#runs.filter((run) => run.start < end && run.end > start).map((run) => ({ start: Math.max(start, run.start), end: Math.min(end, run.end) }));
  }

  /** Forgets runs that end at or before `position`. */
  prune(position: number): void {
    let drop = 0;
    while (drop < this.#runs.length && this.#runs[drop]!.end <= position) drop++;
    if (drop > 0) this.#runs.splice(0, drop);
  }
}

/**
 * Padded, merged spans for decoding the speech of a piece [start, end): each run widened by
 * `before`/`after` samples (within the piece), runs closer than `joinGap` joined. Empty when the
 * piece holds no speech run.
 */
export function paddedSpans(runs: readonly SampleSpan[], piece: SampleSpan, pad: { before: number; after: number; joinGap: number }): SampleSpan[] {
  const out: Array<{ start: number; end: number }> = [];
  for (const run of runs) {
    const start = Math.max(piece.start, run.start - pad.before);
    const end = Math.min(piece.end, run.end + pad.after);
    const last = out[out.length - 1];
    if (last !== undefined && start - last.end < pad.joinGap) last.end = Math.max(last.end, end);
    else out.push({ start, end });
  }
  // Gaps to the piece's edges shorter than joinGap are not cut off either.
  if (out.length > 0) {
    if (out[0]!.start - piece.start < pad.joinGap) out[0]!.start = piece.start;
    if (piece.end - out[out.length - 1]!.end < pad.joinGap) out[out.length - 1]!.end = piece.end;
  }
  return out;
}
