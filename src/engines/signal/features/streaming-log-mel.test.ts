import { describe, expect, it } from 'vitest';
import { LogMelExtractor, type LogMelInput } from './log-mel-features.js';
import { concatSamples } from '../files/pcm-channels.js';
import { StreamingLogMel } from './streaming-log-mel.js';

/** small-am-v2's manifest input (models/small-am-v2/manifest.json). */
const centred: LogMelInput = {
  kind: 'log_mel',
  sampleRate: 16000,
  nFft: 400,
  winLength: 400,
  hopLength: 160,
  nMels: 80,
  fMin: 0,
  fMax: 8000,
  window: 'hann',
  melScale: 'htk',
  melNorm: 'none',
  center: true,
  power: 2,
  logFloor: 1e-6,
  normalize: 'per_utterance',
};
const notCentred: LogMelInput = { ...centred, center: false };

/** Deterministic pseudo-random audio in [-0.5, 0.5) (a 32-bit LCG). */
function noise(samples: number, seed = 12345): Float32Array {
  const x = new Float32Array(samples);
  let s = seed >>> 0;
  for (let i = 0; i < samples; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x[i] = s / 2 ** 32 - 0.5;
  }
  return x;
}

/** Frames whose window lies wholly inside the first `samples` samples (the centred start reflected). */
function completeFrames(input: LogMelInput, samples: number): number {
  const { nFft, hopLength, center } = input;
  const pad = center ? nFft >> 1 : 0;
  if (center && samples <= pad) return 0;
  const length = samples + pad;
  return length >= nFft ? 1 + Math.floor((length - nFft) / hopLength) : 0;
}

/** Pushes `pcm` in chunks of the cycled `sizes`, checking the frame count after each push; returns all frames. */
function pushChunked(input: LogMelInput, pcm: Float32Array, sizes: readonly number[]): Float32Array {
  const stream = new StreamingLogMel(input);
  const parts: Float32Array[] = [];
  let at = 0;
  for (let i = 0; at < pcm.length; i++) {
    const end = Math.min(pcm.length, at + sizes[i % sizes.length]!);
    const before = stream.frames;
    const out = stream.push(pcm.subarray(at, end));
    at = end;
    // each push returns exactly the frames that became complete, and `frames` counts them all
    expect(stream.frames).toBe(completeFrames(input, at));
    expect(out.length).toBe((stream.frames - before) * input.nMels);
    parts.push(out);
  }
  return concatSamples(parts, Float32Array);
}

function expectClose(actual: Float32Array, expected: Float32Array, tolerance: number): void {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i]! - expected[i]!));
  expect(worst).toBeLessThanOrEqual(tolerance);
}

const signal = noise(Math.round(1.3 * 16000));
const chunkings: readonly (readonly number[])[] = [[1, 150, 199, 3000, 77, 160, 13, 401, 2, 999], [160], [7, 33], [signal.length]];

describe('StreamingLogMel', () => {
  for (const [name, input] of [
    ['centred', centred],
    ['not centred', notCentred],
  ] as const) {
    it(`gives the complete frames of LogMelExtractor.compute on the whole signal (${name})`, () => {
      const whole = new LogMelExtractor({ ...input, normalize: 'none' }).compute(signal);
      const n = completeFrames(input, signal.length);
      expect(n).toBeGreaterThan(100);
      const streamed = pushChunked(input, signal, chunkings[0]!);
      expect(streamed.length).toBe(n * input.nMels);
      expectClose(streamed, whole.subarray(0, n * input.nMels), 1e-5);
    });

    it(`does not depend on how the audio is chunked (${name})`, () => {
      const first = pushChunked(input, signal, chunkings[0]!);
      for (const sizes of chunkings.slice(1)) expectClose(pushChunked(input, signal, sizes), first, 1e-5);
    });
  }

  it('emits nothing until n_fft/2 + 1 samples have arrived (centred), then the first frame', () => {
    // the reflection of frame 0 needs sample n_fft/2
    const stream = new StreamingLogMel(centred);
    expect(stream.push(signal.subarray(0, 100)).length).toBe(0);
    expect(stream.push(signal.subarray(100, 200)).length).toBe(0);
    expect(stream.frames).toBe(0);
    const out = stream.push(signal.subarray(200, 201));
    expect(stream.frames).toBe(1);
    const whole = new LogMelExtractor({ ...centred, normalize: 'none' }).compute(signal);
    expectClose(out, whole.subarray(0, centred.nMels), 1e-5);
  });

  it('emits nothing until n_fft samples have arrived (not centred)', () => {
    const stream = new StreamingLogMel(notCentred);
    expect(stream.push(signal.subarray(0, 399)).length).toBe(0);
    expect(stream.push(signal.subarray(399, 400)).length).toBe(notCentred.nMels);
    expect(stream.frames).toBe(1);
  });

  it('returns raw features whatever the input asks for (normalisation is the caller’s)', () => {
    // the centred input says per_utterance; the stream still matches normalize: 'none'
    const stream = new StreamingLogMel(centred);
    const out = stream.push(signal);
    const raw = new LogMelExtractor({ ...centred, normalize: 'none' }).compute(signal);
    expectClose(out, raw.subarray(0, out.length), 1e-5);
  });
  it("finish emits the frames past the last complete window: a finished stream has all of compute's frames", () => {
    for (const input of [centred, notCentred]) {
      // lengths around the start's reflection, n_fft and the hop, and a long one
      for (const length of [50, 200, 201, 399, 400, 401, 1_000, 16_123, 20_799]) {
        for (const chunk of [7, 1_000, 8_000]) {
          const pcm = noise(length, length + chunk);
          const stream = new StreamingLogMel(input);
          const parts: Float32Array[] = [];
          let at = 0;
          for (; at + chunk < length; at += chunk) parts.push(stream.push(pcm.slice(at, at + chunk)));
          parts.push(stream.finish(pcm.slice(at)));
          const got = concatSamples(parts, Float32Array);
          const expected = new LogMelExtractor({ ...input, normalize: 'none' }).compute(pcm);
          expect(got.length).toBe(expected.length);
          expectClose(got, expected, 1e-5);
          expect(stream.frames).toBe(expected.length / input.nMels);
        }
      }
    }
  });

  it('streams sharing one frame extractor, pushed in turn, get the frames each gets alone', () => {
    const shared = StreamingLogMel.frameExtractor(centred);
    const a = noise(12_345, 1);
    const b = noise(9_876, 2);
    const sharedA = new StreamingLogMel(centred, shared);
    const sharedB = new StreamingLogMel(centred, shared);
    const partsA: Float32Array[] = [];
    const partsB: Float32Array[] = [];
    for (let at = 0; at < a.length; at += 1_000) {
      partsA.push(sharedA.push(a.slice(at, at + 1_000)));
      partsB.push(sharedB.push(b.slice(at, at + 1_000)));
    }
    expect(concatSamples(partsA, Float32Array)).toEqual(new StreamingLogMel(centred).push(a));
    expect(concatSamples(partsB, Float32Array)).toEqual(new StreamingLogMel(centred).push(b));
  });

  it('refuses a frame extractor that centres, normalises or frames otherwise', () => {
    expect(() => new StreamingLogMel(centred, new LogMelExtractor(centred))).toThrow(RangeError);
    expect(() => new StreamingLogMel(centred, new LogMelExtractor({ ...centred, center: false }))).toThrow(RangeError);
    expect(() => new StreamingLogMel(centred, StreamingLogMel.frameExtractor({ ...centred, hopLength: 80 }))).toThrow(RangeError);
  });
});
