import {
  addInto,
  clusterCentroids,
  clusterEmbeddings,
  clusterInBlocks,
  dot,
  eigengapCount,
  normalize,
  numberByFirstAppearance,
  spectralClusters,
  viterbi,
} from './speaker-clustering.js';
import { type OverlapDetector, overlapFrameFeatures, overlapProbabilities, overlapRegions } from './overlap-detector.js';
import { trackPitch } from './pitch-track.js';
import { MFCC_COEFFICIENTS, SPEAKER_FRAME_MS, speakerFrames, type SpeakerFrames } from './speaker-features.js';
import { accumulateFrame, extractIvector, type IvectorExtractor } from './speaker-ivectors.js';
import { symmetricEigen } from './speaker-linear-algebra.js';
import type { LinearSpeakerProjection, SpeakerProjection } from './speaker-projection.js';

export const DIARIZATION_BACKENDS = ['backend_a', 'backend_b'] as const;
export type DiarizationBackend = (typeof DIARIZATION_BACKENDS)[number];

export interface DiarizationOptions {
  readonly backend: DiarizationBackend;
  /** 1-20; null lets the threshold decide. */
  readonly minSpeakers: number | null;
  readonly maxSpeakers: number | null;
  /**
   * Speech spans in ms from a VAD (the Silero VAD's): their frames are speech whatever their level
   * (a quiet speaker the energy gate misses), added to the energy gate's speech. Absent: the energy gate alone.
   */
  readonly speech?: readonly SpeechSpan[];
  /** Regions in ms speech is confined to (the audio outside music); frames outside them are never given a speaker. Absent: all the audio. */
  readonly within?: readonly SpeechSpan[];
  /** Overlap-aware backends (backend_a): the overlapped-speech detector; absent: one speaker per frame. */
  readonly overlapDetector?: OverlapDetector;
  /** The file's pitch-track periodicity (pitch-track.ts, every 10 ms) when the caller has it (the segment typing's); computed when the detector needs it otherwise. */
  readonly periodicity?: Float32Array;
}

export interface SpeechSpan {
  readonly startMs: number;
  readonly endMs: number;
}

/** A stretch of one speaker; `speaker` is 0.. in order of first appearance. */
export interface SpeakerTurn {
  readonly startMs: number;
  readonly endMs: number;
  readonly speaker: number;
}

export interface BackendParameters {
  readonly windowFrames: number;
  readonly hopFrames: number;
  /** Cosine similarity below which two clusters stay apart. */
  readonly threshold: number;
  /**
   * `spectral`: spectral clustering of a sample of at most `eigengapPoints` windows with the
   * eigengap's count, every window to its nearest cluster centroid (linear in the length).
   * `agglomerative` (before 2026-11-28; kept for comparison and for the threshold mode): the eigengap's
   * count, then average-linkage clustering, in blocks of `blockSize` beyond it.
   * Spectral needs `eigengapNeighbours`; without them the threshold decides, agglomeratively.
   */
  readonly clustering: 'spectral' | 'agglomerative';
  /** Agglomerative clustering: single-stage up to this many windows; two-stage beyond. */
  readonly blockSize: number;
  /** Runs of a speaker shorter than this are given to their neighbours. */
  readonly minTurnFrames: number;
  /** Rounds of re-segmentation of the windows against the cluster centroids after clustering. */
  readonly refinements: number;
  /** Cosine similarity a change of speaker between consecutive windows costs in re-segmentation (0: nearest centroid). */
  readonly switchCost: number;
  /** Non-empty: the speaker count is the eigengap's (eigengapCount with these neighbour shares), not the threshold's. */
  readonly eigengapNeighbours: readonly number[];
  /** At most this many windows (spread evenly) enter the eigengap; its cost is cubic in them. */
  readonly eigengapPoints: number;
  /** Clusters holding fewer than this share of the windows join their nearest cluster (never below min_speakers). */
  readonly minClusterShare: number;
  /**
   * Spectral clustering with the count not given: two clusters whose centroids are more similar
   * than this (cosine) are one speaker split in two and merge (never below min_speakers). On the
   * file's principal directions different speakers' centroids point apart (about -1 for two).
   */
  readonly mergeSimilarity: number;
  /** Quiet stretches up to this long inside speech (pauses between words) take the speaker around them. */
  readonly pauseFrames: number;
  /**
   * A change of speaker with no pause at it moves into the nearest pause of at least
   * `pauseSnapMinGapFrames` at most this many frames away (0: changes stay where the windows put them).
   */
  readonly pauseSnapFrames: number;
  readonly pauseSnapMinGapFrames: number;
  /** I-vector models: the file's principal directions of i-vectors kept (the speaker differences within the file). */
  readonly pcaDims: number;
  /**
   * Overlap-aware re-segmentation (with an overlap detector in the options): in the regions the
   * detector finds, the nearest other speaker in time speaks as well (a second turn).
   */
  readonly overlapAware: boolean;
  /**
   * Overlap is marked only on files whose frame energies span at least this many dB (95% over 1%
   * quantile): 34-36 dB on clean conversations, 22-24 dB with white noise 30 dB under the speech,
   * 17-19 dB at 25 dB, 12-14 dB at 20 dB. The detector learnt clean conversations: on the
   * development groups it was neutral at 30 dB SNR and cost DER at 25 dB (docs/diarization.md).
   */
  readonly overlapMinRangeDb: number;
}

