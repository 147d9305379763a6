/**
 * Incremental CTC prefix beam search for live recognition (issue 30): the beam of a
 * CtcBeamDecoder (same options, LM, keyterms) kept between calls, so that each frame is searched
 * once per turn instead of once per partial. Pure: no I/O, no clocks.
 *
 * Rules:
 * - One stream per utterance (a live turn). `advance` commits frames: raw rows (logits or
 *   log-probabilities, normalised as `decode` normalises them) whose scores will not change.
 *   Frames are searched once, in order; their log posteriors are kept for the alignment.
 * - `peek(tail)` is the best hypothesis as if the utterance ended after the committed frames
 *   plus a provisional `tail` (frames the acoustic model may still revise): exactly
 *   `decode(committed + tail)`. The tail is not committed and the stream is left as it was.
 * - `finish()` is `decode(committed)` exactly (end-of-sentence LM term, keyterm take-back,
 *   alignment), however the frames were split between `advance` calls. It closes the stream:
 *   any later call throws, and the frames' memory is released with the stream.
 * - `stablePrefix()` is what every prefix in the beam starts with (their common ancestor): every
 *   later `finish()` and `peek()` result starts with it, and it only grows as frames are
 *   committed. It may end inside a word; the tail is not considered.
 * - Cost: `advance` is the search's cost for the new frames; `peek` that of the tail plus the
 *   alignment over all frames (the best labels may change anywhere, so they are aligned anew);
 *   the state between calls is the beam (at most beamWidth prefixes and their ancestors) and the
 *   committed frames' log posteriors (frames x vocabulary floats).
 */
import type { BeamSearch, CtcBeamDecoder } from './ctc-beam-decoder.js';
import type { CtcHypothesis, CtcToken, CtcVocabulary } from './ctc-types.js';
import { tokensToWords } from './ctc-words.js';

/** The labels all beam prefixes agree on, and their text (words joined by a space, as hypotheses are). */
export interface StablePrefix {
  readonly labels: readonly number[];
  readonly text: string;
}

export class CtcBeamStream {
  private search: BeamSearch | null;
  private readonly vocabulary: CtcVocabulary;

  constructor(decoder: CtcBeamDecoder) {
    this.search = decoder.search();
    this.vocabulary = decoder.vocabulary;
  }

  /** Searches `frames` new rows of `logits` (row-major, vocabulary-wide) and commits them. */
  advance(logits: Float32Array, frames: number): void {
    this.open().advance(logits, this.checked(logits, frames));
  }

  /**
   * `peek`'s text alone: the same best labels, without aligning them to frames (the alignment
   * reads every frame of the turn; a partial needs only the text). `tailBeamWidth` (at most the
   * decoder's) searches the tail with a narrower beam: a cheaper partial that may read a little
   * differently in its tail; the committed frames and the beam kept between calls are unchanged.
   */
  peekText(tailLogits: Float32Array = new Float32Array(0), tailFrames = 0, tailBeamWidth?: number): string {
    const search = this.open();
    const frames = this.checked(tailLogits, tailFrames);
    return search.tentatively(() => {
      search.advance(tailLogits, frames, tailBeamWidth);
      return this.textOf(search.bestLabels());
    });
  }

  /** The best hypothesis over the committed frames plus `tailFrames` rows of `tailLogits`, not committed. */
  peek(tailLogits: Float32Array = new Float32Array(0), tailFrames = 0): CtcHypothesis {
    const search = this.open();
    const frames = this.checked(tailLogits, tailFrames);
    return search.tentatively(() => {
      search.advance(tailLogits, frames);
      return search.hypothesis();
    });
  }

  /**
   * The labels (and text) every prefix in the beam starts with; with `margin`, every prefix
   * whose search score (natural log) is within `margin` of the best one's (the hypotheses that
   * can still plausibly win: a prefix further behind rarely catches up, but may).
   */
  stablePrefix(margin = Number.POSITIVE_INFINITY): StablePrefix {
    const labels = this.open().commonLabels(margin);
    return { labels, text: this.textOf(labels) };
  }

  /** Labels as a hypothesis's text: its words joined by a space. */
  private textOf(labels: readonly number[]): string {
    const tokens: CtcToken[] = labels.map((id) => ({ id, startFrame: 0, endFrame: 0, probability: 0 }));
    return tokensToWords(tokens, this.vocabulary)
      .map((w) => w.text)
      .join(' ');
  }

  /** The final hypothesis over the committed frames; closes the stream. */
  finish(): CtcHypothesis {
    const hypothesis = this.open().hypothesis();
    this.search = null;
    return hypothesis;
  }

  private open(): BeamSearch {
    if (this.search === null) throw new Error('the beam stream is finished');
    return this.search;
  }

  private checked(logits: Float32Array, frames: number): number {
    if (!Number.isInteger(frames) || frames < 0) throw new RangeError('frames must be an integer >= 0');
    if (logits.length < frames * this.vocabulary.tokens.length)
      throw new RangeError(`${frames} frames need ${frames * this.vocabulary.tokens.length} scores, got ${logits.length}`);
    return frames;
  }
}
