/**
 * Frame-level re-segmentation by a Bayesian HMM over speakers with eigenvoice priors (the
 * "VB-HMM" of Diez, Burget and Matějka, Odyssey 2018; the i-vector form of BUT's VBx): the
 * i-vector extractor's UBM and total-variability matrix T serve as the speaker model, so each
 * speaker s is a GMM whose means are shifted by T·y_s, y_s a latent vector with a standard normal
 * prior, learnt from the frames the speaker is believed to hold.
 *
 * Rules:
 * - Works on the file's speech frames only (20 ms speaker frames, MFCCs centred on the file's speech
 *   mean: the extractor's input), in time order; pauses are skipped, not modelled.
 * - Each frame's UBM component posteriors γ_tc are fixed (the alignment); a speaker's frame
 *   log-likelihood over the UBM's is Σ_c γ_tc (f_tcᵀ T_c ȳ_s − ½ (|T_c ȳ_s|² + tr(T_cᵀT_c Σ_s)))
 *   with f_tc the frame centred on and whitened by component c.
 * - The HMM stays with a speaker from frame to frame with `loopProbability`, else enters speaker
 *   s' with its prior π_s'. Frame log-likelihoods are scaled by `acousticScale` (Fa: neighbouring
 *   frames are far from independent); the speaker posteriors by Fa / `speakerScale` (Fb).
 * - Iterations: speakers (ȳ_s, Σ_s) from the frame posteriors q_ts, then q by forward-backward,
 *   then π from q. A speaker whose frames the others explain better fades (π → 0) and vanishes.
 * - Starts from the given labels (one per speech frame, −1 for none: spread evenly), softened so
 *   that the first speaker models are not fitted to their own hard labels alone.
 * Pure and deterministic; time linear in the speech frames and the speakers.
 */
import type { IvectorExtractor } from './speaker-ivectors.js';
import { invertPositiveDefinite } from './speaker-linear-algebra.js';

export interface VbResegmentationParameters {
  /** Fa: the scale of frame log-likelihoods. */
  readonly acousticScale: number;
  /** Fb: the speaker prior's weight against the frames (larger: speaker models move less). */
  readonly speakerScale: number;
  /** The probability of staying with the same speaker from one speech frame to the next. */
  readonly loopProbability: number;
  readonly iterations: number;
}

/** Component posteriors under this are left out of a frame's alignment (renormalised without them). */
const MIN_COMPONENT_POSTERIOR = 1e-3;
/** The share of a frame's initial posterior not on its given label (spread over the other speakers). */
const INITIAL_SOFTENING = 0.1;
/** A speaker whose prior falls under this after an iteration is dropped. */
const MIN_SPEAKER_PRIOR = 1e-4;

/** The speech frames' sparse UBM alignment: for frame i, entries [start[i], start[i + 1]) of `component` and `posterior`. */
interface Alignment {
  readonly frames: Int32Array;
  readonly start: Int32Array;
  readonly component: Int32Array;
  readonly posterior: Float64Array;
}

/**
 * A speaker per frame (−1 off speech), re-estimated from `initial` (a speaker per frame, −1 where
 * none) on the speech frames of `centred` ([frames][featureDim]); speakers numbered as in
 * `initial`, those that vanished absent. Returns `initial` unchanged when it has fewer than two speakers.
 */
export function vbResegment(
  model: IvectorExtractor,
  centred: Float32Array,
  speech: Uint8Array,
  initial: Int32Array,
  parameters: VbResegmentationParameters,
): Int32Array {
  let speakers = 0;
  for (const label of initial) if (label + 1 > speakers) speakers = label + 1;
  if (speakers < 2) return initial.slice();
  const alignment = align(model, centred, speech);
  const n = alignment.frames.length;
  if (n === 0) return initial.slice();
  const { acousticScale, loopProbability } = parameters;
  // q[i * S + s]: the posterior of speaker s at speech frame i.
  const q = new Float64Array(n * speakers);
  for (let i = 0; i < n; i++) {
    const label = initial[alignment.frames[i]!]!;
    for (let s = 0; s < speakers; s++) {
      q[i * speakers + s] = label < 0 ? 1 / speakers : s === label ? 1 - INITIAL_SOFTENING : INITIAL_SOFTENING / (speakers - 1);
    }
  }
  let prior = speakerShares(q, n, speakers);
  const logLikelihood = new Float64Array(n * speakers);
  for (let iteration = 0; iteration < parameters.iterations; iteration++) {
    const models = Array.from({ length: speakers }, (_, s) => (prior[s]! > 0 ? speakerModel(model, centred, alignment, q, speakers, s, parameters) : null));
    for (let s = 0; s < speakers; s++) frameLogLikelihoods(model, centred, alignment, models[s] ?? null, s, speakers, logLikelihood);
    forwardBackward(logLikelihood, n, speakers, prior, acousticScale, loopProbability, q);
    prior = speakerShares(q, n, speakers);
  }
  const out = new Int32Array(initial.length).fill(-1);
  for (let i = 0; i < n; i++) {
    let best = 0;
    for (let s = 1; s < speakers; s++) if (q[i * speakers + s]! > q[i * speakers + best]!) best = s;
    out[alignment.frames[i]!] = best;
  }
  return out;
}

