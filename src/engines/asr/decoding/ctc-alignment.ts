/**
 * Viterbi alignment of a label sequence to CTC log posteriors: the best path through the CTC
 * topology (blank, label, blank, ...; a blank between repeated labels), every label on the frames
 * its non-blank state occupies. The beam decoder times the tokens it emits with it (ctc-beam-decoder.ts),
 * and the forced alignment of a known text builds on it (ctc-forced-alignment.ts). Pure.
 */
import type { CtcToken } from './ctc-types.js';

const NEG = -Infinity;

/**
 * Viterbi alignment of a label sequence to CTC log posteriors (frames x vocab, row-major).
 * `result()` gives each label with the frames its non-blank state occupies and its mean
 * posterior there.
 */
class CtcAligner {
  private t = 0;
  private prev: Float64Array;
  private cur: Float64Array;
  private readonly stateLabel: Int32Array;
  private readonly canSkip: Uint8Array;
  /** Back-pointers: 0 same state, 1 from s-1, 2 from s-2. */
  private readonly from: Uint8Array;
  private readonly states: number;

  constructor(
    private readonly labels: readonly number[],
    private readonly logProbs: Float32Array,
    private readonly frames: number,
    private readonly vocabSize: number,
    blank: number,
  ) {
    this.states = 2 * labels.length + 1;
    this.stateLabel = new Int32Array(this.states);
    this.canSkip = new Uint8Array(this.states);
    for (let s = 0; s < this.states; s++) {
      this.stateLabel[s] = s % 2 === 0 ? blank : labels[(s - 1) >> 1]!;
      this.canSkip[s] = s >= 2 && s % 2 === 1 && labels[(s - 1) >> 1] !== labels[(s - 3) >> 1] ? 1 : 0;
    }
    this.prev = new Float64Array(this.states).fill(NEG);
    this.cur = new Float64Array(this.states);
    this.from = new Uint8Array(labels.length > 0 ? frames * this.states : 0);
    if (labels.length === 0 || frames === 0) {
      this.t = frames;
      return;
    }
    this.prev[0] = logProbs[this.stateLabel[0]!]!;
    this.prev[1] = logProbs[this.stateLabel[1]!]!;
    this.t = 1;
  }

  private forward(): void {
    const { states, stateLabel, canSkip, from, logProbs, vocabSize } = this;
    for (; this.t < this.frames; this.t++) {
      const prev = this.prev;
      const cur = this.cur;
      const row = this.t * vocabSize;
      const back = this.t * states;
      // States that cannot be reached yet (s > 2t+1) stay at -Infinity through prev.
      const top = Math.min(states, 2 * this.t + 2);
      for (let s = 0; s < top; s++) {
        let best = prev[s]!;
        let step = 0;
        if (s >= 1 && prev[s - 1]! > best) {
          best = prev[s - 1]!;
          step = 1;
        }
        if (canSkip[s] === 1 && prev[s - 2]! > best) {
          best = prev[s - 2]!;
          step = 2;
        }
        cur[s] = best + logProbs[row + stateLabel[s]!]!;
        from[back + s] = step;
      }
      for (let s = top; s < states; s++) cur[s] = NEG;
      this.prev = cur;
      this.cur = prev;
    }
  }

  result(): CtcToken[] {
    const { labels, frames, states, logProbs, vocabSize } = this;
    if (labels.length === 0 || frames === 0) return [];
    this.forward();
    const last = this.prev;
    let s = states >= 2 && last[states - 2]! > last[states - 1]! ? states - 2 : states - 1;
    const stateOf = new Int32Array(frames);
    for (let t = frames - 1; t >= 0; t--) {
      stateOf[t] = s;
      if (t > 0) s -= this.from[t * states + s]!;
    }
    const tokens: CtcToken[] = [];
    let t = 0;
    for (let i = 0; i < labels.length; i++) {
      const state = 2 * i + 1;
      while (t < frames && stateOf[t] !== state) t++;
      const start = t;
      let sum = 0;
      for (; t < frames && stateOf[t] === state; t++) sum += Math.exp(logProbs[t * vocabSize + labels[i]!]!);
      // An unreachable alignment (too few frames) still reports the label, at the last frame.
      const startFrame = Math.min(start, frames - 1);
      const endFrame = Math.max(t, startFrame + 1);
      tokens.push({ id: labels[i]!, startFrame, endFrame, probability: t > start ? sum / (t - start) : 0 });
    }
    return tokens;
  }
}

/** Aligns in one go; see CtcAligner. */
export function alignTokens(labels: readonly number[], logProbs: Float32Array, frames: number, vocabSize: number, blank: number): CtcToken[] {
  return new CtcAligner(labels, logProbs, frames, vocabSize, blank).result();
}
