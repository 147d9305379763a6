import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../test/helpers/seeded-random.js';
import { eigengapCount, normalize, viterbi } from './speaker-clustering.js';

/** `perCluster` noisy unit vectors around each of `centres` (orthogonal axes of `dim`), in turns. */
function clustered(centres: number, perCluster: number, dim: number, noise: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const out: Float32Array[] = [];
  for (let c = 0; c < centres; c++) {
    for (let i = 0; i < perCluster; i++) {
      const v = Float32Array.from({ length: dim }, () => noise * (random() * 2 - 1));
      v[c]! += 1;
      out.push(normalize(v));
    }
  }
  return out;
}

describe('eigengapCount', () => {
  it('finds the number of well separated groups', () => {
    for (const groups of [2, 3, 5]) expect(eigengapCount(clustered(groups, 40, 8, 0.3, groups), { minClusters: 1, maxClusters: 10 }, 0.1)).toBe(groups);
  });

  it('stays within the bounds and on a subsample of long inputs', () => {
    const points = clustered(4, 200, 8, 0.3, 9);
    expect(eigengapCount(points, { minClusters: 1, maxClusters: 10 }, 0.1, 100)).toBe(4);
    expect(eigengapCount(points, { minClusters: 1, maxClusters: 2 }, 0.1)).toBeLessThanOrEqual(2);
    expect(eigengapCount(points, { minClusters: 6, maxClusters: 10 }, 0.1)).toBeGreaterThanOrEqual(6);
  });
});

describe('viterbi', () => {
  // Scores [frame][state]: state 1 wins frames 2-3 and 6 by a little.
  const score = Float64Array.from([1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0.4, 0.6, 1, 0]);

  it('follows the best state at no switching cost', () => {
    expect(Array.from(viterbi(score, 8, 2, 0))).toEqual([0, 0, 1, 1, 0, 0, 1, 0]);
  });

  it('keeps a short excursion away when a change costs more than it gains', () => {
    expect(Array.from(viterbi(score, 8, 2, 0.5))).toEqual([0, 0, 1, 1, 0, 0, 0, 0]);
    expect(Array.from(viterbi(score, 8, 2, 5))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
