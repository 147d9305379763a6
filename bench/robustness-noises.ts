/**
 * Non-speech signals for the robustness corpus (issue 28): coloured noise, mains hum, and clicks,
 * pops and keyboard-like impulse trains, with the level arithmetic they share. Every generator
 * takes a seeded random source (training/common/seeded-random.ts), so a seed gives the same samples.
 *
 * Levels are dBFS of the RMS with full scale 1.0 (20 log10 RMS; a full-scale square wave is
 * 0 dBFS, a full-scale sine -3 dBFS). `atLevel` scales a clip so its RMS over the whole clip is the
 * level asked for, exactly; impulse trains are levelled by their peak instead (the RMS of a sparse
 * train says little about how loud each click is).
 * - white: Gaussian samples (Box-Muller);
 * - pink: white noise through Paul Kellet's refined pink filter (7 one-pole sections; -3 dB per
 *   octave, within about 0.5 dB from 20 Hz to 6 kHz at 16 kHz);
 * - brown: white noise through a leaky integrator (pole 0.995: -6 dB per octave above about 13 Hz);
 * - hum: the mains frequency (50 or 60 Hz) and 7 harmonics, odd ones stronger (transformer and
 *   rectifier hum), random phases, a slow 0.3 Hz amplitude wander of 10%;
 * - clicks: 1-3 sample impulses of either sign at random gaps (0.15-1.5 s);
 * - pops: 15-60 ms low thumps (a damped 50-150 Hz half-wave and a DC step that decays), 0.4-3 s apart;
 * - keyboard: typing bursts (keys 90-260 ms apart for 1-4 s, then 0.4-2 s pauses), each key a
 *   press and, 50-120 ms later, a weaker release: 4-10 ms noise bursts through a resonator at
 *   1.5-4.5 kHz; every sixth key or so a lower, heavier space bar.
 * Pure.
 */

import { kelletPink } from '../test/helpers/non-speech.js';

export const RATE = 16_000;

export type Random = () => number;

/** RMS of `samples` (0 for none). */
export function rms(samples: Float32Array): number {
  let energy = 0;
  for (const v of samples) energy += v * v;
  return samples.length === 0 ? 0 : Math.sqrt(energy / samples.length);
}

export function peak(samples: Float32Array): number {
  let p = 0;
  for (const v of samples) p = Math.max(p, Math.abs(v));
  return p;
}

/** 20 log10 of an amplitude (RMS or peak); -Infinity for 0. */
export const toDb = (amplitude: number): number => 20 * Math.log10(amplitude);
export const fromDb = (db: number): number => 10 ** (db / 20);

/** RMS level in dBFS. */
export const rmsDbfs = (samples: Float32Array): number => toDb(rms(samples));

/** Scales `samples` in place so that `measure` of it (RMS or peak) reads `dbfs`; returns it. */
function scaledTo(samples: Float32Array, measure: (samples: Float32Array) => number, dbfs: number): Float32Array {
  const now = measure(samples);
  if (now === 0) return samples;
  const gain = fromDb(dbfs) / now;
  for (let i = 0; i < samples.length; i++) samples[i]! *= gain;
  return samples;
}

/** Scales `samples` in place so that its RMS is `dbfs`; returns it. */
export const atLevel = (samples: Float32Array, dbfs: number): Float32Array => scaledTo(samples, rms, dbfs);

/** Scales `samples` in place so that its peak is `dbfs`; returns it. */
export const atPeak = (samples: Float32Array, dbfs: number): Float32Array => scaledTo(samples, peak, dbfs);

/** `samples` minus their mean (a new array). */
export function withoutMean(samples: Float32Array): Float32Array {
  const mean = samples.reduce((s, v) => s + v, 0) / Math.max(1, samples.length);
  return samples.map((v) => v - mean);
}

/** Adds `b` (scaled by `gain`) into `a` in place, up to the shorter length; returns `a`. */
export function addInto(a: Float32Array, b: Float32Array, gain = 1): Float32Array {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) a[i]! += gain * b[i]!;
  return a;
}

/** A standard normal sample (Box-Muller). */
export function gaussian(random: Random): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

const samplesOf = (seconds: number): number => Math.round(seconds * RATE);

export function whiteNoise(seconds: number, random: Random): Float32Array {
  return Float32Array.from({ length: samplesOf(seconds) }, () => gaussian(random));
}

export function pinkNoise(seconds: number, random: Random): Float32Array {
  return kelletPink(samplesOf(seconds), () => gaussian(random));
}

