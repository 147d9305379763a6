import { describe, expect, it } from 'vitest';
import { mergeAboveMedian, mergeSimilarClusters, mergeSmallClusters } from './window-clustering.js';

const unit = (...v: number[]): Float32Array => {
  const n = Math.hypot(...v);
  return Float32Array.from(v, (x) => x / n);
};

describe('mergeSimilarClusters', () => {
  // Clusters 0 and 2 are one direction split in two (centroids 0.98 alike); cluster 1 points away.
  const embeddings = [unit(1, 0.1), unit(1, 0.2), unit(-1, 0.1), unit(-1, -0.1), unit(1, 0.3), unit(1, 0.4)];
  const labels = [0, 0, 1, 1, 2, 2];

  it('merges the most similar pair while it is over the similarity, renumbering by first appearance', () => {
    expect(mergeSimilarClusters(embeddings, labels, 0.5, 1)).toEqual([0, 0, 1, 1, 0, 0]);
    expect(mergeSimilarClusters(embeddings, [2, 2, 0, 0, 1, 1], 0.5, 1)).toEqual([0, 0, 1, 1, 0, 0]);
  });

  it('leaves clusters apart under the similarity and never goes below the minimum', () => {
    expect(mergeSimilarClusters(embeddings, labels, 0.99, 1)).toEqual(labels);
    expect(mergeSimilarClusters(embeddings, labels, -1, 2)).toEqual([0, 0, 1, 1, 0, 0]);
    expect(mergeSimilarClusters(embeddings, labels, -1, 3)).toEqual(labels);
    expect(mergeSimilarClusters(embeddings, labels, -1, 1)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});

describe('mergeSmallClusters', () => {
  // Cluster 0 (8 windows) near x, cluster 1 (8) near y, cluster 2 (1 window) nearer y than x.
  const embeddings = [...Array.from({ length: 8 }, () => unit(1, 0.1)), ...Array.from({ length: 8 }, () => unit(0.1, 1)), unit(0.3, 1)];
  const labels = [...Array(8).fill(0), ...Array(8).fill(1), 2];

  it('merges a cluster under the share into its most similar cluster', () => {
    expect(mergeSmallClusters(embeddings, labels, 0.1, 1)).toEqual([...Array(8).fill(0), ...Array(9).fill(1)]);
  });

  it('keeps clusters at or over the share, and never goes below the minimum', () => {
    expect(mergeSmallClusters(embeddings, labels, 0.05, 1)).toEqual(labels);
    expect(mergeSmallClusters(embeddings, labels, 0.6, 2)).toEqual([...Array(8).fill(0), ...Array(9).fill(1)]);
    expect(mergeSmallClusters(embeddings, labels, 0.1, 3)).toEqual(labels);
  });
});

describe('mergeAboveMedian', () => {
  it("merges the pair that stands out from the file's other pairs, down to the minimum", () => {
    // Four clusters in the plane: 0 and 3 one voice split in two (cosine 0.8), 1 and 2 apart from them and each other.
    const embeddings = [unit(1, 0), unit(0, 1), unit(-1, -0.2), unit(0.8, -0.6)];
    // 0 and 3 merge; of the three clusters left no pair stands out, so it stops there.
    expect(mergeAboveMedian(embeddings, [0, 1, 2, 3], 0.3, 2)).toEqual([0, 1, 2, 0]);
    expect(mergeAboveMedian(embeddings, [0, 1, 2, 3], 0.3, 3)).toEqual([0, 1, 2, 0]);
    expect(mergeAboveMedian(embeddings, [0, 1, 2, 3], 0.3, 4)).toEqual([0, 1, 2, 3]);
    // A margin wider than the gap between the pair and the median merges nothing.
    expect(mergeAboveMedian(embeddings, [0, 1, 2, 3], 2, 2)).toEqual([0, 1, 2, 3]);
  });

  it('leaves evenly spread clusters alone, and never merges the last two (one pair is its own median)', () => {
    const spread = [unit(1, 0), unit(-0.5, Math.sqrt(3) / 2), unit(-0.5, -Math.sqrt(3) / 2)];
    expect(mergeAboveMedian(spread, [0, 1, 2], 0.3, 2)).toEqual([0, 1, 2]);
    expect(mergeAboveMedian([unit(1, 0), unit(1, 0.1)], [0, 1], 0.3, 1)).toEqual([0, 1]);
  });
});
