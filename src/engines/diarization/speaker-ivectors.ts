/**
 * I-vectors for diarization: a diagonal GMM-UBM over MFCC frames and a total-variability matrix
 * (both trained without speaker labels by training/speakers/speaker_ivector.py). Each window's
 * Baum-Welch statistics (zeroth order per component, first order centred on the component's mean
 * and divided by its deviation) give its i-vector, the posterior mean w = L⁻¹ Σ_c T_cᵀ F_c with
 * L = I + Σ_c N_c T_cᵀ T_c. `ivectorWindows` gives the i-vectors of sliding windows over a file's
 * 20 ms speaker frames (window bounds in frames).
 */
import { MFCC_COEFFICIENTS } from './speaker-features.js';
import { solvePositiveDefinite } from './speaker-linear-algebra.js';

export interface IvectorExtractor {
  readonly kind: 'ivector';
  readonly name: string;
  /** MFCCs per frame. */
  readonly featureDim: number;
  readonly components: number;
  readonly rank: number;
  /** log w_c - ½ Σ_d (log 2π σ²_cd + μ²_cd / σ²_cd), per component. */
  readonly gconst: Float64Array;
  /** μ_cd / σ²_cd and 1 / σ²_cd, [C][D]. */
  readonly meanOverVar: Float64Array;
  readonly inverseVariance: Float64Array;
  readonly means: Float64Array;
  readonly inverseDeviation: Float64Array;
  /** [C][D][R] in the whitened space. */
  readonly t: Float64Array;
  /** T_cᵀ T_c, [C][R][R]. */
  readonly tt: Float64Array;
  /**
   * A speaker discriminant trained with speaker labels (the model file's `projection`, [R][k], and
   * `projection_mean`, [R]): (i-vector - mean) · projection, comparable across files, gives a
   * `discriminantWeight` share of each window's cosine (speaker-windows.ts). Null: the file's
   * principal directions of the raw i-vectors alone (unsupervised models).
   */
  readonly discriminant: IvectorDiscriminant | null;
}

export interface IvectorDiscriminant {
  readonly dims: number;
  /** [R]. */
  readonly mean: Float64Array;
  /** [R][dims], row-major. */
  readonly matrix: Float64Array;
}

/** Checks and flattens a discriminant for an extractor of `rank`. */
export function ivectorDiscriminant(rank: number, mean: readonly number[], matrix: readonly (readonly number[])[]): IvectorDiscriminant {
  const dims = matrix[0]?.length ?? 0;
  if (mean.length !== rank || matrix.length !== rank || dims === 0 || matrix.some((row) => row.length !== dims))
    throw new Error('speaker model: projection must be [rank][dims] and projection_mean [rank]');
  const flat = new Float64Array(rank * dims);
  matrix.forEach((row, r) => row.forEach((x, k) => (flat[r * dims + k] = Number(x))));
  if (!flat.every(Number.isFinite) || !mean.every((x) => Number.isFinite(Number(x)))) throw new Error('speaker model: projection must be finite numbers');
  return { dims, mean: Float64Array.from(mean, Number), matrix: flat };
}

/** A raw i-vector through the discriminant: (w - mean) · matrix. */
export function discriminate(ivector: Float64Array, d: IvectorDiscriminant): Float64Array {
  const out = new Float64Array(d.dims);
  for (let r = 0; r < d.mean.length; r++) {
    const x = ivector[r]! - d.mean[r]!;
    for (let k = 0; k < d.dims; k++) out[k]! += x * d.matrix[r * d.dims + k]!;
  }
  return out;
}

