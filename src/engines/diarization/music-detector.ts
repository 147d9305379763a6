/**
 * Music (without speech) from the pitch track: features over 2 s windows every 0.5 s that tell
 * music from speech, a small network on them (models/segment-types/, trained by
 * training/segment-types/segment-types.ts on the project's own synthesised music and on speech), a
 * probability per 10 ms frame from the windows covering it, and regions of at least
 * MIN_MUSIC_MS. Speech over background music is meant to read as speech (the model is trained
 * with such mixes labelled speech).
 */
import type { LogMelExtractor } from '../signal/features/log-mel-features.js';
import { type PitchTrack, trackPitch } from './pitch-track.js';
import { diarizationMelExtractor } from './speaker-features.js';

/** Window of the music features, in 10 ms frames (2 s), and its hop (0.5 s). */
export const MUSIC_WINDOW_FRAMES = 200;
export const MUSIC_HOP_FRAMES = 50;
/** Music shorter than this is not a region (ms); gaps shorter than MUSIC_GAP_MS inside music are bridged. */
export const MIN_MUSIC_MS = 2000;
export const MUSIC_GAP_MS = 500;

export const MUSIC_FEATURES = [
  'lowEnergyRatio',
  'voicedRatio',
  'pitchSteadiness',
  'modulation4Hz',
  'zeroCrossingDeviation',
  'periodicity',
  'logEnergyDeviation',
  'voicedRunSeconds',
  'pitchJumpRatio',
  'spectralFlux',
  'bandModulation4Hz',
  'bandModulationMax',
] as const;

/** Log-mel bands of the typing frames (16 ms every 10 ms, 60-7600 Hz) and their grouping for the band modulation. */
export const TYPING_MEL_BANDS = 24;
const MODULATION_GROUPS = 4;
/** The log-mel spectrogram is computed this many frames (a minute) at a time. */
const MEL_CHUNK_FRAMES = 6000;

/** What the segment typing reads of a file, every 10 ms: its pitch track and what the music features need of a log-mel spectrogram. */
export interface TypingFrames {
  readonly frames: number;
  readonly track: PitchTrack;
  /** Per frame: the sum over the TYPING_MEL_BANDS log-mel bands of their rise from the frame before (0 on the first). */
  readonly flux: Float32Array;
  /** Per frame: its mean square (the exponential of the track's log energy). */
  readonly energy: Float32Array;
  /** [frames][MODULATION_GROUPS]: the square root of each mel-band group's summed energy. */
  readonly groupAmplitude: Float32Array;
}

let extractor: LogMelExtractor | null = null;

/** The log-mel extractor of the typing frames (16 ms windows every 10 ms, TYPING_MEL_BANDS bands, 60-7600 Hz), built once. */
export function typingMelExtractor(): LogMelExtractor {
  extractor ??= diarizationMelExtractor(256, 256, TYPING_MEL_BANDS);
  return extractor;
}

/** The pitch track and log-mel frames of 16 kHz mono PCM. */
export function typingFrames(pcm: Float32Array): TypingFrames {
  const extractor = typingMelExtractor();
  const track = trackPitch(pcm);
  const hop = 160;
  const frames = pcm.length === 0 ? 0 : Math.min(track.frames, extractor.frameCount(pcm.length));
  const energy = new Float32Array(frames);
  const flux = new Float32Array(frames);
  const groupAmplitude = new Float32Array(frames * MODULATION_GROUPS);
  const perGroup = TYPING_MEL_BANDS / MODULATION_GROUPS;
  const previous = new Float32Array(TYPING_MEL_BANDS);
  for (let t = 0; t < frames; t++) energy[t] = Math.exp(track.logEnergy[t]!);
  // The spectrogram a minute at a time (a few frames of context each side, so every frame is the
  // one the whole-file computation gives): memory stays small on hours of audio.
  for (let chunk = 0; chunk < frames; chunk += MEL_CHUNK_FRAMES) {
    const lo = Math.max(0, chunk - 3);
    const hi = chunk + MEL_CHUNK_FRAMES + 3;
    const mel = extractor.compute(hi * hop >= pcm.length ? pcm.subarray(lo * hop) : pcm.subarray(lo * hop, hi * hop));
    for (let t = chunk; t < Math.min(frames, chunk + MEL_CHUNK_FRAMES); t++) {
      const row = (t - lo) * TYPING_MEL_BANDS;
      let rise = 0;
      for (let b = 0; b < TYPING_MEL_BANDS; b++) {
        const v = mel[row + b]!;
        if (t > 0) rise += Math.max(0, v - previous[b]!);
        previous[b] = v;
      }
      flux[t] = rise;
      for (let g = 0; g < MODULATION_GROUPS; g++) {
        let e = 0;
        for (let b = g * perGroup; b < (g + 1) * perGroup; b++) e += Math.exp(mel[row + b]!);
        groupAmplitude[t * MODULATION_GROUPS + g] = Math.sqrt(e);
      }
    }
  }
  return { frames, track, flux, energy, groupAmplitude };
}