/**
 * Both: 3 s windows every 0.5 s, i-vectors on the file's 12 principal directions, the speaker
 * count by the eigengap (pruning auto-tuned per file) and spectral clustering of at most 200 of
 * the windows, every window to its nearest cluster centroid (two stages, linear in the length),
 * pauses up to 0.3 s bridged.
 * - backend_a (conversations, interviews): two rounds of Viterbi re-segmentation, 0.3 s turns.
 * - backend_b (long-form, batch at scale): one round of re-segmentation, 1 s turns.
 * Tuned on synthetic conversations of the development speaker groups (bench/diarization.ts
 * --tune; figures in docs/diarization.md).
 */
/** Neighbour shares the eigengap count tries (the best ratio of share to gap wins). */
const EIGENGAP_SHARES = [0.05, 0.1, 0.15, 0.2];

/** What both backends share (the comment above); they differ in re-segmentation and turn length (and in blocks, when agglomerative). */
const SHARED_PARAMETERS = {
  windowFrames: 150,
  hopFrames: 25,
  threshold: 0,
  pcaDims: 12,
  pauseFrames: 15,
  pauseSnapFrames: 100,
  pauseSnapMinGapFrames: 5,
  switchCost: 0.5,
  minClusterShare: 0.1,
  mergeSimilarity: 0.5,
  eigengapNeighbours: EIGENGAP_SHARES,
  eigengapPoints: 200,
  clustering: 'spectral',
  overlapMinRangeDb: 20,
} as const;

export const BACKENDS: Readonly<Record<DiarizationBackend, BackendParameters>> = {
  backend_a: { ...SHARED_PARAMETERS, blockSize: 1200, minTurnFrames: 15, refinements: 2, overlapAware: true },
  backend_b: { ...SHARED_PARAMETERS, blockSize: 300, minTurnFrames: 50, refinements: 1, overlapAware: false },
};

export const MAX_SPEAKERS = 20;
/** The noise floor of energyRangeDb: the 1% quantile, not 5%, since a file of nearly continuous speech has few quiet frames. */
const RANGE_FLOOR_QUANTILE = 0.01;
/** The quantile of frame energies taken as the noise floor (12 dB over it is speech); low, since conversations have few pauses. */
const SPEECH_FLOOR_QUANTILE = 0.05;

/**
 * Who spoke when, from 16 kHz mono PCM: an embedding per window (with the i-vector model: the
 * i-vector of the window's speech frames on the file's principal directions; with a linear
 * projection: projected MFCC means and deviations), the speaker count by the eigengap (or a
 * threshold) within the speaker bounds, spectral clustering (or cosine agglomerative), Viterbi re-segmentation
 * of the windows against the clusters' centroids, a label per speech frame from the windows
 * covering it, short pauses bridged and short runs merged into their neighbours.
 * Synchronous and CPU-bound: call it from a worker (the inference pool), not the event loop.
 */
