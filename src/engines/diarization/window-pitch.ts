/**
 * The voice's pitch as part of a window embedding. Speakers through one shared channel (one room,
 * one microphone, one codec) differ little in their MFCC statistics, while the level of their
 * voice (F0) survives any channel; the i-vectors of 20 MFCCs barely see it.
 *
 * Rules:
 * - A window's pitch is the median natural log F0 of its voiced pitch frames (10 ms, pitch-track.ts)
 *   within its speech frames (20 ms speaker frames: pitch frames 2t and 2t + 1), relative to the
 *   median over all of the file's voiced speech frames.
 * - It becomes an angle θ = Δ · (π/2) / `pitchSpan`, clamped to ±π/2, and the unit pair (cos θ, sin θ):
 *   two windows' pitch parts have cosine cos(θ₁ − θ₂): 1 at equal pitch, 0 at `pitchSpan` apart,
 *   −1 at twice that or more (never wrapping round).
 * - The window's embedding becomes [√(1 − w) · embedding, √w · (cos θ, sin θ)], unit length, so
 *   cosines are (1 − w) · the speaker model's + w · the pitch's. A window with fewer than
 *   MIN_VOICED_FRAMES voiced frames keeps its embedding with zeros for the pitch, renormalised:
 *   it is judged on its speaker model alone.
 * Pure.
 */
import type { EmbeddedWindow } from './speaker-windows.js';

/** Pitch frames (10 ms) a window needs voiced for its pitch to count: 0.2 s. */
const MIN_VOICED_FRAMES = 20;

export interface WindowPitchParameters {
  /** w: the pitch's share of each window's cosine similarity (0: left out). */
  readonly pitchWeight: number;
  /** The difference of log F0 (natural log) at which two windows' pitch parts are orthogonal. */
  readonly pitchSpan: number;
}

/** `windows` (unit-length embeddings) with the pitch part joined; as they are when the weight is 0 or the file has no voiced speech. */
export function withPitch(windows: readonly EmbeddedWindow[], f0: Float32Array, speech: Uint8Array, parameters: WindowPitchParameters): EmbeddedWindow[] {
  const weight = parameters.pitchWeight;
  if (weight <= 0 || windows.length === 0) return [...windows];
  const reference = medianLogF0(f0, speech, 0, speech.length);
  if (reference === null) return [...windows];
  return windows.map((w) => {
    const pitch = medianLogF0(f0, speech, w.startFrame, w.endFrame, MIN_VOICED_FRAMES);
    const dims = w.embedding.length;
    const embedding = new Float32Array(dims + 2);
    for (let k = 0; k < dims; k++) embedding[k] = Math.sqrt(1 - weight) * w.embedding[k]!;
    if (pitch === null) {
      // No pitch to judge by: the speaker model's part alone, back to unit length.
      for (let k = 0; k < dims; k++) embedding[k] = w.embedding[k]!;
      return { startFrame: w.startFrame, endFrame: w.endFrame, embedding };
    }
    const theta = Math.max(-Math.PI / 2, Math.min(Math.PI / 2, ((pitch - reference) * (Math.PI / 2)) / parameters.pitchSpan));
    embedding[dims] = Math.sqrt(weight) * Math.cos(theta);
    embedding[dims + 1] = Math.sqrt(weight) * Math.sin(theta);
    return { startFrame: w.startFrame, endFrame: w.endFrame, embedding };
  });
}

/** The median ln F0 of the voiced pitch frames within the speech frames [start, end); null with fewer than `minFrames` (at least one). */
export function medianLogF0(f0: Float32Array, speech: Uint8Array, start: number, end: number, minFrames = 1): number | null {
  const values: number[] = [];
  for (let t = start; t < end; t++) {
    if (speech[t] === 0) continue;
    for (let p = 2 * t; p <= 2 * t + 1 && p < f0.length; p++) if (f0[p]! > 0) values.push(Math.log(f0[p]!));
  }
  if (values.length < Math.max(1, minFrames)) return null;
  values.sort((a, b) => a - b);
  const middle = values.length >> 1;
  return values.length % 2 === 1 ? values[middle]! : (values[middle - 1]! + values[middle]!) / 2;
}