/** cos and sin of 2 pi k t / MUSIC_WINDOW_FRAMES for the modulation bins (k = 1..40: 0.5-20 Hz), built once. */
let modulationTable: { cos: Float64Array; sin: Float64Array; bins: number } | null = null;
function modulationBasis(): { cos: Float64Array; sin: Float64Array; bins: number } {
  if (modulationTable !== null) return modulationTable;
  const bins = 40;
  const n = MUSIC_WINDOW_FRAMES;
  const cos = new Float64Array(bins * n);
  const sin = new Float64Array(bins * n);
  for (let k = 1; k <= bins; k++) {
    for (let t = 0; t < n; t++) {
      cos[(k - 1) * n + t] = Math.cos((2 * Math.PI * k * t) / n);
      sin[(k - 1) * n + t] = Math.sin((2 * Math.PI * k * t) / n);
    }
  }
  modulationTable = { cos, sin, bins };
  return modulationTable;
}

/** Share of an envelope's power at 3-6 Hz within 0.5-20 Hz (`envelope` is MUSIC_WINDOW_FRAMES long, 100 frames a second). */
function modulationShare(envelope: Float64Array): number {
  const { cos, sin, bins } = modulationBasis();
  const n = MUSIC_WINDOW_FRAMES;
  let mean = 0;
  for (let t = 0; t < n; t++) mean += envelope[t]!;
  mean /= n;
  let band = 0;
  let total = 0;
  for (let k = 1; k <= bins; k++) {
    let re = 0;
    let im = 0;
    const row = (k - 1) * n;
    for (let t = 0; t < n; t++) {
      const a = envelope[t]! - mean;
      re += a * cos[row + t]!;
      im += a * sin[row + t]!;
    }
    const power = re * re + im * im;
    total += power;
    const hz = k / 2;
    if (hz >= 3 && hz <= 6) band += power;
  }
  return total > 0 ? band / total : 0;
}

export interface MusicRegion {
  readonly startMs: number;
  readonly endMs: number;
}

/** The model's input for one window (MUSIC_FEATURES order), written into `out`; null when the window is mostly silent. */
export function musicWindowFeatures(frames: TypingFrames, start: number, activeGate: number, out: Float64Array, envelope: Float64Array): Float64Array | null {
  const { track, flux: rises, energy, groupAmplitude } = frames;
  const end = start + MUSIC_WINDOW_FRAMES;
  if (end > frames.frames) return null;
  const n = MUSIC_WINDOW_FRAMES;
  let active = 0;
  let meanEnergy = 0;
  let meanLog = 0;
  let meanZcr = 0;
  for (let t = start; t < end; t++) {
    const e = track.logEnergy[t]!;
    if (e > activeGate) active++;
    meanEnergy += energy[t]!;
    meanLog += e;
    meanZcr += track.zeroCrossings[t]!;
  }
  if (active < n / 2) return null;
  meanEnergy /= n;
  meanLog /= n;
  meanZcr /= n;
  let low = 0;
  let logVariance = 0;
  let zcrVariance = 0;
  let voiced = 0;
  let steady = 0;
  let jumps = 0;
  let pairs = 0;
  let periodic = 0;
  let runs = 0;
  for (let t = start; t < end; t++) {
    const e = track.logEnergy[t]!;
    if (energy[t]! < 0.5 * meanEnergy) low++;
    logVariance += (e - meanLog) ** 2;
    zcrVariance += (track.zeroCrossings[t]! - meanZcr) ** 2;
    periodic += track.periodicity[t]!;
    const f = track.f0[t]!;
    if (f <= 0) continue;
    voiced++;
    const previous = t > start ? track.f0[t - 1]! : 0;
    if (previous <= 0) {
      runs++;
      continue;
    }
    pairs++;
    const semitones = Math.abs(12 * Math.log2(f / previous));
    if (semitones < 0.15) steady++;
    if (semitones > 1.5) jumps++;
  }
  // Modulation of the amplitude envelope: share of its power at 3-6 Hz (syllable rate) within 0.5-20 Hz.
  for (let t = start; t < end; t++) envelope[t - start] = Math.sqrt(energy[t]!);
  const modulation = modulationShare(envelope);
  // The same in four groups of mel bands (speech over music still beats at the syllable rate in its bands).
  let groupSum = 0;
  let groupMax = 0;
  for (let g = 0; g < MODULATION_GROUPS; g++) {
    for (let t = start; t < end; t++) envelope[t - start] = groupAmplitude[t * MODULATION_GROUPS + g]!;
    const share = modulationShare(envelope);
    groupSum += share;
    groupMax = Math.max(groupMax, share);
  }
  // Spectral flux: mean positive change of the log-mel bands from frame to frame.
  let flux = 0;
  for (let t = Math.max(1, start); t < end; t++) flux += rises[t]!;
  out[0] = low / n;
  out[1] = voiced / n;
  out[2] = pairs > 0 ? steady / pairs : 0;
  out[3] = modulation;
  out[4] = Math.sqrt(zcrVariance / n);
  out[5] = periodic / n;
  out[6] = Math.sqrt(logVariance / n);
  out[7] = runs > 0 ? voiced / runs / 100 : 0;
  out[8] = pairs > 0 ? jumps / pairs : 0;
  out[9] = flux / (n * TYPING_MEL_BANDS);
  out[10] = groupSum / MODULATION_GROUPS;
  out[11] = groupMax;
  return out;
}