/** π: each speaker's share of the speech frames' posteriors; shares under MIN_SPEAKER_PRIOR are zeroed and the rest renormalised. */
function speakerShares(q: Float64Array, n: number, speakers: number): Float64Array {
  const prior = new Float64Array(speakers);
  for (let i = 0; i < n; i++) for (let s = 0; s < speakers; s++) prior[s]! += q[i * speakers + s]!;
  let total = 0;
  for (let s = 0; s < speakers; s++) {
    prior[s]! /= n;
    if (prior[s]! < MIN_SPEAKER_PRIOR) prior[s] = 0;
    total += prior[s]!;
  }
  for (let s = 0; s < speakers; s++) prior[s]! /= total;
  return prior;
}

/** The speech frames' UBM component posteriors, the small ones left out. */
function align(model: IvectorExtractor, centred: Float32Array, speech: Uint8Array): Alignment {
  const { components: C, featureDim: D } = model;
  const frames: number[] = [];
  const start: number[] = [0];
  const component: number[] = [];
  const posterior: number[] = [];
  const scratch = new Float64Array(C);
  for (let t = 0; t < speech.length; t++) {
    if (speech[t] === 0) continue;
    let top = Number.NEGATIVE_INFINITY;
    for (let c = 0; c < C; c++) {
      let s = model.gconst[c]!;
      for (let d = 0; d < D; d++) {
        const v = centred[t * D + d]!;
        s += v * model.meanOverVar[c * D + d]! - 0.5 * v * v * model.inverseVariance[c * D + d]!;
      }
      scratch[c] = s;
      if (s > top) top = s;
    }
    let total = 0;
    for (let c = 0; c < C; c++) {
      scratch[c] = Math.exp(scratch[c]! - top);
      total += scratch[c]!;
    }
    let kept = 0;
    for (let c = 0; c < C; c++) if (scratch[c]! / total >= MIN_COMPONENT_POSTERIOR) kept += scratch[c]!;
    for (let c = 0; c < C; c++) {
      if (scratch[c]! / total < MIN_COMPONENT_POSTERIOR) continue;
      component.push(c);
      posterior.push(scratch[c]! / kept);
    }
    frames.push(t);
    start.push(component.length);
  }
  return { frames: Int32Array.from(frames), start: Int32Array.from(start), component: Int32Array.from(component), posterior: Float64Array.from(posterior) };
}

/** A speaker's model for the frame likelihoods: per component c, T_c ȳ_s divided by σ_c ([C][D]) with its dot with μ_c, and ½(|T_c ȳ_s|² + tr(T_cᵀT_c Σ_s)). */
interface SpeakerModel {
  readonly scaledMean: Float64Array;
  readonly meanOffset: Float64Array;
  readonly halfEnergy: Float64Array;
}

/** ȳ_s and Σ_s from the frames' posteriors of speaker s, as the frame-likelihood terms. */
function speakerModel(
  model: IvectorExtractor,
  centred: Float32Array,
  alignment: Alignment,
  q: Float64Array,
  speakers: number,
  s: number,
  parameters: VbResegmentationParameters,
): SpeakerModel {
  const { components: C, featureDim: D, rank: R } = model;
  const nc = new Float64Array(C);
  const fc = new Float64Array(C * D);
  for (let i = 0; i < alignment.frames.length; i++) {
    const weight = q[i * speakers + s]!;
    if (weight < 1e-6) continue;
    const t = alignment.frames[i]!;
    for (let k = alignment.start[i]!; k < alignment.start[i + 1]!; k++) {
      const c = alignment.component[k]!;
      const g = weight * alignment.posterior[k]!;
      nc[c]! += g;
      for (let d = 0; d < D; d++) fc[c * D + d]! += g * (centred[t * D + d]! - model.means[c * D + d]!) * model.inverseDeviation[c * D + d]!;
    }
  }
  const ratio = parameters.acousticScale / parameters.speakerScale;
  const precision = new Float64Array(R * R);
  for (let r = 0; r < R; r++) precision[r * R + r] = 1;
  const b = new Float64Array(R);
  for (let c = 0; c < C; c++) {
    if (nc[c]! < 1e-9) continue;
    const base = c * R * R;
    for (let k = 0; k < R * R; k++) precision[k]! += ratio * nc[c]! * model.tt[base + k]!;
    for (let d = 0; d < D; d++) {
      const f = ratio * fc[c * D + d]!;
      const row = (c * D + d) * R;
      for (let r = 0; r < R; r++) b[r]! += model.t[row + r]! * f;
    }
  }
  const covariance = invertPositiveDefinite(precision, R);
  const y = new Float64Array(R);
  for (let r = 0; r < R; r++) {
    let sum = 0;
    for (let k = 0; k < R; k++) sum += covariance[r * R + k]! * b[k]!;
    y[r] = sum;
  }
  const scaledMean = new Float64Array(C * D);
  const meanOffset = new Float64Array(C);
  const halfEnergy = new Float64Array(C);
  for (let c = 0; c < C; c++) {
    let energy = 0;
    let offset = 0;
    for (let d = 0; d < D; d++) {
      const row = (c * D + d) * R;
      let m = 0;
      for (let r = 0; r < R; r++) m += model.t[row + r]! * y[r]!;
      energy += m * m;
      const scaled = m * model.inverseDeviation[c * D + d]!;
      scaledMean[c * D + d] = scaled;
      offset += scaled * model.means[c * D + d]!;
    }
    let trace = 0;
    const base = c * R * R;
    for (let k = 0; k < R * R; k++) trace += model.tt[base + k]! * covariance[k]!;
    meanOffset[c] = offset;
    halfEnergy[c] = 0.5 * (energy + trace);
  }
  return { scaledMean, meanOffset, halfEnergy };
}

