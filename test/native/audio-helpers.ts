// Helpers for the native tests: fixtures, signals, SNR, seeded random splits.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { EndpointEvent } from '../../src/engines/signal/live/endpoint-event.js';
import { fixturePath, pcm16ToFloat, wavData } from '../helpers/fixtures.js';
import { seededRandom } from '../../training/common/seeded-random.js';

export function fixture(name: string): Buffer {
  return readFileSync(fixturePath(`native/${name}`));
}

/** Samples of a 16-bit mono PCM WAV (the committed speech fixture) as float in [-1, 1). */
export function readPcm16Wav(bytes: Buffer): { rate: number; samples: Float32Array } {
  const { rate, pcm } = wavData(bytes);
  return { rate, samples: pcm16ToFloat(pcm) };
}

export function speechFixture(): Float32Array {
  return readPcm16Wav(fixture('speech-16k.wav')).samples;
}

/**
 * Checks the endpoint events of the speech fixture's two utterances: start, end, start, end at
 * the expected seconds. A VAD's first start and first end may come up to `firstStartBefore` and
 * `firstEndBefore` seconds.
 */
export function expectSpeechFixtureTurns(events: readonly EndpointEvent[], firstStartBefore: number, firstEndBefore: number): void {
  expect(events.map((e) => e.type)).toEqual(['speech_start', 'speech_end', 'speech_start', 'speech_end']);
  const sec = events.map((e) => e.position / 16000);
  expect(sec[0]).toBeGreaterThan(0.2);
  expect(sec[0]).toBeLessThan(firstStartBefore);
  expect(sec[1]).toBeGreaterThan(2.4);
  expect(sec[1]).toBeLessThan(firstEndBefore);
  expect(sec[2]).toBeGreaterThan(4.3);
  expect(sec[2]).toBeLessThan(5.6);
  expect(sec[3]).toBeGreaterThan(7.3);
}

export { floatToPcm16 as pcm16Bytes } from '../helpers/fixtures.js';

export function tones(freqs: number[], rate: number, n: number, amp: number): Float32Array {
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let v = 0;
    for (const f of freqs) v += Math.sin((2 * Math.PI * f * i) / rate + f);
    x[i] = (amp * v) / freqs.length;
  }
  return x;
}

/** Signal-to-noise ratio in dB of `test` against `reference` over [from, to). */
export function snrDb(reference: Float32Array, test: Float32Array, from = 0, to = Math.min(reference.length, test.length)): number {
  let s = 0;
  let e = 0;
  for (let i = from; i < to; i++) {
    const r = reference[i]!;
    const d = r - test[i]!;
    s += r * r;
    e += d * d;
  }
  return 10 * Math.log10(s / Math.max(e, 1e-30));
}

/** Small seeded PRNG (mulberry32) so that random splits are reproducible. */
export const rng = seededRandom;

/** Splits bytes at random boundaries (1..maxChunk bytes per piece). */
export function randomSplits(bytes: Uint8Array, seed: number, maxChunk: number): Uint8Array[] {
  const next = rng(seed);
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.min(bytes.length - at, 1 + Math.floor(next() * maxChunk));
    out.push(bytes.subarray(at, at + n));
    at += n;
  }
  return out;
}

export function concat(parts: Float32Array[]): Float32Array {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Float32Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