/** Builds the extractor's tables from the model file's arrays. */
export function ivectorExtractor(
  name: string,
  weights: readonly number[],
  means: readonly (readonly number[])[],
  variances: readonly (readonly number[])[],
  t: readonly (readonly (readonly number[])[])[],
  discriminant: { readonly mean: readonly number[]; readonly matrix: readonly (readonly number[])[] } | null = null,
): IvectorExtractor {
  const components = weights.length;
  const featureDim = means[0]?.length ?? 0;
  const rank = t[0]?.[0]?.length ?? 0;
  if (components === 0 || featureDim === 0 || rank === 0 || means.length !== components || variances.length !== components || t.length !== components) {
    throw new Error('speaker model: ubm_weights, ubm_means, ubm_variances and total_variability must agree in size');
  }
  const gconst = new Float64Array(components);
  const meanOverVar = new Float64Array(components * featureDim);
  const inverseVariance = new Float64Array(components * featureDim);
  const flatMeans = new Float64Array(components * featureDim);
  const inverseDeviation = new Float64Array(components * featureDim);
  const flatT = new Float64Array(components * featureDim * rank);
  for (let c = 0; c < components; c++) {
    let g = Math.log(weights[c]!);
    for (let d = 0; d < featureDim; d++) {
      const m = Number(means[c]![d]);
      const v = Number(variances[c]![d]);
      if (!(v > 0) || variances[c]!.length !== featureDim || means[c]!.length !== featureDim)
        throw new Error('speaker model: variances must be positive, one per feature');
      g -= 0.5 * (Math.log(2 * Math.PI * v) + (m * m) / v);
      meanOverVar[c * featureDim + d] = m / v;
      inverseVariance[c * featureDim + d] = 1 / v;
      flatMeans[c * featureDim + d] = m;
      inverseDeviation[c * featureDim + d] = 1 / Math.sqrt(v);
      const row = t[c]![d];
      if (row === undefined || row.length !== rank) throw new Error('speaker model: total_variability must be [components][features][rank]');
      for (let r = 0; r < rank; r++) flatT[(c * featureDim + d) * rank + r] = Number(row[r]);
    }
    gconst[c] = g;
  }
  const tt = new Float64Array(components * rank * rank);
  for (let c = 0; c < components; c++) {
    for (let d = 0; d < featureDim; d++) {
      const base = (c * featureDim + d) * rank;
      for (let r = 0; r < rank; r++) {
        const x = flatT[base + r]!;
        for (let s = 0; s < rank; s++) tt[(c * rank + r) * rank + s]! += x * flatT[base + s]!;
      }
    }
  }
  return {
    kind: 'ivector',
    name,
    featureDim,
    components,
    rank,
    gconst,
    meanOverVar,
    inverseVariance,
    means: flatMeans,
    inverseDeviation,
    t: flatT,
    tt,
    discriminant: discriminant === null ? null : ivectorDiscriminant(rank, discriminant.mean, discriminant.matrix),
  };
}

/**
 * Adds frame `x`'s statistics to `n` ([C]) and `f` ([C][D], centred and whitened). Posteriors
 * under 1e-4 are skipped (they change nothing measurable and cost most of the time).
 */
export function accumulateFrame(model: IvectorExtractor, x: Float32Array | Float64Array, n: Float64Array, f: Float64Array, scratch: Float64Array): void {
  const { components: C, featureDim: D } = model;
  let top = Number.NEGATIVE_INFINITY;
  for (let c = 0; c < C; c++) {
    let s = model.gconst[c]!;
    for (let d = 0; d < D; d++) {
      const v = x[d]!;
      s += v * model.meanOverVar[c * D + d]! - 0.5 * v * v * model.inverseVariance[c * D + d]!;
    }
    scratch[c] = s;
    if (s > top) top = s;
  }
  let total = 0;
  for (let c = 0; c < C; c++) {
    const p = Math.exp(scratch[c]! - top);
    scratch[c] = p;
    total += p;
  }
  for (let c = 0; c < C; c++) {
    const g = scratch[c]! / total;
    if (g < 1e-4) continue;
    n[c]! += g;
    for (let d = 0; d < D; d++) f[c * D + d]! += g * (x[d]! - model.means[c * D + d]!) * model.inverseDeviation[c * D + d]!;
  }
}

