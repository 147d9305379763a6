/**
 * Speaker labels of the embedded windows (one per window, 0.. in order of first appearance): the
 * count and the clusters within the speaker bounds (at most MAX_SPEAKERS) by the backend's
 * clustering (speaker-clustering.ts), similar and small clusters merged, then rounds of Viterbi
 * re-segmentation against the clusters' centroids. Takes unit-length embeddings in time order. Pure.
 */
import { type BackendParameters, MAX_SPEAKERS } from './diarization-backends.js';
import {
  clusterCentroids,
  clusterEmbeddings,
  clusterInBlocks,
  dot,
  eigengapCount,
  numberByFirstAppearance,
  spectralClusters,
  viterbi,
} from './speaker-clustering.js';

/** The windows' speaker labels, with `minSpeakers` / `maxSpeakers` (null: unbounded, up to MAX_SPEAKERS) as bounds. */
export function clusterWindows(
  embeddings: readonly Float32Array[],
  minSpeakers: number | null,
  maxSpeakers: number | null,
  parameters: BackendParameters,
): number[] {
  const maxClusters = Math.min(maxSpeakers ?? MAX_SPEAKERS, MAX_SPEAKERS, embeddings.length);
  let bounds = { threshold: parameters.threshold, minClusters: Math.min(minSpeakers ?? 1, maxClusters), maxClusters };
  let labels: number[];
  if (parameters.eigengapNeighbours.length > 0 && parameters.clustering === 'spectral') {
    labels = spectralClusters(embeddings, bounds, parameters.eigengapNeighbours, parameters.eigengapPoints);
    // The eigengap can split one speaker (short files above all); a given count stays as it is.
    if (bounds.minClusters < bounds.maxClusters) labels = mergeSimilarClusters(embeddings, labels, parameters.mergeSimilarity, bounds.minClusters);
  } else {
    if (parameters.eigengapNeighbours.length > 0 && bounds.minClusters < bounds.maxClusters) {
      const count = eigengapCount(embeddings, bounds, parameters.eigengapNeighbours, parameters.eigengapPoints);
      bounds = { ...bounds, minClusters: count, maxClusters: count };
    }
    labels = embeddings.length <= parameters.blockSize ? clusterEmbeddings(embeddings, bounds) : clusterInBlocks(embeddings, bounds, parameters.blockSize);
    // Window linkage splits a voice whose windows scatter (short, noisy windows); cluster centroids average that out.
    if (bounds.minClusters < bounds.maxClusters) labels = mergeSimilarClusters(embeddings, labels, parameters.mergeSimilarity, bounds.minClusters);
  }
  if (parameters.mergeAboveFileMedian > 0 && bounds.minClusters < bounds.maxClusters) {
    labels = mergeAboveMedian(embeddings, labels, parameters.mergeAboveFileMedian, Math.max(2, bounds.minClusters));
  }
  labels = mergeSmallClusters(embeddings, labels, parameters.minClusterShare, Math.min(minSpeakers ?? 1, maxClusters));
  for (let round = 0; round < parameters.refinements; round++) labels = relabel(embeddings, labels, parameters.switchCost);
  return labels;
}

/**
 * The smallest cluster, while it holds fewer than `minShare` of the windows and more than
 * `minClusters` clusters remain, is merged into the cluster whose centroid is most similar to its own.
 */
export function mergeSmallClusters(embeddings: readonly Float32Array[], labels: readonly number[], minShare: number, minClusters: number): number[] {
  return mergeClustersWhile(embeddings, labels, minClusters, (centroids, out) => {
    const sizes = new Array<number>(centroids.length).fill(0);
    for (const label of out) sizes[label]!++;
    const smallest = sizes.indexOf(Math.min(...sizes));
    if (sizes[smallest]! >= minShare * out.length) return null;
    let target = -1;
    let top = Number.NEGATIVE_INFINITY;
    centroids.forEach((c, label) => {
      if (label === smallest) return;
      const s = dot(c, centroids[smallest]!);
      if (s > top) {
        top = s;
        target = label;
      }
    });
    return { from: smallest, into: target };
  });
}

/** The most similar pair of clusters (cosine of their centroids), while over `minSimilarity` and more than `minClusters` remain, merges. */
export function mergeSimilarClusters(embeddings: readonly Float32Array[], labels: readonly number[], minSimilarity: number, minClusters: number): number[] {
  return mergeClustersWhile(embeddings, labels, minClusters, (centroids) => {
    let pair = [-1, -1];
    let top = Number.NEGATIVE_INFINITY;
    for (let a = 0; a < centroids.length; a++) {
      for (let b = a + 1; b < centroids.length; b++) {
        const s = dot(centroids[a]!, centroids[b]!);
        if (s > top) {
          top = s;
          pair = [a, b];
        }
      }
    }
    if (top <= minSimilarity) return null;
    return { from: pair[1]!, into: pair[0]! };
  });
}

/** While more than `minClusters` remain, the most similar pair merges if its cosine exceeds the median pair's by `margin`. */
export function mergeAboveMedian(embeddings: readonly Float32Array[], labels: readonly number[], margin: number, minClusters: number): number[] {
  return mergeClustersWhile(embeddings, labels, minClusters, (centroids) => {
    const pairs: { s: number; a: number; b: number }[] = [];
    for (let a = 0; a < centroids.length; a++) for (let b = a + 1; b < centroids.length; b++) pairs.push({ s: dot(centroids[a]!, centroids[b]!), a, b });
    pairs.sort((x, y) => x.s - y.s);
    const mid = pairs.length >> 1;
    const median = pairs.length % 2 === 1 ? pairs[mid]!.s : (pairs[mid - 1]!.s + pairs[mid]!.s) / 2;
    const top = pairs[pairs.length - 1]!;
    return top.s - median > margin ? { from: top.b, into: top.a } : null;
  });
}

/**
 * Labels renumbered by first appearance, then, while more than `minClusters` clusters remain and
 * `choose` names a merge (null: stop), cluster `from` joins `into` and the labels are renumbered.
 */
function mergeClustersWhile(
  embeddings: readonly Float32Array[],
  labels: readonly number[],
  minClusters: number,
  choose: (centroids: Float32Array[], labels: readonly number[]) => { from: number; into: number } | null,
): number[] {
  let out = numberByFirstAppearance(labels);
  for (;;) {
    const centroids = clusterCentroids(embeddings, out);
    if (centroids.length <= Math.max(1, minClusters)) break;
    const merge = choose(centroids, out);
    if (merge === null) break;
    out = numberByFirstAppearance(out.map((label) => (label === merge.from ? merge.into : label)));
  }
  return out;
}

/**
 * Each window moves to its nearest centroid, or (switchCost > 0) the windows take the best
 * sequence of centroids by cosine similarity where each change of speaker costs `switchCost`
 * (Viterbi, linear in the windows); empty clusters vanish; labels renumbered by first appearance.
 */
function relabel(embeddings: readonly Float32Array[], labels: readonly number[], switchCost: number): number[] {
  const centroids = clusterCentroids(embeddings, labels);
  const k = centroids.length;
  if (k <= 1) return [...labels];
  const score = new Float64Array(embeddings.length * k);
  embeddings.forEach((e, i) => {
    centroids.forEach((c, j) => {
      score[i * k + j] = dot(e, c);
    });
  });
  return numberByFirstAppearance(Array.from(viterbi(score, embeddings.length, k, switchCost)));
}