export function brownNoise(seconds: number, random: Random): Float32Array {
  const out = new Float32Array(samplesOf(seconds));
  let y = 0;
  for (let i = 0; i < out.length; i++) {
    y = 0.995 * y + gaussian(random);
    out[i] = y;
  }
  return out;
}

/** Relative amplitudes of the mains fundamental and its harmonics 2..8. */
export const HUM_HARMONICS = [1, 0.25, 0.55, 0.08, 0.3, 0.05, 0.15, 0.04] as const;

export function mainsHum(seconds: number, mains: 50 | 60, random: Random): Float32Array {
  const out = new Float32Array(samplesOf(seconds));
  const phases = HUM_HARMONICS.map(() => random() * 2 * Math.PI);
  const wanderPhase = random() * 2 * Math.PI;
  for (let i = 0; i < out.length; i++) {
    const t = i / RATE;
    let v = 0;
    for (let k = 0; k < HUM_HARMONICS.length; k++) v += HUM_HARMONICS[k]! * Math.sin(2 * Math.PI * mains * (k + 1) * t + phases[k]!);
    out[i] = v * (1 + 0.1 * Math.sin(2 * Math.PI * 0.3 * t + wanderPhase));
  }
  return out;
}

/** Seconds in [a, b). */
const between = (random: Random, a: number, b: number): number => a + (b - a) * random();

export function clicks(seconds: number, random: Random): Float32Array {
  const out = new Float32Array(samplesOf(seconds));
  for (let at = samplesOf(between(random, 0.1, 0.8)); at < out.length; at += samplesOf(between(random, 0.15, 1.5))) {
    const width = 1 + Math.floor(random() * 3);
    const sign = random() < 0.5 ? -1 : 1;
    const amplitude = between(random, 0.2, 1);
    for (let k = 0; k < width && at + k < out.length; k++) out[at + k] = sign * amplitude * (k === 0 ? 1 : -0.5 / k);
  }
  return out;
}

export function pops(seconds: number, random: Random): Float32Array {
  const out = new Float32Array(samplesOf(seconds));
  for (let at = samplesOf(between(random, 0.1, 1)); at < out.length; at += samplesOf(between(random, 0.4, 3))) {
    const length = samplesOf(between(random, 0.015, 0.06));
    const f = between(random, 50, 150);
    const amplitude = between(random, 0.3, 1) * (random() < 0.5 ? -1 : 1);
    const decay = between(random, 40, 120);
    for (let i = 0; i < length && at + i < out.length; i++) {
      const t = i / RATE;
      const thump = Math.sin(Math.min(Math.PI, 2 * Math.PI * f * t)) * Math.exp(-t * decay);
      const step = 0.3 * Math.exp(-t * decay * 0.5);
      out[at + i]! += amplitude * (thump + step);
    }
  }
  return out;
}

/** A noise burst of `length` samples through a two-pole resonator at `f` Hz, decaying, added at `at`. */
function addKey(out: Float32Array, at: number, length: number, f: number, amplitude: number, random: Random): void {
  const r = 0.97;
  const c = 2 * r * Math.cos((2 * Math.PI * f) / RATE);
  let y1 = 0;
  let y2 = 0;
  const ring = length * 3;
  for (let i = 0; i < ring && at + i < out.length; i++) {
    const excitation = i < length ? gaussian(random) * Math.exp(-i / (length / 3)) : 0;
    const y = excitation + c * y1 - r * r * y2;
    y2 = y1;
    y1 = y;
    out[at + i]! += amplitude * y * 0.1;
  }
}

export function keyboard(seconds: number, random: Random): Float32Array {
  const out = new Float32Array(samplesOf(seconds));
  let at = samplesOf(between(random, 0.1, 0.6));
  while (at < out.length) {
    const burstEnd = at + samplesOf(between(random, 1, 4));
    while (at < burstEnd && at < out.length) {
      const space = random() < 0.17;
      const f = space ? between(random, 600, 1100) : between(random, 1500, 4500);
      const amplitude = space ? between(random, 0.7, 1) : between(random, 0.3, 0.8);
      addKey(out, at, samplesOf(between(random, 0.004, 0.01)), f, amplitude, random);
      addKey(out, at + samplesOf(between(random, 0.05, 0.12)), samplesOf(0.004), f * 1.1, amplitude * 0.4, random);
      at += samplesOf(between(random, 0.09, 0.26));
    }
    at += samplesOf(between(random, 0.4, 2));
  }
  return out;
}
