import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FRAME_FEATURES, OVERLAP_FEATURES, overlapProbabilities, overlapRegions, parseOverlapDetector } from './overlap-detector.js';
import { secondSpeakers } from './speaker-turns.js';

const reference = JSON.parse(readFileSync(new URL('../../../test/fixtures/models/overlap-gru-reference.json', import.meta.url), 'utf8')) as {
  model: Record<string, unknown>;
  input: number[][];
  probabilities: number[];
};

describe('overlap detector', () => {
  it("runs a bidirectional GRU as PyTorch does, from PyTorch's state_dict names", () => {
    const detector = parseOverlapDetector(reference.model);
    const probabilities = overlapProbabilities(Float32Array.from(reference.input.flat()), detector);
    expect(probabilities).toHaveLength(reference.probabilities.length);
    probabilities.forEach((p, t) => expect(p).toBeCloseTo(reference.probabilities[t]!, 5));
  });

  it('also reads the tensors under a `gru.` prefix', () => {
    const prefixed = Object.fromEntries(Object.entries(reference.model).map(([k, v]) => [k.includes('_l0') ? `gru.${k}` : k, v]));
    const probabilities = overlapProbabilities(Float32Array.from(reference.input.flat()), parseOverlapDetector(prefixed));
    expect(probabilities[3]).toBeCloseTo(reference.probabilities[3]!, 5);
  });

  it('refuses a model of another shape or without its settings', () => {
    const { threshold: _t, ...noThreshold } = reference.model;
    expect(() => parseOverlapDetector(noThreshold)).toThrow(/threshold/);
    expect(() => parseOverlapDetector({ ...reference.model, features: OVERLAP_FEATURES.slice(1) })).toThrow(/features/);
    expect(() => parseOverlapDetector({ ...reference.model, hidden: 4 })).toThrow(/weight_ih_l0/);
    expect(() => parseOverlapDetector({ ...reference.model, 'out.bias': [] })).toThrow(/out\.bias/);
    expect(() => parseOverlapDetector({ ...reference.model, min_frames: 0 })).toThrow(/min_frames/);
    expect(FRAME_FEATURES).toBe(OVERLAP_FEATURES.length);
  });
});

describe('overlapRegions', () => {
  const speech = new Uint8Array(20).fill(1);
  it('keeps runs over the threshold after a 5-frame median, at least minFrames long, inside speech', () => {
    const p = new Float32Array(20);
    p.fill(0.9, 4, 12); // a run of 8
    p[15] = 0.99; // a lone spike: the median drops it
    expect(overlapRegions(p, speech, 0.5, 3)).toEqual([{ start: 4, end: 12 }]);
    expect(overlapRegions(p, speech, 0.5, 9)).toEqual([]);
    expect(overlapRegions(p, speech, 0.95, 1)).toEqual([]);
    const gap = speech.slice();
    gap.fill(0, 7, 9);
    expect(overlapRegions(p, gap, 0.5, 3)).toEqual([
      { start: 4, end: 7 },
      { start: 9, end: 12 },
    ]);
  });
});

describe('secondSpeakers', () => {
  it('gives each side of a change inside the region the other side, and a region inside one turn the nearest other speaker', () => {
    const labels = Int32Array.from([0, 0, 0, 0, 1, 1, 1, 1, -1, -1, 1, 1, 1, 1, 1, 1, 2, 2]);
    const second = secondSpeakers(labels, [
      { start: 2, end: 6 },
      { start: 11, end: 13 },
    ]);
    expect(Array.from(second)).toEqual([-1, -1, 1, 1, 0, 0, -1, -1, -1, -1, -1, 2, 2, -1, -1, -1, -1, -1]);
  });

  it('takes the nearer side, before or after, and leaves a one-speaker file alone', () => {
    const labels = Int32Array.from([2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(Array.from(secondSpeakers(labels, [{ start: 2, end: 4 }]).subarray(2, 4))).toEqual([2, 2]);
    expect(Array.from(secondSpeakers(labels, [{ start: 7, end: 9 }]).subarray(7, 9))).toEqual([1, 1]);
    expect(Array.from(secondSpeakers(new Int32Array(6), [{ start: 1, end: 4 }]))).toEqual([-1, -1, -1, -1, -1, -1]);
  });
});