/** The i-vector (posterior mean) of a window's statistics. */
export function extractIvector(model: IvectorExtractor, n: Float64Array, f: Float64Array): Float64Array {
  const { components: C, featureDim: D, rank: R } = model;
  const l = new Float64Array(R * R);
  for (let i = 0; i < R; i++) l[i * R + i] = 1;
  const b = new Float64Array(R);
  for (let c = 0; c < C; c++) {
    const nc = n[c]!;
    if (nc < 1e-6) continue;
    const base = c * R * R;
    for (let k = 0; k < R * R; k++) l[k]! += nc * model.tt[base + k]!;
    for (let d = 0; d < D; d++) {
      const fcd = f[c * D + d]!;
      const row = (c * D + d) * R;
      for (let r = 0; r < R; r++) b[r]! += model.t[row + r]! * fcd;
    }
  }
  return solvePositiveDefinite(l, b, R);
}

/** A window's i-vector (its frames [startFrame, endFrame)), before the file's principal directions. */
export interface RawIvector {
  readonly startFrame: number;
  readonly endFrame: number;
  readonly ivector: Float64Array;
}

/**
 * I-vectors of sliding windows (`windowFrames` every `hopFrames`) over the speech frames of
 * `centred` (MFCCs centred on the file's speech mean), from running Baum-Welch statistics of
 * `hopFrames` blocks: each frame's posteriors are computed once, and a ring of the last blocks
 * keeps memory constant in the length. Windows with fewer than a third of their frames speech are left out.
 */
export function ivectorWindows(
  centred: Float32Array,
  speech: Uint8Array,
  frames: number,
  windowFrames: number,
  hopFrames: number,
  model: IvectorExtractor,
): RawIvector[] {
  const { components: C, featureDim: D } = model;
  if (D !== MFCC_COEFFICIENTS) throw new Error(`speaker model: expects ${D} features per frame, the front end gives ${MFCC_COEFFICIENTS}`);
  const blocksPerWindow = Math.max(1, Math.round(windowFrames / hopFrames));
  const blockCount = Math.ceil(frames / hopFrames);
  const ringN = Array.from({ length: blocksPerWindow }, () => new Float64Array(C));
  const ringF = Array.from({ length: blocksPerWindow }, () => new Float64Array(C * D));
  const ringFrames = new Int32Array(blocksPerWindow);
  const x = new Float64Array(D);
  const scratch = new Float64Array(C);
  const out: RawIvector[] = [];
  for (let block = 0; block < blockCount; block++) {
    const slot = block % blocksPerWindow;
    const n = ringN[slot]!.fill(0);
    const f = ringF[slot]!.fill(0);
    let speechFrames = 0;
    const end = Math.min(frames, (block + 1) * hopFrames);
    for (let t = block * hopFrames; t < end; t++) {
      if (speech[t] === 0) continue;
      for (let d = 0; d < D; d++) x[d] = centred[t * D + d]!;
      accumulateFrame(model, x, n, f, scratch);
      speechFrames++;
    }
    ringFrames[slot] = speechFrames;
    const first = block - blocksPerWindow + 1;
    if (first < 0 && block !== blockCount - 1) continue;
    let windowSpeech = 0;
    for (const k of ringFrames) windowSpeech += k;
    if (windowSpeech < windowFrames / 3) continue;
    const sumN = new Float64Array(C);
    const sumF = new Float64Array(C * D);
    for (let k = 0; k < blocksPerWindow; k++) {
      for (let c = 0; c < C; c++) sumN[c]! += ringN[k]![c]!;
      for (let i = 0; i < C * D; i++) sumF[i]! += ringF[k]![i]!;
    }
    out.push({ startFrame: Math.max(0, first) * hopFrames, endFrame: end, ivector: extractIvector(model, sumN, sumF) });
  }
  return out;
}
