/**
 * The speech conditions of the robustness benchmark (issue 28), applied to 16 kHz float samples:
 * - noise at an SNR: the speech level is the RMS over its speech frames (bench/speech-onset.ts;
 *   the pauses around a read sentence do not lower it; the recording's DC offset removed), the noise level the RMS of the noise over
 *   the utterance's length; the noise is scaled to `snrDb` below the speech and added. Where the sum
 *   would peak over 0.99 both are scaled down together (the SNR stays);
 * - quieter: every sample times 10^(-dB/20);
 * - clipped: without its DC offset, scaled so the peak is `overDb` above full scale, then
 *   hard-clipped at +-1.
 * The telephone condition is bench/telephone-channel.ts. Pure.
 */
import { fromDb, peak, rms, withoutMean } from './robustness-noises.js';
import { speechFrames } from './speech-onset.js';

/**
 * RMS, about the recording's mean, of the 10 ms frames bench/speech-onset.ts calls speech (all
 * samples when it finds none). About the mean: ALFFA recordings carry a DC offset of about
 * -0.125 (-18 dBFS), which is no part of how loud the speech is.
 */
export function activeSpeechRms(samples: Float32Array): number {
  const mean = samples.reduce((s, v) => s + v, 0) / Math.max(1, samples.length);
  const frames = speechFrames(samples);
  let energy = 0;
  let count = 0;
  frames.forEach((speech, f) => {
    if (!speech) return;
    for (let i = f * 160; i < (f + 1) * 160; i++) energy += (samples[i]! - mean) ** 2;
    count += 160;
  });
  if (count > 0) return Math.sqrt(energy / count);
  return rms(samples.map((v) => v - mean));
}

/** `speech` with `noise` (at least as long) added `snrDb` below its active level; the gain each got. */
export function mixAtSnr(speech: Float32Array, noise: Float32Array, snrDb: number): { samples: Float32Array; noiseGain: number; scale: number } {
  if (noise.length < speech.length) throw new Error(`noise (${noise.length} samples) shorter than the speech (${speech.length})`);
  const span = noise.subarray(0, speech.length);
  const noiseGain = activeSpeechRms(speech) / (rms(span) * fromDb(snrDb));
  const samples = new Float32Array(speech.length);
  for (let i = 0; i < samples.length; i++) samples[i] = speech[i]! + noiseGain * span[i]!;
  const top = peak(samples);
  const scale = top > 0.99 ? 0.99 / top : 1;
  if (scale < 1) for (let i = 0; i < samples.length; i++) samples[i]! *= scale;
  return { samples, noiseGain: noiseGain * scale, scale };
}

export function quieter(samples: Float32Array, db: number): Float32Array {
  const gain = fromDb(-db);
  return samples.map((v) => v * gain);
}

/**
 * Hard clipping `overDb` over full scale, about zero: the recording's mean is removed first (with
 * ALFFA's DC offset of -0.125 kept, 12 dB would clip 90% of the samples, nearly every negative
 * half-wave; without it about 8%). Returns the fraction of samples clipped.
 */
export function hardClip(samples: Float32Array, overDb: number): { samples: Float32Array; clippedFraction: number } {
  const centred = withoutMean(samples);
  const gain = fromDb(overDb) / Math.max(peak(centred), 1e-9);
  let clipped = 0;
  const out = centred.map((v) => {
    const x = v * gain;
    if (Math.abs(x) >= 1) clipped++;
    return Math.max(-1, Math.min(1, x));
  });
  return { samples: out, clippedFraction: clipped / Math.max(1, samples.length) };
}
