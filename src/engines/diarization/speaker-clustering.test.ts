import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../training/common/seeded-random.js';
import { clusterEmbeddings, eigengapCount, normalize, spectralClusters, viterbi } from './speaker-clustering.js';

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

/** Fraction of points whose label agrees with their true group under the best one-to-one mapping (groups of `perCluster` in turn). */
function purity(labels: readonly number[], perCluster: number): number {
  let right = 0;
  const groups = Math.ceil(labels.length / perCluster);
  const used = new Set<number>();
  for (let g = 0; g < groups; g++) {
    const counts = new Map<number, number>();
    for (const label of labels.slice(g * perCluster, (g + 1) * perCluster)) counts.set(label, (counts.get(label) ?? 0) + 1);
    const [label, count] = [...counts].filter(([l]) => !used.has(l)).sort((a, b) => b[1] - a[1])[0] ?? [-1, 0];
    used.add(label);
    right += count;
  }
  return right / labels.length;
}

describe('spectralClusters', () => {
  it('finds well separated groups, with the count found or given', () => {
    for (const groups of [2, 3, 5]) {
      const points = clustered(groups, 40, 8, 0.3, 20 + groups);
      const found = spectralClusters(points, { minClusters: 1, maxClusters: 10 }, [0.1, 0.2]);
      expect(new Set(found).size).toBe(groups);
      expect(purity(found, 40)).toBe(1);
      const given = spectralClusters(points, { minClusters: groups, maxClusters: groups }, [0.1, 0.2]);
      expect(purity(given, 40)).toBe(1);
    }
  });

  it('labels every embedding of a long input from a sample, numbered by first appearance', () => {
    const points = clustered(3, 400, 8, 0.4, 5);
    const labels = spectralClusters(points, { minClusters: 1, maxClusters: 10 }, 0.1, 90);
    expect(labels).toHaveLength(1200);
    expect(labels[0]).toBe(0);
    expect(new Set(labels).size).toBe(3);
    expect(purity(labels, 400)).toBeGreaterThan(0.97);
  });

  it('separates two noisy, overlapping groups better than average-linkage clustering does', () => {
    // Two groups 60° apart with wide noise (the pair of similar voices that drove the change).
    const random = seededRandom(78);
    const points: Float32Array[] = [];
    for (const angle of [0, Math.PI / 3]) {
      for (let i = 0; i < 60; i++) {
        const v = Float32Array.from({ length: 6 }, () => 0.5 * (random() * 2 - 1));
        v[0]! += Math.cos(angle);
        v[1]! += Math.sin(angle);
        points.push(normalize(v));
      }
    }
    const spectral = purity(spectralClusters(points, { minClusters: 2, maxClusters: 2 }, [0.1, 0.2]), 60);
    const agglomerative = purity(clusterEmbeddings(points, { threshold: 1, minClusters: 2, maxClusters: 2 }), 60);
    expect(spectral).toBeGreaterThan(0.92);
    expect(spectral).toBeGreaterThan(agglomerative + 0.05);
  });

  it('keeps one cluster for one speaker and copes with fewer windows than the count', () => {
    expect(new Set(spectralClusters(clustered(1, 50, 8, 0.3, 3), { minClusters: 1, maxClusters: 1 }, 0.1))).toEqual(new Set([0]));
    const few = clustered(3, 1, 8, 0.1, 4);
    expect(new Set(spectralClusters(few, { minClusters: 3, maxClusters: 3 }, 0.1)).size).toBe(3);
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

describe('clusterEmbeddings', () => {
  const unit = (...v: number[]) => {
    const n = Math.hypot(...v);
    return Float32Array.from(v, (x) => x / n);
  };
  const points = [unit(1, 0.1), unit(1, 0.2), unit(0.1, 1), unit(0.2, 1), unit(-1, 0.1)];

  it('stops merging below the threshold and numbers clusters by first appearance', () => {
    expect(clusterEmbeddings(points, { threshold: 0.5, minClusters: 1, maxClusters: 20 })).toEqual([0, 0, 1, 1, 2]);
  });

  it('honours the speaker bounds over the threshold', () => {
    expect(new Set(clusterEmbeddings(points, { threshold: 0.5, minClusters: 1, maxClusters: 2 })).size).toBe(2);
    expect(new Set(clusterEmbeddings(points, { threshold: -1, minClusters: 4, maxClusters: 20 })).size).toBe(4);
  });
});