export function diarize(
  pcm: Float32Array,
  options: DiarizationOptions,
  projection: SpeakerProjection,
  parameters: BackendParameters = BACKENDS[options.backend],
): SpeakerTurn[] {
  const features = speakerFrames(pcm);
  const speech = energySpeechMask(features, options.speech, options.within);
  // I-vector models: the long windows' i-vectors on the file's principal directions (what varies
  // most within one recording is who speaks); a linear projection: projected MFCC statistics.
  let windows: EmbeddedWindow[];
  // The MFCCs centred on the file's speech, when computed (i-vectors; the overlap detector reads them too).
  let centred: Float32Array | null = null;
  if (projection.kind === 'ivector') {
    centred = centredFrames(features, speech);
    const raw = ivectorWindows(centred, speech, features.frames, parameters.windowFrames, parameters.hopFrames, projection);
    if (raw.length === 0) return [];
    windows = projectIvectors(raw, principalDirections(raw, projection.rank), projection.rank, parameters.pcaDims);
  } else windows = embedWindows(features, speech, parameters, projection);
  if (windows.length === 0) return [];
  const maxClusters = Math.min(options.maxSpeakers ?? MAX_SPEAKERS, MAX_SPEAKERS, windows.length);
  const embeddings = windows.map((w) => w.embedding);
  let bounds = { threshold: parameters.threshold, minClusters: Math.min(options.minSpeakers ?? 1, maxClusters), maxClusters };
  let labels: number[];
  if (parameters.eigengapNeighbours.length > 0 && parameters.clustering === 'spectral') {
    labels = spectralClusters(embeddings, bounds, parameters.eigengapNeighbours, parameters.eigengapPoints);
    // The eigengap can split one speaker (short files above all); a given count stays as it is.
    if (bounds.minClusters < bounds.maxClusters) labels = mergeSimilarClusters(embeddings, labels, parameters.mergeSimilarity, bounds.minClusters);
  } else {
    if (parameters.eigengapNeighbours.length > 0 && bounds.minClusters < bounds.maxClusters) {
      const count = eigengapCount(embeddings, bounds, parameters.eigengapNeighbours, parameters.eigengapPoints);
      bounds = { ...bounds, minClusters: count, maxClusters: count };
    }
    labels = windows.length <= parameters.blockSize ? clusterEmbeddings(embeddings, bounds) : clusterInBlocks(embeddings, bounds, parameters.blockSize);
  }
  labels = mergeSmallClusters(embeddings, labels, parameters.minClusterShare, Math.min(options.minSpeakers ?? 1, maxClusters));
  for (let round = 0; round < parameters.refinements; round++) labels = relabel(embeddings, labels, parameters.switchCost);
  const frameLabels = labelFrames(features.frames, speech, windows, labels);
  if (parameters.pauseSnapFrames > 0) snapChangesToPauses(frameLabels, parameters.pauseSnapFrames, parameters.pauseSnapMinGapFrames);
  fillPauses(frameLabels, parameters.pauseFrames);
  const unsmoothed = frameLabels.slice();
  smooth(frameLabels, parameters.minTurnFrames);
  // Merging short runs must not take the speaker count below min_speakers: keep the raw labels then.
  const primary =
    options.minSpeakers !== null && speakerCount(frameLabels) < Math.min(options.minSpeakers, speakerCount(unsmoothed)) ? unsmoothed : frameLabels;
  const detector = options.overlapDetector;
  if (!parameters.overlapAware || detector === undefined || speakerCount(primary) < 2) return toTurns(primary);
  // The detector learnt clean conversations: on a noisy file its marks are mostly wrong.
  if (energyRangeDb(features) < parameters.overlapMinRangeDb) return toTurns(primary);
  const periodicity = options.periodicity ?? trackPitch(pcm).periodicity;
  const inputs = overlapFrameFeatures(features, centred ?? centredFrames(features, speech), speech, periodicity);
  const regions = overlapRegions(overlapProbabilities(inputs, detector), speech, detector.threshold, detector.minFrames);
  return toTurns(primary, secondSpeakers(primary, regions));
}

/**
 * The second speaker of each overlap region (-1 elsewhere): where the region holds a change of
 * speaker, each side's frames get the other side's speaker; otherwise the nearest other speaker in
 * time, before or after the region (people overlap at turn changes: they start before the other
 * has finished, or answer into a turn).
 */
export function secondSpeakers(labels: Int32Array, regions: readonly { start: number; end: number }[]): Int32Array {
  const second = new Int32Array(labels.length).fill(-1);
  for (const { start, end } of regions) {
    const inside = [...new Set(labels.subarray(start, end))].filter((label) => label >= 0);
    if (inside.length === 2) {
      for (let t = start; t < end; t++) if (labels[t]! >= 0) second[t] = labels[t] === inside[0] ? inside[1]! : inside[0]!;
      continue;
    }
    if (inside.length !== 1) continue;
    const own = inside[0]!;
    let before = start - 1;
    while (before >= 0 && (labels[before]! < 0 || labels[before] === own)) before--;
    let after = end;
    while (after < labels.length && (labels[after]! < 0 || labels[after] === own)) after++;
    const beforeGap = before < 0 ? Number.POSITIVE_INFINITY : start - 1 - before;
    const afterGap = after >= labels.length ? Number.POSITIVE_INFINITY : after - end;
    if (beforeGap === Number.POSITIVE_INFINITY && afterGap === Number.POSITIVE_INFINITY) continue;
    second.fill(beforeGap <= afterGap ? labels[before]! : labels[after]!, start, end);
  }
  return second;
}

