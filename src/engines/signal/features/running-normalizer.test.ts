import { describe, expect, it } from 'vitest';
import { NORMALIZE_EPSILON } from './log-mel-features.js';
import { type FeatureStatistics, RunningNormalizer } from './running-normalizer.js';

const CHANNELS = 3;
const stats: FeatureStatistics = { mean: [-4, 0.5, 2], std: [1.5, 0.25, 3], priorFrames: 20 };

/** Deterministic pseudo-random frames, [frames, CHANNELS] row-major, values in [-8, 8). */
function frames(count: number, seed = 7): Float32Array {
  const x = new Float32Array(count * CHANNELS);
  let s = seed >>> 0;
  for (let i = 0; i < x.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x[i] = (s / 2 ** 32) * 16 - 8;
  }
  return x;
}

/** The rule, computed directly: prior-weighted running sums, mean and std (n - 1) of the frames so far, itself included. */
function reference(input: Float32Array, prior: FeatureStatistics): Float64Array {
  const out = new Float64Array(input.length);
  for (let c = 0; c < CHANNELS; c++) {
    let sum = prior.priorFrames * prior.mean[c]!;
    let sumSquares = prior.priorFrames * (prior.std[c]! ** 2 + prior.mean[c]! ** 2);
    let n = prior.priorFrames;
    for (let t = 0; t * CHANNELS < input.length; t++) {
      const x = input[t * CHANNELS + c]!;
      sum += x;
      sumSquares += x * x;
      n += 1;
      const mean = sum / n;
      const variance = n > 1 ? (sumSquares - n * mean * mean) / (n - 1) : 0;
      out[t * CHANNELS + c] = (x - mean) / (Math.sqrt(Math.max(0, variance)) + NORMALIZE_EPSILON);
    }
  }
  return out;
}

function expectClose(actual: Float32Array, expected: ArrayLike<number>, tolerance = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < actual.length; i++) {
    const scale = Math.max(1, Math.abs(expected[i]!));
    expect(Math.abs(actual[i]! - expected[i]!) / scale, `value ${i}`).toBeLessThanOrEqual(tolerance);
  }
}

describe('RunningNormalizer', () => {
  it('normalises each frame by the prior-weighted mean and std of the frames so far', () => {
    const input = frames(50);
    const out = new RunningNormalizer(stats).apply(input.slice());
    expectClose(out, reference(input, stats));
  });

  it('normalises in place and returns the same array', () => {
    const data = frames(4);
    expect(new RunningNormalizer(stats).apply(data)).toBe(data);
  });

  it('gives the same result however the frames are split over calls', () => {
    const input = frames(50);
    const whole = new RunningNormalizer(stats).apply(input.slice());
    const normalizer = new RunningNormalizer(stats);
    const parts: Float32Array[] = [];
    for (const [from, to] of [
      [0, 1],
      [1, 1],
      [1, 8],
      [8, 9],
      [9, 33],
      [33, 50],
    ] as const) {
      parts.push(normalizer.apply(input.slice(from * CHANNELS, to * CHANNELS)));
    }
    const split = new Float32Array(whole.length);
    let offset = 0;
    for (const p of parts) {
      split.set(p, offset);
      offset += p.length;
    }
    expect(split).toEqual(whole);
  });

  it('never changes a frame’s output when later frames come', () => {
    // the first k outputs are the same whether or not more frames follow
    const input = frames(40);
    const all = new RunningNormalizer(stats).apply(input.slice());
    for (const k of [1, 2, 10, 39]) {
      const prefix = new RunningNormalizer(stats).apply(input.slice(0, k * CHANNELS));
      expect(prefix).toEqual(all.subarray(0, k * CHANNELS));
    }
  });

  it('normalises the first frame to 0 without a prior', () => {
    // n = 1: the mean is the frame itself and the std 0
    const none: FeatureStatistics = { ...stats, priorFrames: 0 };
    const input = frames(5);
    const out = new RunningNormalizer(none).apply(input.slice());
    expect(Array.from(out.subarray(0, CHANNELS))).toEqual([0, 0, 0]);
    expectClose(out, reference(input, none));
  });

  it('refuses mean and std of different lengths', () => {
    expect(() => new RunningNormalizer({ mean: [0, 0], std: [1], priorFrames: 1 })).toThrow(/different lengths/);
  });

  it('refuses features that are not whole frames', () => {
    const normalizer = new RunningNormalizer(stats);
    expect(() => normalizer.apply(new Float32Array(CHANNELS + 1))).toThrow(/whole frames/);
  });
});
