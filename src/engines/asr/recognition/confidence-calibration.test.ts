import { describe, expect, it } from 'vitest';
import type { CtcHypothesis } from '../decoding/ctc-types.js';
import { CONFIDENCE_FEATURES, calibratedConfidence, confidenceFeatures, fitIsotonic, parseConfidenceCalibration } from './confidence-calibration.js';

const hypothesis = (probabilities: readonly number[], frames: readonly [number, number][], words: readonly number[]): CtcHypothesis => ({
  text: 'x',
  tokens: probabilities.map((probability, i) => ({ id: 2, startFrame: frames[i]![0], endFrame: frames[i]![1], probability })),
  words: words.map((confidence, i) => ({ text: `w${i}`, startFrame: 0, endFrame: 1, confidence })),
  confidence: probabilities.reduce((a, b) => a + b, 0) / Math.max(1, probabilities.length),
});

const valid = {
  features: [...CONFIDENCE_FEATURES],
  mean: [0.5, 0.5, 0.5, 0.5, 5],
  std: [0.2, 0.2, 0.2, 0.2, 2],
  weights: [2, 0, 0, 0, 0],
  bias: 0,
  isotonic: { x: [0.2, 0.5, 0.8], y: [0, 0.4, 0.9] },
};

describe('confidenceFeatures', () => {
  it('gives the mean and geometric mean token posterior, the blank share, the lowest word and tokens per second', () => {
    const f = confidenceFeatures(
      hypothesis(
        [0.9, 0.4],
        [
          [0, 2],
          [5, 6],
        ],
        [0.9, 0.4],
      ),
      10,
      40,
    )!;
    expect(f).toHaveLength(CONFIDENCE_FEATURES.length);
    expect(f[0]).toBeCloseTo(0.65, 10);
    expect(f[1]).toBeCloseTo(Math.sqrt(0.36), 10);
    expect(f[2]).toBeCloseTo(0.7, 10); // 3 of 10 frames spanned by tokens
    expect(f[3]).toBe(0.4);
    expect(f[4]).toBeCloseTo(2 / 0.4, 10); // 2 tokens in 10 frames of 40 ms
  });

  it('has no features for a piece that emitted nothing', () => {
    expect(confidenceFeatures(hypothesis([], [], []), 10, 40)).toBeNull();
  });
});

describe('calibratedConfidence', () => {
  const calibration = parseConfidenceCalibration(valid);

  it('maps the logistic output through the isotonic knots, flat outside them, within [0, 1]', () => {
    // z = 2 (x0 - 0.5) / 0.2: x0 = 0.5 gives p = 0.5, exactly the middle knot
    expect(calibratedConfidence(calibration, [0.5, 0, 0, 0, 0])).toBe(0.4);
    expect(calibratedConfidence(calibration, [-5, 0, 0, 0, 0])).toBe(0);
    expect(calibratedConfidence(calibration, [5, 0, 0, 0, 0])).toBe(0.9);
    const p = 1 / (1 + Math.exp((-2 * (0.6 - 0.5)) / 0.2)); // between the 0.5 and 0.8 knots
    expect(calibratedConfidence(calibration, [0.6, 0, 0, 0, 0])).toBeCloseTo(0.4 + ((p - 0.5) / 0.3) * 0.5, 4);
  });

  it('never falls as the scores rise (monotone in a feature with a positive weight)', () => {
    let last = -1;
    for (let x = -1; x <= 2; x += 0.01) {
      const c = calibratedConfidence(calibration, [x, 0, 0, 0, 0]);
      expect(c).toBeGreaterThanOrEqual(last);
      expect(c).toBeGreaterThanOrEqual(0);
      expect(c).toBeLessThanOrEqual(1);
      last = c;
    }
  });

  it('is the logistic output itself without isotonic knots', () => {
    const plain = parseConfidenceCalibration({ ...valid, isotonic: null });
    expect(calibratedConfidence(plain, [0.5, 0, 0, 0, 0])).toBe(0.5);
  });
});

describe('parseConfidenceCalibration', () => {
  it('refuses files that do not hold the rules', () => {
    const bad = (patch: Record<string, unknown>) => () => parseConfidenceCalibration({ ...valid, ...patch });
    expect(bad({ features: ['mean_token_probability'] })).toThrow(/features/);
    expect(bad({ std: [0.2, 0, 0.2, 0.2, 2] })).toThrow(/std/);
    expect(bad({ weights: [1, 2] })).toThrow(/weights/);
    expect(bad({ bias: 'x' })).toThrow(/bias/);
    expect(bad({ isotonic: { x: [0.5, 0.4], y: [0, 1] } })).toThrow(/rise/);
    expect(bad({ isotonic: { x: [0.2, 0.4], y: [0.5, 0.1] } })).toThrow(/rise/);
    expect(bad({ isotonic: { x: [0.2, 1.4], y: [0, 1] } })).toThrow(/\[0, 1\]/);
    expect(() => parseConfidenceCalibration([])).toThrow(/object/);
  });
});

describe('fitIsotonic', () => {
  it('pools adjacent violators into a non-decreasing fit', () => {
    const fit = fitIsotonic([
      { x: 0.1, y: 0.2 },
      { x: 0.2, y: 0.0 },
      { x: 0.3, y: 0.6 },
      { x: 0.4, y: 0.5 },
      { x: 0.5, y: 1 },
    ]);
    expect(fit.y).toEqual([0.1, 0.55, 1]);
    expect(fit.x[0]).toBeCloseTo(0.15, 10);
    expect(fit.x[1]).toBeCloseTo(0.35, 10);
    for (let i = 1; i < fit.x.length; i++) {
      expect(fit.x[i]!).toBeGreaterThan(fit.x[i - 1]!);
      expect(fit.y[i]!).toBeGreaterThanOrEqual(fit.y[i - 1]!);
    }
  });

  it('fits an already increasing series exactly, and the result parses as a calibration', () => {
    const rows = [0.1, 0.3, 0.6, 0.9].map((x) => ({ x, y: x }));
    const fit = fitIsotonic(rows);
    expect(fit).toEqual({ x: [0.1, 0.3, 0.6, 0.9], y: [0.1, 0.3, 0.6, 0.9] });
    expect(() => parseConfidenceCalibration({ ...valid, isotonic: fit })).not.toThrow();
  });

  it('weights rows', () => {
    const fit = fitIsotonic([
      { x: 0.2, y: 1, weight: 1 },
      { x: 0.4, y: 0, weight: 3 },
    ]);
    expect(fit.y).toEqual([0.25]);
  });
});
