/**
 * Window embeddings for diarization: windows of `windowFrames` every `hopFrames` (20 ms speaker
 * frames) with at least a third of their frames speech, each embedded by the speaker model: with an
 * i-vector extractor, the windows' i-vectors centred on their mean, on the file's principal
 * directions, joined (`discriminantWeight` > 0) by the model's speaker discriminant of them; with a linear projection, their MFCC means and deviations centred on the file's mean
 * window and projected; with a pretrained speaker-embedding network (speaker-embedding-model.ts),
 * the network's embeddings of the windows' speech (computed beforehand, asynchronously, by the
 * diarization thread on `speechWindowSpans` and `windowSpeechSamples`), unit length, not centred.
 * Embeddings are unit length, windows in time order. Pure; one call per file.
 */
import type { BackendParameters } from './diarization-backends.js';
import { addInto, normalize } from './speaker-clustering.js';
import { centredFrames, MFCC_COEFFICIENTS, type SpeakerFrames } from './speaker-features.js';
import { discriminate, ivectorWindows, type RawIvector } from './speaker-ivectors.js';
import { symmetricEigen } from './speaker-linear-algebra.js';
import type { LinearSpeakerProjection, SpeakerProjection } from './speaker-projection.js';

export interface WindowSpan {
  readonly startFrame: number;
  readonly endFrame: number;
}

export interface EmbeddedWindow extends WindowSpan {
  readonly embedding: Float32Array;
}

/**
 * The windows' embeddings by a speaker-embedding network, computed before the pure pipeline runs
 * (one per `speechWindowSpans` window of the same speech frames and parameters, in order).
 */
export interface ModelWindowEmbeddings {
  readonly kind: 'model';
  readonly windows: readonly EmbeddedWindow[];
}

/** Samples per 20 ms speaker frame at 16 kHz. */
const FRAME_SAMPLES = 320;

/** The windows (`windowFrames` every `hopFrames`) with at least a third of their frames speech, in time order. */
export function speechWindowSpans(speech: Uint8Array, frames: number, p: Pick<BackendParameters, 'windowFrames' | 'hopFrames'>): WindowSpan[] {
  const spans: WindowSpan[] = [];
  const last = Math.max(0, frames - p.windowFrames);
  for (let start = 0; start <= last; start += p.hopFrames) {
    const end = Math.min(frames, start + p.windowFrames);
    let n = 0;
    for (let t = start; t < end; t++) n += speech[t] === 0 ? 0 : 1;
    if (n > 0 && n >= p.windowFrames / 3) spans.push({ startFrame: start, endFrame: end });
  }
  return spans;
}

/** The 16 kHz samples of a window's speech frames, joined in order (what a speaker-embedding network embeds). */
export function windowSpeechSamples(pcm: Float32Array, speech: Uint8Array, span: WindowSpan): Float32Array {
  let n = 0;
  for (let t = span.startFrame; t < span.endFrame; t++) if (speech[t] !== 0) n++;
  const out = new Float32Array(n * FRAME_SAMPLES);
  let at = 0;
  for (let t = span.startFrame; t < span.endFrame; t++) {
    if (speech[t] === 0) continue;
    const frame = pcm.subarray(t * FRAME_SAMPLES, Math.min(pcm.length, (t + 1) * FRAME_SAMPLES));
    out.set(frame, at);
    at += frame.length;
  }
  return at === out.length ? out : out.subarray(0, at);
}

/**
 * The file's embedded windows, and the MFCCs centred on its speech when they were computed (the
 * i-vector path; the overlap detector reads them too), else null.
 */
export function embeddedWindows(
  features: SpeakerFrames,
  speech: Uint8Array,
  parameters: BackendParameters,
  projection: SpeakerProjection | ModelWindowEmbeddings,
): { windows: EmbeddedWindow[]; centred: Float32Array | null } {
  if (projection.kind === 'model') return { windows: modelWindows(speech, features.frames, parameters, projection), centred: null };
  // I-vector models: the windows' i-vectors on the file's principal directions (what varies most
  // within one recording is who speaks); a linear projection: projected MFCC statistics.
  if (projection.kind !== 'ivector') return { windows: linearWindows(features, speech, parameters, projection), centred: null };
  const centred = centredFrames(features, speech);
  const raw = ivectorWindows(centred, speech, features.frames, parameters.windowFrames, parameters.hopFrames, projection);
  if (raw.length === 0) return { windows: [], centred };
  // What varies most within the recording (who speaks, and each speaker's own channel when they have one).
  const inFile = projectIvectors(raw, principalDirections(raw, projection.rank), projection.rank, parameters.pcaDims);
  const { discriminant } = projection;
  const weight = parameters.discriminantWeight;
  if (discriminant === null || weight === 0) return { windows: inFile, centred };
  // With a trained speaker discriminant: its output (comparable across files, blind to channels) joins
  // the file's directions, cosine = weight · discriminant cosine + (1 - weight) · in-file cosine.
  const windows = raw.map((w, i) => {
    const across = normalize(Float32Array.from(discriminate(w.ivector, discriminant)));
    const within = inFile[i]!.embedding;
    const embedding = new Float32Array(across.length + within.length);
    for (let k = 0; k < across.length; k++) embedding[k] = Math.sqrt(weight) * across[k]!;
    for (let k = 0; k < within.length; k++) embedding[across.length + k] = Math.sqrt(1 - weight) * within[k]!;
    return { startFrame: w.startFrame, endFrame: w.endFrame, embedding };
  });
  return { windows, centred };
}

/** The network's window embeddings, unit length, checked against the windows these speech frames and parameters give. */
function modelWindows(speech: Uint8Array, frames: number, p: BackendParameters, given: ModelWindowEmbeddings): EmbeddedWindow[] {
  const spans = speechWindowSpans(speech, frames, p);
  if (spans.length !== given.windows.length || spans.some((s, i) => s.startFrame !== given.windows[i]!.startFrame || s.endFrame !== given.windows[i]!.endFrame))
    throw new Error('the window embeddings were computed on other windows than these speech frames and parameters give');
  return given.windows.map((w) => ({ startFrame: w.startFrame, endFrame: w.endFrame, embedding: normalize(Float32Array.from(w.embedding)) }));
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