/** Column s of `out` ([n][S]): each speech frame's log-likelihood under speaker s over the UBM's (−∞ for a dropped speaker). */
function frameLogLikelihoods(
  model: IvectorExtractor,
  centred: Float32Array,
  alignment: Alignment,
  speaker: SpeakerModel | null,
  s: number,
  speakers: number,
  out: Float64Array,
): void {
  const D = model.featureDim;
  for (let i = 0; i < alignment.frames.length; i++) {
    if (speaker === null) {
      out[i * speakers + s] = Number.NEGATIVE_INFINITY;
      continue;
    }
    const t = alignment.frames[i]!;
    let sum = 0;
    for (let k = alignment.start[i]!; k < alignment.start[i + 1]!; k++) {
      const c = alignment.component[k]!;
      let dotted = -speaker.meanOffset[c]!;
      for (let d = 0; d < D; d++) dotted += centred[t * D + d]! * speaker.scaledMean[c * D + d]!;
      sum += alignment.posterior[k]! * (dotted - speaker.halfEnergy[c]!);
    }
    out[i * speakers + s] = sum;
  }
}

/**
 * The speakers' posteriors per frame into `q` by the scaled forward-backward algorithm over the
 * HMM: stay with probability `loop`, else enter s' with probability (1 − loop)·π_s'.
 */
function forwardBackward(
  logLikelihood: Float64Array,
  n: number,
  speakers: number,
  prior: Float64Array,
  scale: number,
  loop: number,
  q: Float64Array,
): void {
  const emission = new Float64Array(n * speakers);
  for (let i = 0; i < n; i++) {
    let top = Number.NEGATIVE_INFINITY;
    for (let s = 0; s < speakers; s++) if (prior[s]! > 0) top = Math.max(top, scale * logLikelihood[i * speakers + s]!);
    for (let s = 0; s < speakers; s++) emission[i * speakers + s] = prior[s]! > 0 ? Math.exp(scale * logLikelihood[i * speakers + s]! - top) : 0;
  }
  const alpha = new Float64Array(n * speakers);
  for (let s = 0; s < speakers; s++) alpha[s] = prior[s]! * emission[s]!;
  normalise(alpha, 0, speakers);
  for (let i = 1; i < n; i++) {
    let previous = 0;
    for (let s = 0; s < speakers; s++) previous += alpha[(i - 1) * speakers + s]!;
    for (let s = 0; s < speakers; s++) {
      const enter = loop * alpha[(i - 1) * speakers + s]! + (1 - loop) * prior[s]! * previous;
      alpha[i * speakers + s] = enter * emission[i * speakers + s]!;
    }
    normalise(alpha, i * speakers, speakers);
  }
  const beta = new Float64Array(n * speakers);
  for (let s = 0; s < speakers; s++) beta[(n - 1) * speakers + s] = 1;
  for (let i = n - 2; i >= 0; i--) {
    let leave = 0;
    for (let s = 0; s < speakers; s++) leave += prior[s]! * emission[(i + 1) * speakers + s]! * beta[(i + 1) * speakers + s]!;
    for (let s = 0; s < speakers; s++) {
      beta[i * speakers + s] = loop * emission[(i + 1) * speakers + s]! * beta[(i + 1) * speakers + s]! + (1 - loop) * leave;
    }
    normalise(beta, i * speakers, speakers);
  }
  for (let i = 0; i < n; i++) {
    for (let s = 0; s < speakers; s++) q[i * speakers + s] = alpha[i * speakers + s]! * beta[i * speakers + s]!;
    normalise(q, i * speakers, speakers);
  }
}

/** Scales `values[from, from + count)` to sum 1 (left as they are when they sum to 0). */
function normalise(values: Float64Array, from: number, count: number): void {
  let total = 0;
  for (let k = from; k < from + count; k++) total += values[k]!;
  if (!(total > 0)) return;
  for (let k = from; k < from + count; k++) values[k]! /= total;
}
