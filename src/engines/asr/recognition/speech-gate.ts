/**
 * The file speech gate (FILE_SPEECH_GATE, issue 28): which parts of a pause-cut piece are decoded.
 * The energy segmenter (pause-segmenter.ts) finds sound; this gate keeps only the sound that is
 * speech, so noise, tones and music are not turned into words.
 *
 * Rules:
 * - Silero (`speechProbabilities`: the VAD engine's probability of every whole 512-sample window
 *   of the piece, 32 ms) hears the piece levelled (`levelledForVad`: its mean removed, then raised
 *   to SILERO_INPUT_LEVEL_DBFS RMS, by at most SILERO_MAX_INPUT_GAIN_DB, never lowered), so quiet speech is
 *   judged as speech at a normal level, and gives the regions: a window at or over `threshold` starts speech, speech
 *   goes on until a window under `negativeThreshold`; runs shorter than `minSpeechMs` are dropped;
 *   each run is widened by `padMs` on both sides (so no word edge is cut) and runs closer than
 *   `joinGapMs` are joined; a region that starts (ends) within `edgeMs` of the piece's start (end)
 *   is stretched to it, so a piece that is all speech is decoded whole, exactly as without the gate
 *   (the model reads a piece's leading and trailing quiet as it was trained to). A region is
 *   decoded on its own; a piece with no region is not decoded.
 *   Regions are sample ranges of the piece, in order, inside it, never overlapping.
 * - When Silero is unavailable (not installed, failed, closed: `speechProbabilities` answers null)
 *   the energy confirmation decides for the whole piece (the piece is one region, or none), and the
 *   gate logs once that it fell back: `energyConfirmsSpeech` wants at least `minSpeechMs` of frames
 *   (10 ms; a frame's level is its variance, so a DC offset is no sound) above max(-70 dBFS, the
 *   piece's 10th-percentile level + 10 dB), and the level to move from frame to frame (the median
 *   change between consecutive such frames at least 0.5 dB): syllables rise and fall, while steady
 *   noise, hum and held tones do not. It is weaker than Silero (docs/decoding.md, Speech gate).
 * - Second gate: a decoded region whose calibrated confidence (confidence-calibration.ts: the
 *   expected share of letters right) is under `minConfidence` gives no segment: text the model
 *   itself expects to be nine-tenths wrong. Only for models with a confidence calibration (a raw
 *   posterior is no such estimate); `shouldKeep` says it.
 * - Only an abort (the signal's reason) rejects.
 */
import { SILERO_INPUT_LEVEL_DBFS, SILERO_MAX_INPUT_GAIN_DB, SILERO_WINDOW, speechWindowRuns } from '../../vad/vad.js';

/** A region of a piece, samples [from, to). */
export interface SpeechRegion {
  readonly from: number;
  readonly to: number;
}

export interface SpeechGateOptions {
  readonly threshold: number;
  readonly negativeThreshold: number;
  readonly minSpeechMs: number;
  readonly padMs: number;
  readonly joinGapMs: number;
  /** A region starting (ending) this close to the piece's start (end) is stretched to it. */
  readonly edgeMs: number;
  /** A decoded region whose calibrated confidence is under this gives no segment (models with a calibration only). */
  readonly minConfidence: number;
}

/** The file gate's Silero settings (chosen on the validation speaker groups: docs/decoding.md, Speech gate). */
export const FILE_SPEECH_GATE_OPTIONS: SpeechGateOptions = {
  threshold: 0.5,
  negativeThreshold: 0.35,
  minSpeechMs: 250,
  padMs: 400,
  joinGapMs: 1000,
  edgeMs: 2000,
  minConfidence: 0.1,
};

/** Silero's speech probability of each whole window of 16 kHz mono PCM; null when Silero is unavailable. Rejects only with the signal's reason. */
export type SpeechProbabilities = (pcm: Float32Array, signal: AbortSignal) => Promise<Float32Array | null>;

export interface SpeechGateLogger {
  warn(details: object, message: string): void;
}

const SAMPLES_PER_MS = 16;

/** Regions of a piece of `length` samples from its window probabilities (the rules above). */
export function speechRegions(probabilities: ArrayLike<number>, length: number, options: SpeechGateOptions = FILE_SPEECH_GATE_OPTIONS): SpeechRegion[] {
  const runs = speechWindowRuns(probabilities, options.threshold, options.negativeThreshold).map((run) => ({
    from: run.from * SILERO_WINDOW,
    to: run.to === probabilities.length ? length : run.to * SILERO_WINDOW,
  }));
  const minSpeech = options.minSpeechMs * SAMPLES_PER_MS;
  const pad = options.padMs * SAMPLES_PER_MS;
  const joinGap = options.joinGapMs * SAMPLES_PER_MS;
  const out: { from: number; to: number }[] = [];
  for (const run of runs) {
    if (run.to - run.from < minSpeech) continue;
    const from = Math.max(0, run.from - pad);
    const to = Math.min(length, run.to + pad);
    if (to <= from) continue;
    const last = out[out.length - 1];
    if (last !== undefined && from - last.to < joinGap) last.to = Math.max(last.to, to);
    else out.push({ from, to });
  }
  const edge = options.edgeMs * SAMPLES_PER_MS;
  const first = out[0];
  const last = out[out.length - 1];
  if (first !== undefined && first.from <= edge) first.from = 0;
  if (last !== undefined && length - last.to <= edge) last.to = length;
  return out;
}