/**
 * The log-energy gate of "not silence": 12 dB over the file's quietest tenth of frames, but at
 * most 25 dB under its loudest tenth (a file of music alone has no silence to measure from) and
 * never under -70 dBFS.
 */
export function activeGate(track: PitchTrack): number {
  if (track.frames === 0) return 0;
  const sorted = Float32Array.from(track.logEnergy).sort();
  const quiet = sorted[Math.floor(sorted.length * 0.1)]! + Math.log(10 ** 1.2);
  const loud = sorted[Math.floor(sorted.length * 0.9)]! - Math.log(10 ** 2.5);
  return Math.max(Math.log(1e-7), Math.min(quiet, loud));
}

/** P(music) per 10 ms frame: the mean of `score` (P(music) of a window's features) over the windows covering it (0 where no window counts). */
export function musicProbabilities(frames: TypingFrames, score: (features: Float64Array) => number): Float32Array {
  const gate = activeGate(frames.track);
  const sum = new Float32Array(frames.frames);
  const count = new Uint16Array(frames.frames);
  const features = new Float64Array(MUSIC_FEATURES.length);
  const envelope = new Float64Array(MUSIC_WINDOW_FRAMES);
  for (let start = 0; start + MUSIC_WINDOW_FRAMES <= frames.frames; start += MUSIC_HOP_FRAMES) {
    const x = musicWindowFeatures(frames, start, gate, features, envelope);
    const p = x === null ? 0 : score(x);
    for (let t = start; t < start + MUSIC_WINDOW_FRAMES; t++) {
      sum[t]! += p;
      count[t]!++;
    }
  }
  for (let t = 0; t < frames.frames; t++) sum[t] = count[t]! > 0 ? sum[t]! / count[t]! : 0;
  return sum;
}

/** Regions where P(music) is at least `threshold`, gaps under MUSIC_GAP_MS bridged, regions under MIN_MUSIC_MS dropped. */
export function musicRegions(probabilities: Float32Array, threshold: number, frameMs = 10): MusicRegion[] {
  const raw: MusicRegion[] = [];
  let from = -1;
  for (let t = 0; t <= probabilities.length; t++) {
    const music = t < probabilities.length && probabilities[t]! >= threshold;
    if (music && from < 0) from = t;
    if (!music && from >= 0) {
      raw.push({ startMs: from * frameMs, endMs: t * frameMs });
      from = -1;
    }
  }
  const merged: MusicRegion[] = [];
  for (const region of raw) {
    const previous = merged[merged.length - 1];
    if (previous !== undefined && region.startMs - previous.endMs < MUSIC_GAP_MS)
      merged[merged.length - 1] = { startMs: previous.startMs, endMs: region.endMs };
    else merged.push(region);
  }
  return merged.filter((r) => r.endMs - r.startMs >= MIN_MUSIC_MS);
}
