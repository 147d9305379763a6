/**
 * The channel of the simulated conversations (realistic-conversations.ts) and of single
 * utterances for training a speaker model (throughRandomChannel): speech activity and level on
 * 10 ms frames, 60 Hz high-pass, a sparse synthetic room, the telephone band and mu-law
 * companding. Seeded by the caller's random source; all at 16 kHz.
 */
import { rbjBiquad } from './biquad.js';
import { seededRandom } from './seeded-random.js';

const RATE = 16_000;

/** 0/1 per 10 ms frame: within 35 dB of the clip's loudest frame. */
export function activeFrames(pcm: Float32Array): Uint8Array {
  const n = Math.floor(pcm.length / 160);
  const energy = new Float64Array(n);
  let peak = 0;
  for (let f = 0; f < n; f++) {
    let e = 0;
    for (let j = f * 160; j < (f + 1) * 160; j++) e += pcm[j]! * pcm[j]!;
    energy[f] = e / 160;
    peak = Math.max(peak, energy[f]!);
  }
  const gate = peak * 10 ** -3.5;
  return Uint8Array.from(energy, (e) => (e > gate ? 1 : 0));
}

/** RMS of the clip's active frames. */
export function speechRms(pcm: Float32Array): number {
  const active = activeFrames(pcm);
  let e = 0;
  let n = 0;
  active.forEach((a, f) => {
    if (a === 0) return;
    for (let j = f * 160; j < (f + 1) * 160; j++) e += pcm[j]! * pcm[j]!;
    n += 160;
  });
  return Math.sqrt(e / Math.max(1, n)) || 1e-6;
}

/** The clip less its mean, through a 60 Hz high-pass (two biquads). */
export function withoutRumble(clip: Float32Array): Float32Array {
  let mean = 0;
  for (const x of clip) mean += x;
  mean /= Math.max(1, clip.length);
  const out = clip.map((x) => x - mean);
  biquad(out, 'high', 60);
  biquad(out, 'high', 60);
  return out;
}

/** A sparse (velvet-noise) room response: the direct sound, then decaying reflections to `rt60S`. */
export function roomResponse(rt60S: number, random: () => number): { at: Int32Array; gain: Float32Array } {
  const at: number[] = [0];
  const gain: number[] = [1];
  const length = Math.round(rt60S * RATE);
  const predelay = Math.round((0.002 + 0.006 * random()) * RATE);
  // About 1,000 reflections a second; direct-to-reverberant ratio of a few dB.
  const spacing = Math.round(RATE / 1000);
  const level = 0.35;
  for (let start = predelay; start < length; start += spacing) {
    const n = start + Math.floor(random() * spacing);
    at.push(n);
    gain.push((random() < 0.5 ? -1 : 1) * level * Math.exp((-6.9 * n) / length) * (0.5 + random()));
  }
  return { at: Int32Array.from(at), gain: Float32Array.from(gain) };
}

/** `x` through the sparse response, cut to its own length. */
export function convolveSparse(x: Float32Array, response: { at: Int32Array; gain: Float32Array }): Float32Array {
  const last = response.at[response.at.length - 1]!;
  const y = new Float32Array(x.length + last);
  for (let k = 0; k < response.at.length; k++) {
    const d = response.at[k]!;
    const g = response.gain[k]!;
    for (let i = 0; i < x.length; i++) y[i + d]! += g * x[i]!;
  }
  return y.subarray(0, x.length);
}

/** RBJ biquad in place (low- or high-pass), Q 1/√2 by default. */
function biquad(x: Float32Array, kind: 'low' | 'high', frequency: number, q = Math.SQRT1_2): void {
  rbjBiquad(x, kind, frequency, q, RATE);
}

/** The 300-3,400 Hz band of a telephone line, in place: two high-pass and two low-pass biquads. */
export function telephoneBand(x: Float32Array): void {
  biquad(x, 'high', 300);
  biquad(x, 'high', 300);
  biquad(x, 'low', 3400);
  biquad(x, 'low', 3400);
}

/** mu-law companding (mu = 255) quantised to 8 bits and back: a G.711-like codec's distortion. */
export function muLaw(x: Float32Array): void {
  for (let i = 0; i < x.length; i++) {
    const v = Math.max(-1, Math.min(1, x[i]!));
    const c = (Math.sign(v) * Math.log1p(255 * Math.abs(v))) / Math.log(256);
    const q = Math.round(c * 127) / 127;
    x[i] = Math.sign(q) * ((256 ** Math.abs(q) - 1) / 255);
  }
}

/**
 * One utterance through a random channel of the simulator's kind, for training a speaker model
 * that keys on the voice, not the microphone: 60 Hz high-pass, a room (RT60 0.15-0.8 s, or none
 * in one case in five), room tone 8-35 dB under the speech, a telephone band with mu-law in one
 * case in three, and a level of -40 to -12 dBFS. Seeded.
 */
export function throughRandomChannel(clip: Float32Array, seed: number): Float32Array {
  const random = seededRandom(seed);
  let x = withoutRumble(clip);
  if (random() >= 0.2) x = convolveSparse(x, roomResponse(0.15 + 0.65 * random(), random));
  const level = speechRms(x);
  const snrDb = 8 + 27 * random();
  let lp = 0;
  const noise = new Float32Array(x.length);
  let power = 0;
  for (let i = 0; i < x.length; i++) {
    const w = 2 * random() - 1;
    lp = 0.97 * lp + 0.03 * w;
    noise[i] = 6 * lp + 0.3 * w;
    power += noise[i]! * noise[i]!;
  }
  const g = (level * 10 ** (-snrDb / 20)) / Math.sqrt(power / Math.max(1, x.length) || 1e-12);
  const out = x.map((v, i) => v + g * noise[i]!);
  const telephone = random() < 1 / 3;
  if (telephone) telephoneBand(out);
  let peak = 0;
  for (const v of out) peak = Math.max(peak, Math.abs(v));
  const gain = Math.min(10 ** ((-40 + 28 * random()) / 20) / level, 0.99 / Math.max(peak, 1e-9));
  for (let i = 0; i < out.length; i++) out[i]! *= gain;
  if (telephone) muLaw(out);
  return out;
}
