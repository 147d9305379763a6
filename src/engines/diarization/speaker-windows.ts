/**
 * Window embeddings for diarization: windows of `windowFrames` every `hopFrames` (20 ms speaker
 * frames) with at least a third of their frames speech, each embedded by the speaker model: with an
 * i-vector extractor, the windows' i-vectors centred on their mean, on the file's principal
 * directions; with a linear projection, their MFCC means and deviations centred on the file's mean
 * window and projected. Embeddings are unit length, windows in time order. Pure; one call per file.
 */
import type { BackendParameters } from './diarization-backends.js';
import { addInto, normalize } from './speaker-clustering.js';
import { centredFrames, MFCC_COEFFICIENTS, type SpeakerFrames } from './speaker-features.js';
import { ivectorWindows, type RawIvector } from './speaker-ivectors.js';
import { symmetricEigen } from './speaker-linear-algebra.js';
import type { LinearSpeakerProjection, SpeakerProjection } from './speaker-projection.js';

export interface EmbeddedWindow {
  readonly startFrame: number;
  readonly endFrame: number;
  readonly embedding: Float32Array;
}

/**
 * The file's embedded windows, and the MFCCs centred on its speech when they were computed (the
 * i-vector path; the overlap detector reads them too), else null.
 */
export function embeddedWindows(
  features: SpeakerFrames,
  speech: Uint8Array,
  parameters: BackendParameters,
  projection: SpeakerProjection,
): { windows: EmbeddedWindow[]; centred: Float32Array | null } {
  // I-vector models: the long windows' i-vectors on the file's principal directions (what varies
  // most within one recording is who speaks); a linear projection: projected MFCC statistics.
  if (projection.kind !== 'ivector') return { windows: linearWindows(features, speech, parameters, projection), centred: null };
  const centred = centredFrames(features, speech);
  const raw = ivectorWindows(centred, speech, features.frames, parameters.windowFrames, parameters.hopFrames, projection);
  if (raw.length === 0) return { windows: [], centred };
  return { windows: projectIvectors(raw, principalDirections(raw, projection.rank), projection.rank, parameters.pcaDims), centred };
}

/** Windows of MFCC statistics centred on the file's mean window and projected by a linear speaker projection. */
function linearWindows(features: SpeakerFrames, speech: Uint8Array, p: BackendParameters, projection: LinearSpeakerProjection): EmbeddedWindow[] {
  const windows: EmbeddedWindow[] = [];
  const last = Math.max(0, features.frames - p.windowFrames);
  for (let start = 0; start <= last; start += p.hopFrames) {
    const end = Math.min(features.frames, start + p.windowFrames);
    const stats = windowStatistics(features, speech, start, end, p.windowFrames / 3);
    if (stats === null) continue;
    windows.push({ startFrame: start, endFrame: end, embedding: stats });
  }
  if (windows.length === 0) return [];
  // Centre on the file's mean window (what the recording has in common), then project.
  const centre = new Float32Array(windows[0]!.embedding.length);
  for (const w of windows) addInto(centre, w.embedding);
  for (let i = 0; i < centre.length; i++) centre[i]! /= windows.length;
  return windows.map((w) => ({ ...w, embedding: project(w.embedding, centre, projection) }));
}

/**
 * Mean and standard deviation of each MFCC over the speech frames of [start, end), as
 * [means..., deviations...]; null when fewer than `minFrames` of them are speech. The speaker
 * projection is trained on exactly these statistics (training/speakers/speaker_lda.py).
 */
export function windowStatistics(features: SpeakerFrames, speech: Uint8Array | null, start: number, end: number, minFrames: number): Float32Array | null {
  const d = MFCC_COEFFICIENTS;
  const sum = new Float64Array(d);
  const sum2 = new Float64Array(d);
  let n = 0;
  for (let t = start; t < end; t++) {
    if (speech !== null && speech[t] === 0) continue;
    n++;
    for (let c = 0; c < d; c++) {
      const x = features.mfcc[t * d + c]!;
      sum[c]! += x;
      sum2[c]! += x * x;
    }
  }
  if (n < minFrames || n === 0) return null;
  const out = new Float32Array(2 * d);
  for (let c = 0; c < d; c++) {
    const m = sum[c]! / n;
    out[c] = m;
    out[d + c] = Math.sqrt(Math.max(0, sum2[c]! / n - m * m));
  }
  return out;
}

function project(stats: Float32Array, centre: Float32Array, projection: LinearSpeakerProjection): Float32Array {
  const { inputDim, outputDim, matrix } = projection;
  const out = new Float32Array(outputDim);
  for (let i = 0; i < inputDim; i++) {
    const x = stats[i]! - centre[i]!;
    for (let o = 0; o < outputDim; o++) out[o]! += x * matrix[i * outputDim + o]!;
  }
  return normalize(out);
}

/** The file's principal directions of i-vectors (eigenvectors of their covariance, in columns, largest first). */
function principalDirections(raw: readonly RawIvector[], rank: number): Float64Array {
  const mean = meanIvector(raw, rank);
  const covariance = new Float64Array(rank * rank);
  const centred = new Float64Array(rank);
  for (const w of raw) {
    for (let r = 0; r < rank; r++) centred[r] = w.ivector[r]! - mean[r]!;
    for (let r = 0; r < rank; r++) {
      const a = centred[r]!;
      for (let q = r; q < rank; q++) covariance[r * rank + q]! += a * centred[q]!;
    }
  }
  for (let r = 0; r < rank; r++) for (let q = 0; q < r; q++) covariance[r * rank + q] = covariance[q * rank + r]!;
  return symmetricEigen(covariance, rank).vectors;
}

function meanIvector(raw: readonly RawIvector[], rank: number): Float64Array {
  const mean = new Float64Array(rank);
  for (const w of raw) for (let r = 0; r < rank; r++) mean[r]! += w.ivector[r]! / raw.length;
  return mean;
}

/** Windows' i-vectors centred on their mean, on the first `dims` principal directions, unit length. */
function projectIvectors(raw: readonly RawIvector[], directions: Float64Array, rank: number, dims: number): EmbeddedWindow[] {
  const mean = meanIvector(raw, rank);
  const k = Math.min(dims, rank);
  return raw.map((w) => {
    const out = new Float32Array(k);
    for (let j = 0; j < k; j++) {
      let s = 0;
      for (let r = 0; r < rank; r++) s += (w.ivector[r]! - mean[r]!) * directions[r * rank + j]!;
      out[j] = s;
    }
    return { startFrame: w.startFrame, endFrame: w.endFrame, embedding: normalize(out) };
  });
}
