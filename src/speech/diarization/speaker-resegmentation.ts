/**
 * Frame-level re-segmentation (the classical GMM-HMM pass of diarization systems): each speaker
 * found by the clustering gets the UBM with its means MAP-adapted to the speaker's frames; every
 * speech frame is scored against every speaker (its top UBM components only), and a Viterbi pass
 * with a fixed cost per speaker change relabels the frames; a few rounds. Time and memory grow
 * linearly with the audio (top components are kept per frame, never frames × frames).
 */
import type { IvectorExtractor } from './speaker-ivectors.js';

export interface ResegmentationParameters {
  readonly iterations: number;
  /** Log-likelihood a speaker change costs. */
  readonly switchPenalty: number;
  /** MAP relevance factor of the mean adaptation. */
  readonly relevance: number;
  /** UBM components scored per frame. */
  readonly topComponents: number;
}

/**
 * Relabels the speech frames of `labels` (-1: no speech, left as is; speakers 0..k-1) from
 * `frames` ([frames][D] features, centred as the UBM expects). Answers new labels; a speaker
 * may lose all its frames.
 */
export function resegmentFrames(model: IvectorExtractor, frames: Float32Array, labels: Int32Array, p: ResegmentationParameters): Int32Array {
  const { components: C, featureDim: D } = model;
  const n = labels.length;
  let k = 0;
  for (const label of labels) if (label + 1 > k) k = label + 1;
  if (k <= 1 || p.iterations <= 0) return labels.slice();
  const top = Math.min(p.topComponents, C);
  // Per speech frame: its top UBM components and their posteriors.
  const index: number[] = [];
  for (let t = 0; t < n; t++) if (labels[t]! >= 0) index.push(t);
  const m = index.length;
  const comps = new Int32Array(m * top);
  const posts = new Float32Array(m * top);
  const scratch = new Float64Array(C);
  for (let i = 0; i < m; i++) {
    const base = index[i]! * D;
    for (let c = 0; c < C; c++) {
      let s = model.gconst[c]!;
      for (let d = 0; d < D; d++) {
        const v = frames[base + d]!;
        s += v * model.meanOverVar[c * D + d]! - 0.5 * v * v * model.inverseVariance[c * D + d]!;
      }
      scratch[c] = s;
    }
    selectTop(scratch, top, comps, posts, i * top);
  }
  let current: Int32Array = Int32Array.from(index, (t) => labels[t]!);
  const logWeight = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    let q = model.gconst[c]!;
    for (let d = 0; d < D; d++) q += 0.5 * (model.means[c * D + d]! ** 2) * model.inverseVariance[c * D + d]!;
    logWeight[c] = q; // log w_c - ½ Σ log 2πσ²
  }
  const score = new Float64Array(m * k);
  for (let round = 0; round < p.iterations; round++) {
    // MAP-adapted means per speaker from the frames it holds now.
    const occupancy = new Float64Array(k * C);
    const firstOrder = new Float64Array(k * C * D);
    for (let i = 0; i < m; i++) {
      const s = current[i]!;
      const base = index[i]! * D;
      for (let j = 0; j < top; j++) {
        const c = comps[i * top + j]!;
        const g = posts[i * top + j]!;
        occupancy[s * C + c]! += g;
        const row = (s * C + c) * D;
        for (let d = 0; d < D; d++) firstOrder[row + d]! += g * frames[base + d]!;
      }
    }
    const means = new Float64Array(k * C * D);
    for (let s = 0; s < k; s++) {
      for (let c = 0; c < C; c++) {
        const nsc = occupancy[s * C + c]!;
        const alpha = nsc / (nsc + p.relevance);
        const row = (s * C + c) * D;
        for (let d = 0; d < D; d++) {
          const ml = nsc > 0 ? firstOrder[row + d]! / nsc : 0;
          means[row + d] = alpha * ml + (1 - alpha) * model.means[c * D + d]!;
        }
      }
    }
    // Frame log-likelihoods per speaker over the frame's top components.
    const terms = new Float64Array(top);
    for (let i = 0; i < m; i++) {
      const base = index[i]! * D;
      for (let s = 0; s < k; s++) {
        let best = Number.NEGATIVE_INFINITY;
        for (let j = 0; j < top; j++) {
          const c = comps[i * top + j]!;
          const row = (s * C + c) * D;
          let q = logWeight[c]!;
          for (let d = 0; d < D; d++) {
            const diff = frames[base + d]! - means[row + d]!;
            q -= 0.5 * diff * diff * model.inverseVariance[c * D + d]!;
          }
          terms[j] = q;
          if (q > best) best = q;
        }
        let sum = 0;
        for (let j = 0; j < top; j++) sum += Math.exp(terms[j]! - best);
        score[i * k + s] = best + Math.log(sum);
      }
    }
    current = viterbi(score, m, k, p.switchPenalty);
  }
  const out = labels.slice();
  for (let i = 0; i < m; i++) out[index[i]!] = current[i]!;
  return out;
}

/** The `top` largest log-scores' indices and their normalised posteriors (over those kept), written at `at`. */
function selectTop(logScores: Float64Array, top: number, comps: Int32Array, posts: Float32Array, at: number): void {
  for (let j = 0; j < top; j++) {
    let arg = -1;
    let max = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < logScores.length; c++) {
      if (logScores[c]! > max) {
        max = logScores[c]!;
        arg = c;
      }
    }
    comps[at + j] = arg;
    posts[at + j] = max;
    logScores[arg] = Number.NEGATIVE_INFINITY;
  }
  const best = posts[at]!;
  let total = 0;
  for (let j = 0; j < top; j++) {
    const e = Math.exp(posts[at + j]! - best);
    posts[at + j] = e;
    total += e;
  }
  for (let j = 0; j < top; j++) posts[at + j]! /= total;
}

/**
 * Best label sequence for per-frame scores [m][k] where staying costs nothing and any change
 * costs `penalty`: O(m·k) time, a back-pointer per frame and state.
 */
export function viterbi(score: Float64Array, m: number, k: number, penalty: number): Int32Array {
  const back = new Int32Array(m * k);
  let prev = new Float64Array(k);
  let next = new Float64Array(k);
  for (let s = 0; s < k; s++) prev[s] = score[s]!;
  for (let i = 1; i < m; i++) {
    let bestState = 0;
    for (let s = 1; s < k; s++) if (prev[s]! > prev[bestState]!) bestState = s;
    const switched = prev[bestState]! - penalty;
    for (let s = 0; s < k; s++) {
      if (prev[s]! >= switched) {
        next[s] = prev[s]! + score[i * k + s]!;
        back[i * k + s] = s;
      } else {
        next[s] = switched + score[i * k + s]!;
        back[i * k + s] = bestState;
      }
    }
    [prev, next] = [next, prev];
  }
  const path = new Int32Array(m);
  let state = 0;
  for (let s = 1; s < k; s++) if (prev[s]! > prev[state]!) state = s;
  for (let i = m - 1; i >= 0; i--) {
    path[i] = state;
    state = back[i * k + state]!;
  }
  return path;
}