interface EmbeddedWindow {
  readonly startFrame: number;
  readonly endFrame: number;
  readonly embedding: Float32Array;
}

/**
 * Speech frames: the frames 12 dB over the file's noise floor (its quietest 5 % of frames), plus
 * the frames inside the VAD's `speech` spans whatever their level, then only those inside
 * `within` (when given: the audio outside music).
 */
export function energySpeechMask(features: SpeakerFrames, speech?: readonly SpeechSpan[], within?: readonly SpeechSpan[]): Uint8Array {
  const mask = new Uint8Array(features.frames);
  const sorted = Float32Array.from(features.logEnergy).sort();
  const floor = sorted[Math.floor(sorted.length * SPEECH_FLOOR_QUANTILE)] ?? 0;
  const gate = floor + Math.log(10 ** 1.2);
  for (let t = 0; t < features.frames; t++) mask[t] = features.logEnergy[t]! > gate ? 1 : 0;
  if (speech !== undefined) fillSpans(mask, speech, 1);
  if (within !== undefined) {
    const inside = fillSpans(new Uint8Array(features.frames), within, 1);
    for (let t = 0; t < features.frames; t++) mask[t]! &= inside[t]!;
  }
  return mask;
}

/** The spread of a file's frame energies in dB: the 95% quantile over the 1% one (speech over the noise floor, roughly). */
function energyRangeDb(features: SpeakerFrames): number {
  const sorted = Float32Array.from(features.logEnergy).sort();
  if (sorted.length === 0) return 0;
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return ((at(0.95) - at(RANGE_FLOOR_QUANTILE)) * 10) / Math.LN10;
}

/** Sets the frames of `spans` (ms) in `mask` to `value`; returns the mask. */
function fillSpans(mask: Uint8Array, spans: readonly SpeechSpan[], value: number): Uint8Array {
  for (const span of spans) {
    const from = Math.max(0, Math.floor(span.startMs / SPEAKER_FRAME_MS));
    const to = Math.min(mask.length, Math.ceil(span.endMs / SPEAKER_FRAME_MS));
    if (to > from) mask.fill(value, from, to);
  }
  return mask;
}

