/**
 * Speech frames for diarization: one 0/1 per 20 ms speaker frame (SPEAKER_FRAME_MS), from the
 * energy gate (12 dB over the file's noise floor) plus the VAD's spans (ms), confined to the
 * `within` spans (ms); and the spread of the file's frame energies in dB (the overlap detector's
 * noise guard). Pure functions of the file's speaker frames.
 */
import { SPEAKER_FRAME_MS, type SpeakerFrames } from './speaker-features.js';

/** A stretch of the audio, in ms from its start. */
export interface SpeechSpan {
  readonly startMs: number;
  readonly endMs: number;
}

/** The noise floor of energyRangeDb: the 1% quantile, not 5%, since a file of nearly continuous speech has few quiet frames. */
const RANGE_FLOOR_QUANTILE = 0.01;
/** The quantile of frame energies taken as the noise floor (12 dB over it is speech); low, since conversations have few pauses. */
const SPEECH_FLOOR_QUANTILE = 0.05;

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
export function energyRangeDb(features: SpeakerFrames): number {
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
