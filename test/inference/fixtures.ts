import { fileURLToPath } from 'node:url';

export const fixturePath = (relative: string): string => fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url));
export const TINY_CTC = fixturePath('models/tiny-ctc');
export const TINY_CTC_MEL = fixturePath('models/tiny-ctc-mel');
export const TINY_LID = fixturePath('models/tiny-lid');
export const AUDIO = (name: string): string => fixturePath(`audio/${name}`);

/** Deterministic pseudo-random PCM in [-amplitude, amplitude]. */
export function noise(samples: number, seed = 1, amplitude = 0.1): Float32Array {
  const out = new Float32Array(samples);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < samples; i++) {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    out[i] = ((s / 0xffffffff) * 2 - 1) * amplitude;
  }
  return out;
}