function embedWindows(features: SpeakerFrames, speech: Uint8Array, p: BackendParameters, projection: LinearSpeakerProjection): EmbeddedWindow[] {
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
 * projection is trained on exactly these statistics (models/training/speaker_lda.py).
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

/** The MFCCs minus their mean over the file's speech frames (what the UBM was trained on). */
export function centredFrames(features: SpeakerFrames, speech: Uint8Array): Float32Array {
  const D = MFCC_COEFFICIENTS;
  const centre = new Float64Array(D);
  let speechFrames = 0;
  for (let t = 0; t < features.frames; t++) {
    if (speech[t] === 0) continue;
    speechFrames++;
    for (let d = 0; d < D; d++) centre[d]! += features.mfcc[t * D + d]!;
  }
  const out = Float32Array.from(features.mfcc);
  if (speechFrames === 0) return out;
  for (let t = 0; t < features.frames; t++) for (let d = 0; d < D; d++) out[t * D + d]! -= centre[d]! / speechFrames;
  return out;
}

interface RawIvector {
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
function ivectorWindows(
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

/**
 * The smallest cluster, while it holds fewer than `minShare` of the windows and more than
 * `minClusters` clusters remain, is merged into the cluster whose centroid is most similar to its own.
 */
export function mergeSmallClusters(embeddings: readonly Float32Array[], labels: readonly number[], minShare: number, minClusters: number): number[] {
  let out = numberByFirstAppearance(labels);
  for (;;) {
    const centroids = clusterCentroids(embeddings, out);
    if (centroids.length <= Math.max(1, minClusters)) break;
    const sizes = new Array<number>(centroids.length).fill(0);
    for (const label of out) sizes[label]!++;
    const smallest = sizes.indexOf(Math.min(...sizes));
    if (sizes[smallest]! >= minShare * out.length) break;
    let target = -1;
    let top = Number.NEGATIVE_INFINITY;
    centroids.forEach((c, label) => {
      if (label === smallest) return;
      const s = dot(c, centroids[smallest]!);
      if (s > top) {
        top = s;
        target = label;
      }
    });
    out = numberByFirstAppearance(out.map((label) => (label === smallest ? target : label)));
  }
  return out;
}

/** The most similar pair of clusters (cosine of their centroids), while over `minSimilarity` and more than `minClusters` remain, merges. */
export function mergeSimilarClusters(embeddings: readonly Float32Array[], labels: readonly number[], minSimilarity: number, minClusters: number): number[] {
  let out = numberByFirstAppearance(labels);
  for (;;) {
    const centroids = clusterCentroids(embeddings, out);
    if (centroids.length <= Math.max(1, minClusters)) break;
    let pair = [-1, -1];
    let top = Number.NEGATIVE_INFINITY;
    for (let a = 0; a < centroids.length; a++) {
      for (let b = a + 1; b < centroids.length; b++) {
        const s = dot(centroids[a]!, centroids[b]!);
        if (s > top) {
          top = s;
          pair = [a, b];
        }
      }
    }
    if (top <= minSimilarity) break;
    out = numberByFirstAppearance(out.map((label) => (label === pair[1] ? pair[0]! : label)));
  }
  return out;
}

/**
 * Each window moves to its nearest centroid, or (switchCost > 0) the windows take the best
 * sequence of centroids by cosine similarity where each change of speaker costs `switchCost`
 * (Viterbi, linear in the windows); empty clusters vanish; labels renumbered by first appearance.
 */
function relabel(embeddings: readonly Float32Array[], labels: readonly number[], switchCost: number): number[] {
  const centroids = clusterCentroids(embeddings, labels);
  const k = centroids.length;
  if (k <= 1) return [...labels];
  const score = new Float64Array(embeddings.length * k);
  embeddings.forEach((e, i) => {
    centroids.forEach((c, j) => {
      score[i * k + j] = dot(e, c);
    });
  });
  return numberByFirstAppearance(Array.from(viterbi(score, embeddings.length, k, switchCost)));
}

/** Speech frames take the vote of the windows covering them, nearer window centres weighing more; -1 is no speaker. */
function labelFrames(frames: number, speech: Uint8Array, windows: readonly EmbeddedWindow[], labels: readonly number[]): Int32Array {
  let k = 0;
  for (const label of labels) if (label + 1 > k) k = label + 1;
  const votes = new Float32Array(frames * k);
  windows.forEach((w, i) => {
    const centre = (w.startFrame + w.endFrame) / 2;
    const half = (w.endFrame - w.startFrame) / 2;
    for (let t = w.startFrame; t < w.endFrame; t++) votes[t * k + labels[i]!]! += 1 - Math.abs(t - centre) / (half + 1);
  });
  const out = new Int32Array(frames).fill(-1);
  let previous = -1;
  for (let t = 0; t < frames; t++) {
    if (speech[t] === 0) continue;
    let arg = -1;
    let top = 0;
    for (let c = 0; c < k; c++) {
      const v = votes[t * k + c]!;
      if (v > top) {
        top = v;
        arg = c;
      }
    }
    // Speech no window covers (edges, short islands) continues the previous speaker.
    out[t] = arg >= 0 ? arg : previous;
    if (out[t]! >= 0) previous = out[t]!;
  }
  return out;
}

/** Stretches of one speaker at most this far apart (0.5 s) count as one run when smoothing. */
const SAME_RUN_GAP_FRAMES = Math.round(500 / SPEAKER_FRAME_MS);

/** Speaker runs shorter than `minFrames` between speech take the longer neighbour's speaker. */
function smooth(labels: Int32Array, minFrames: number): void {
  for (let pass = 0; pass < 2; pass++) {
    const runs: { start: number; end: number; label: number }[] = [];
    for (let t = 0; t < labels.length; t++) {
      if (labels[t]! < 0) continue;
      const lastRun = runs[runs.length - 1];
      if (lastRun !== undefined && lastRun.label === labels[t] && lastRun.end >= t - SAME_RUN_GAP_FRAMES) lastRun.end = t + 1;
      else runs.push({ start: t, end: t + 1, label: labels[t]! });
    }
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i]!;
      if (run.end - run.start >= minFrames) continue;
      const before = runs[i - 1];
      const after = runs[i + 1];
      const target = before && after ? (before.end - before.start >= after.end - after.start ? before : after) : (before ?? after);
      if (target === undefined) continue;
      for (let t = run.start; t < run.end; t++) if (labels[t]! >= 0) labels[t] = target.label;
      run.label = target.label;
    }
  }
}

/**
 * Runs of -1 (no speech) of at most `maxFrames` between two speech frames are filled: with the
 * speaker on both sides, or split at their middle between two different speakers. In place.
 */
export function fillPauses(labels: Int32Array, maxFrames: number): void {
  let t = 0;
  while (t < labels.length) {
    if (labels[t]! >= 0) {
      t++;
      continue;
    }
    let end = t;
    while (end < labels.length && labels[end]! < 0) end++;
    if (t > 0 && end < labels.length && end - t <= maxFrames) {
      const middle = t + Math.ceil((end - t) / 2);
      labels.fill(labels[t - 1]!, t, middle);
      labels.fill(labels[end]!, middle, end);
    }
    t = end;
  }
}

function speakerCount(labels: Int32Array): number {
  return new Set(labels.filter((label) => label >= 0)).size;
}

/**
 * Runs of `labels` as turns, speakers numbered by first appearance, in time order; then the runs of
 * `second` (overlapped speech: second speakers of the same numbering), in time order.
 */
function toTurns(labels: Int32Array, second?: Int32Array): SpeakerTurn[] {
  const turns: SpeakerTurn[] = [];
  const numbering = new Map<number, number>();
  const runs = (frames: Int32Array): void => {
    let t = 0;
    while (t < frames.length) {
      const label = frames[t]!;
      if (label < 0) {
        t++;
        continue;
      }
      let end = t + 1;
      while (end < frames.length && frames[end] === label) end++;
      let speaker = numbering.get(label);
      if (speaker === undefined) {
        speaker = numbering.size;
        numbering.set(label, speaker);
      }
      turns.push({ startMs: t * SPEAKER_FRAME_MS, endMs: end * SPEAKER_FRAME_MS, speaker });
      t = end;
    }
  };
  runs(labels);
  if (second !== undefined) runs(second);
  return turns;
}

/**
 * A change of speaker between two speech frames with no pause between them moves into the nearest
 * pause (a run of at least `minGap` frames without speech, -1) at most `reach` frames away that
 * lies inside either speaker's run, with that speaker's speech on its far side too (so no run
 * vanishes): people mostly take turns at pauses, and the 3 s windows place a change only roughly. In place.
 */
export function snapChangesToPauses(labels: Int32Array, reach: number, minGap: number): void {
  for (let c = 1; c < labels.length; c++) {
    const left = labels[c - 1]!;
    const right = labels[c]!;
    if (left < 0 || right < 0 || left === right) continue;
    const leftGap = pauseInside(labels, c - 1, -1, left, Math.max(0, c - reach), minGap);
    const rightGap = pauseInside(labels, c, 1, right, Math.min(labels.length - 1, c + reach - 1), minGap);
    const leftDistance = leftGap < 0 ? Number.POSITIVE_INFINITY : c - leftGap;
    const rightDistance = rightGap < 0 ? Number.POSITIVE_INFINITY : rightGap - c;
    if (leftDistance === Number.POSITIVE_INFINITY && rightDistance === Number.POSITIVE_INFINITY) continue;
    if (leftDistance <= rightDistance) {
      for (let t = leftGap; t < c; t++) if (labels[t]! >= 0) labels[t] = right;
    } else {
      for (let t = c; t < rightGap; t++) if (labels[t]! >= 0) labels[t] = left;
      c = rightGap;
    }
  }
}

/**
 * From `from` stepping by `step` (±1) through `speaker`'s frames and pauses, up to `limit`: the
 * first pause of at least `minGap` frames with `speaker`'s speech beyond it, as the change point
 * it gives (stepping back: the frame after the pause; forward: its first frame); -1 when there is none.
 */
function pauseInside(labels: Int32Array, from: number, step: 1 | -1, speaker: number, limit: number, minGap: number): number {
  let gap = 0;
  for (let t = from; step < 0 ? t >= limit : t <= limit; t += step) {
    const label = labels[t]!;
    if (label === -1) {
      gap++;
      continue;
    }
    if (label !== speaker) return -1;
    // The pause's frames lie between t and `from`: the change goes to its edge nearer `from`.
    if (gap >= minGap) return step < 0 ? t + gap + 1 : t - gap;
    gap = 0;
  }
  return -1;
}
