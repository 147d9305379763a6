import { describe, expect, it } from 'vitest';
import { accumulateFrame, discriminate, extractIvector, ivectorDiscriminant, ivectorExtractor } from './speaker-ivectors.js';

// Two components in two dimensions, rank 1: T_0 = [1, 0], T_1 = [0, 2] (whitened space).
const weights = [0.5, 0.5];
const means = [
  [-3, 0],
  [3, 0],
];
const variances = [
  [1, 1],
  [4, 4],
];
const matrix = [
  [[1], [0]],
  [[0], [2]],
];
const model = ivectorExtractor('test', weights, means, variances, matrix);

describe('ivector extractor', () => {
  it('gives a frame to the component it lies at, with first-order statistics centred and whitened', () => {
    const n = new Float64Array(2);
    const f = new Float64Array(4);
    accumulateFrame(model, Float64Array.of(3, 1), n, f, new Float64Array(2));
    expect(n[0]).toBeLessThan(1e-3);
    expect(n[1]).toBeCloseTo(1, 3);
    // (x - μ_1) / σ_1 = ((3 - 3) / 2, (1 - 0) / 2)
    expect(f[2]).toBeCloseTo(0, 3);
    expect(f[3]).toBeCloseTo(0.5, 3);
  });

  it('answers the posterior mean w = (Σ_c T_cᵀ F_c) / (1 + Σ_c N_c T_cᵀ T_c)', () => {
    expect(Array.from(extractIvector(model, new Float64Array(2), new Float64Array(4)))).toEqual([0]);
    const n = Float64Array.of(10, 5);
    const f = Float64Array.of(4, 1, 3, 2);
    const w = extractIvector(model, n, f);
    expect(w[0]).toBeCloseTo((1 * 4 + 2 * 2) / (1 + 10 * 1 + 5 * 4), 12);
  });

  it('refuses tables that disagree in size', () => {
    expect(() => ivectorExtractor('bad', [1], [[0, 0]], [[1]], [[[1], [1]]])).toThrow(/variances/);
    expect(() => ivectorExtractor('bad', [1, 1], [[0, 0]], [[1, 1]], [[[1], [1]]])).toThrow(/agree/);
  });

  it('carries a trained speaker discriminant: (w - mean) · projection, checked against the rank', () => {
    const withProjection = ivectorExtractor('lda', weights, means, variances, matrix, { mean: [0.25], matrix: [[2, -1]] });
    expect(withProjection.discriminant?.dims).toBe(2);
    expect(Array.from(discriminate(Float64Array.of(1.25), withProjection.discriminant!))).toEqual([2, -1]);
    expect(model.discriminant).toBeNull();
    expect(() => ivectorDiscriminant(1, [0, 0], [[1]])).toThrow(/projection/);
    expect(() => ivectorDiscriminant(2, [0, 0], [[1, 2], [3]])).toThrow(/projection/);
    expect(() => ivectorDiscriminant(1, [0], [[Number.NaN]])).toThrow(/finite/);
  });
});
