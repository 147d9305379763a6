/**
 * A telephone channel for the robustness corpus (issue 28): 16 kHz speech through the narrow band
 * of a phone line and a G.711 codec, as a call centre receives it.
 *
 * - Band: a windowed-sinc low-pass (161 taps, Blackman, cut-off 3,700 Hz: flat to about 3,400 Hz,
 *   below -70 dB from about 4,000 Hz) before keeping every second sample (8 kHz), then a 4th-order
 *   Butterworth high-pass at 300 Hz (two biquads, RBJ cookbook coefficients), so 300-3,400 Hz pass.
 * - Codec: G.711 mu-law or A-law written here (ITU-T G.711 as the reference C code of Sun
 *   Microsystems, g711.c, implements it: 16-bit linear in, 8-bit code out; decoding to the middle
 *   of each code's interval). Encode then decode: the round trip a G.711 call makes.
 * Pure: samples in, samples out.
 */
import { rbjBiquad } from '../training/common/biquad.js';

const MULAW_BIAS = 0x84;
const MULAW_CLIP = 32_635;

/** One 16-bit linear sample as a G.711 mu-law byte. */
export function linearToMulaw(sample: number): number {
  let pcm = Math.max(-32_768, Math.min(32_767, Math.round(sample)));
  const sign = pcm < 0 ? 0x80 : 0;
  if (pcm < 0) pcm = -pcm;
  pcm = Math.min(pcm, MULAW_CLIP) + MULAW_BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (pcm & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (pcm >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** One G.711 mu-law byte as a 16-bit linear sample. */
export function mulawToLinearSample(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + MULAW_BIAS) << exponent) - MULAW_BIAS;
  return u & 0x80 ? 0 - magnitude : magnitude;
}

const ALAW_SEGMENT_ENDS = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];

/** One 16-bit linear sample as a G.711 A-law byte. */
export function linearToAlaw(sample: number): number {
  let pcm = Math.max(-32_768, Math.min(32_767, Math.round(sample))) >> 3;
  let mask: number;
  if (pcm >= 0) mask = 0xd5;
  else {
    mask = 0x55;
    pcm = -pcm - 1;
  }
  const segment = ALAW_SEGMENT_ENDS.findIndex((end) => pcm <= end);
  if (segment < 0) return 0x7f ^ mask;
  const value = (segment << 4) | ((segment < 2 ? pcm >> 1 : pcm >> segment) & 0x0f);
  return value ^ mask;
}

/** One G.711 A-law byte as a 16-bit linear sample. */
export function alawToLinearSample(code: number): number {
  const a = code ^ 0x55;
  let t = (a & 0x0f) << 4;
  const segment = (a & 0x70) >> 4;
  if (segment === 0) t += 8;
  else t = (t + 0x108) << (segment - 1);
  return a & 0x80 ? t : -t;
}

export type G711Law = 'mulaw' | 'alaw';

/** Float samples in [-1, 1) through a G.711 encode and decode, as 16-bit samples. */
export function g711RoundTrip(samples: Float32Array, law: G711Law): Int16Array {
  const encode = law === 'mulaw' ? linearToMulaw : linearToAlaw;
  const decode = law === 'mulaw' ? mulawToLinearSample : alawToLinearSample;
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = decode(encode(samples[i]! * 32_768));
  return out;
}

/** Taps of a Blackman-windowed sinc low-pass, cut-off `cutoff` (a fraction of the sample rate), unity gain at DC. */
export function lowPassTaps(cutoff: number, taps: number): Float64Array {
  const h = new Float64Array(taps);
  const middle = (taps - 1) / 2;
  let sum = 0;
  for (let n = 0; n < taps; n++) {
    const x = n - middle;
    const sinc = x === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * x) / (Math.PI * x);
    const window = 0.42 - 0.5 * Math.cos((2 * Math.PI * n) / (taps - 1)) + 0.08 * Math.cos((4 * Math.PI * n) / (taps - 1));
    h[n] = sinc * window;
    sum += h[n]!;
  }
  for (let n = 0; n < taps; n++) h[n]! /= sum;
  return h;
}

/** 16 kHz samples low-passed (`taps`, delay compensated) and decimated by 2: 8 kHz. */
export function downsampleTo8k(samples: Float32Array, taps: Float64Array = lowPassTaps(3_700 / 16_000, 161)): Float32Array {
  const half = (taps.length - 1) / 2;
  const out = new Float32Array(Math.floor(samples.length / 2));
  for (let o = 0; o < out.length; o++) {
    const centre = 2 * o;
    let acc = 0;
    for (let k = 0; k < taps.length; k++) {
      const i = centre + half - k;
      if (i >= 0 && i < samples.length) acc += taps[k]! * samples[i]!;
    }
    out[o] = acc;
  }
  return out;
}

/** The two quality factors of a 4th-order Butterworth filter as two biquads. */
const BUTTERWORTH_4_Q = [0.541_196_1, 1.306_563];

/** 16 kHz samples in the 300-3,400 Hz band at 8 kHz (float). */
export function telephoneBand(samples: Float32Array): Float32Array {
  const narrow = downsampleTo8k(samples);
  for (const q of BUTTERWORTH_4_Q) rbjBiquad(narrow, 'high', 300, q, 8_000);
  return narrow;
}

/** 16 kHz speech as a G.711 call delivers it: 8 kHz 16-bit samples, band-limited and companded. */
export function telephoneChannel(samples: Float32Array, law: G711Law): Int16Array {
  return g711RoundTrip(telephoneBand(samples), law);
}
