import { LogMelExtractor } from '../signal/features/log-mel-features.js';

/**
 * 16 kHz mono input; 25 ms frames every 20 ms. (The shipped speaker model was trained on frames
 * every 10 ms, training/speakers/speaker-frames.ts; the frames themselves are the same, there are
 * half as many: the DER is unchanged within noise and the diarization costs half as much,
 * docs/diarization.md.)
 */
export const SPEAKER_FRAME_MS = 20;
export const MFCC_COEFFICIENTS = 20;
const MEL_BANDS = 40;

/** Cepstra per frame, [frames][MFCC_COEFFICIENTS] row-major (c1..c20, c0 left out), and each frame's log energy. */
export interface SpeakerFrames {
  readonly frames: number;
  readonly mfcc: Float32Array;
  readonly logEnergy: Float32Array;
}

/**
 * A log-mel extractor of the diarization thread: 16 kHz, frames every `hopLength` samples (10 ms by default), `bands` bands over
 * 60-7600 Hz, power spectrum, no normalisation. Its window (`winLength` samples, FFT of `nFft`) is
 * the caller's: 25 ms for speaker MFCCs, 16 ms for the cheaper segment-type frames.
 */
export function diarizationMelExtractor(nFft: number, winLength: number, bands: number, hopLength = 160): LogMelExtractor {
  return new LogMelExtractor({
    kind: 'log_mel',
    sampleRate: 16_000,
    nFft,
    winLength,
    hopLength,
    nMels: bands,
    fMin: 60,
    fMax: 7600,
    window: 'hann',
    melScale: 'htk',
    melNorm: 'none',
    center: true,
    power: 2,
    logFloor: 1e-10,
    normalize: 'none',
  });
}

const extractors = new Map<number, LogMelExtractor>();
let dct: Float64Array | null = null;

/**
 * MFCCs for speaker embeddings: a 40-band log-mel filterbank (60-7600 Hz), a DCT-II, and the
 * coefficients 1-20 (c0, the loudness, says nothing about who speaks). The extractor and the
 * DCT matrix are built once and shared; the call itself is synchronous, so they are never used
 * by two callers at once.
 */
export function speakerFrames(pcm: Float32Array, frameMs = SPEAKER_FRAME_MS): SpeakerFrames {
  let extractor = extractors.get(frameMs);
  if (extractor === undefined) {
    extractor = diarizationMelExtractor(512, 400, MEL_BANDS, 16 * frameMs);
    extractors.set(frameMs, extractor);
  }
  dct ??= dctMatrix(MEL_BANDS, MFCC_COEFFICIENTS + 1);
  const mel = extractor.compute(pcm);
  const frames = mel.length / MEL_BANDS;
  const mfcc = new Float32Array(frames * MFCC_COEFFICIENTS);
  const logEnergy = new Float32Array(frames);
  for (let t = 0; t < frames; t++) {
    const row = t * MEL_BANDS;
    let energy = 0;
    for (let m = 0; m < MEL_BANDS; m++) energy += Math.exp(mel[row + m]!);
    logEnergy[t] = Math.log(energy + 1e-10);
    for (let c = 1; c <= MFCC_COEFFICIENTS; c++) {
      let sum = 0;
      const base = c * MEL_BANDS;
      for (let m = 0; m < MEL_BANDS; m++) sum += dct[base + m]! * mel[row + m]!;
      mfcc[t * MFCC_COEFFICIENTS + c - 1] = sum;
    }
  }
  return { frames, mfcc, logEnergy };
}

/** Orthonormal DCT-II rows 0..count-1 over `size` inputs. */
function dctMatrix(size: number, count: number): Float64Array {
  const out = new Float64Array(count * size);
  for (let k = 0; k < count; k++) {
    const scale = Math.sqrt((k === 0 ? 1 : 2) / size);
    for (let n = 0; n < size; n++) out[k * size + n] = scale * Math.cos((Math.PI * k * (n + 0.5)) / size);
  }
  return out;
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