/** A copy of a piece for the VAD: its mean removed, raised towards SILERO_INPUT_LEVEL_DBFS RMS (the rules above). */
export function levelledForVad(samples: Float32Array): Float32Array {
  let mean = 0;
  for (let i = 0; i < samples.length; i++) mean += samples[i]!;
  mean /= Math.max(1, samples.length);
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += (samples[i]! - mean) ** 2;
  const rms = Math.sqrt(sum / Math.max(1, samples.length));
  const target = 10 ** (SILERO_INPUT_LEVEL_DBFS / 20);
  const gain = rms > 0 ? Math.min(10 ** (SILERO_MAX_INPUT_GAIN_DB / 20), Math.max(1, target / rms)) : 1;
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = (samples[i]! - mean) * gain;
  return out;
}

const FRAME = 160; // 10 ms
const ENERGY_FLOOR_DB = -70;
const ENERGY_ABOVE_NOISE_DB = 10;
const ENERGY_MIN_MEDIAN_CHANGE_DB = 0.5;

/** Whether a piece's energy looks like speech when Silero cannot tell (the rules above). */
export function energyConfirmsSpeech(samples: Float32Array, minSpeechMs = FILE_SPEECH_GATE_OPTIONS.minSpeechMs): boolean {
  const frames = Math.floor(samples.length / FRAME);
  if (frames === 0) return false;
  const levels = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    // The frame's variance: a DC offset (some recorders add one) is not sound.
    let sum = 0;
    let sumSq = 0;
    for (let i = f * FRAME; i < (f + 1) * FRAME; i++) {
      sum += samples[i]!;
      sumSq += samples[i]! * samples[i]!;
    }
    const mean = sum / FRAME;
    levels[f] = 10 * Math.log10(Math.max(0, sumSq / FRAME - mean * mean) + 1e-12);
  }
  const sorted = Float64Array.from(levels).sort();
  const noise = sorted[Math.floor(0.1 * (frames - 1))]!;
  const threshold = Math.max(ENERGY_FLOOR_DB, noise + ENERGY_ABOVE_NOISE_DB);
  let loud = 0;
  const changes: number[] = [];
  for (let f = 0; f < frames; f++) {
    if (levels[f]! < threshold) continue;
    loud++;
    if (f > 0 && levels[f - 1]! >= threshold) changes.push(Math.abs(levels[f]! - levels[f - 1]!));
  }
  if (loud * 10 < minSpeechMs || changes.length === 0) return false;
  changes.sort((a, b) => a - b);
  return changes[changes.length >> 1]! >= ENERGY_MIN_MEDIAN_CHANGE_DB;
}

/**
 * The gate one server's file transcriptions share: Silero through `speechProbabilities` (null: the
 * energy confirmation only, as when Silero is unavailable), logging the first fallback.
 */
export class SpeechGate {
  private warned = false;

  constructor(
    private readonly speechProbabilities: SpeechProbabilities | null,
    private readonly logger?: SpeechGateLogger,
    readonly options: SpeechGateOptions = FILE_SPEECH_GATE_OPTIONS,
  ) {}

  /** The second gate: whether a decoded region's text is kept (the rules above). */
  shouldKeep(recognition: { readonly calibrated: boolean; readonly confidence: number | null }): boolean {
    return !recognition.calibrated || recognition.confidence === null || recognition.confidence >= this.options.minConfidence;
  }

  /** The regions of `samples` (a piece) to decode; empty: none. */
  async regions(samples: Float32Array, signal: AbortSignal): Promise<SpeechRegion[]> {
    const probabilities = this.speechProbabilities === null ? null : await this.speechProbabilities(levelledForVad(samples), signal);
    signal.throwIfAborted();
    if (probabilities !== null) return speechRegions(probabilities, samples.length, this.options);
    if (!this.warned) {
      this.warned = true;
      this.logger?.warn(
        { gate: 'energy' },
        'FILE_SPEECH_GATE: the Silero VAD is unavailable; file pieces are confirmed as speech by their energy alone (noise and tones may still be transcribed)',
      );
    }
    return energyConfirmsSpeech(samples, this.options.minSpeechMs) ? [{ from: 0, to: samples.length }] : [];
  }
}
