import { symmetricEigen, symmetricEigenvalues } from './speaker-linear-algebra.js';

/**
 * Agglomerative clustering of unit-length embeddings with average linkage on cosine similarity.
 * Merging stops when the closest pair is less similar than `threshold`, but always continues
 * past `maxClusters` and never goes below `minClusters`.
 *
 * Cost: O(n²) memory and about O(n²) time (each row caches its best partner; only rows that
 * pointed at a merged cluster are rescanned). `clusterInBlocks` bounds n for long audio.
 */
export interface ClusterBounds {
  readonly threshold: number;
  readonly minClusters: number;
  readonly maxClusters: number;
}

/** Cluster index per embedding, numbered 0.. in order of first appearance. */
export function clusterEmbeddings(embeddings: readonly Float32Array[], bounds: ClusterBounds, weights?: readonly number[]): number[] {
  const n = embeddings.length;
  if (n === 0) return [];
  const sim = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const s = dot(embeddings[i]!, embeddings[j]!);
      sim[i * n + j] = s;
      sim[j * n + i] = s;
    }
  }
  const size = Float64Array.from({ length: n }, (_, i) => weights?.[i] ?? 1);
  const alive = new Uint8Array(n).fill(1);
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const best = new Int32Array(n).fill(-1);
  const rescan = (i: number): void => {
    let arg = -1;
    let max = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < n; j++) {
      if (j === i || alive[j] === 0) continue;
      const s = sim[i * n + j]!;
      if (s > max) {
        max = s;
        arg = j;
      }
    }
    best[i] = arg;
  };
  for (let i = 0; i < n; i++) rescan(i);
  let clusters = n;
  const floor = Math.max(1, bounds.minClusters);
  while (clusters > floor) {
    let a = -1;
    let top = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      if (alive[i] === 0 || best[i]! < 0) continue;
      const s = sim[i * n + best[i]!]!;
      if (s > top) {
        top = s;
        a = i;
      }
    }
    if (a < 0) break;
    if (clusters <= bounds.maxClusters && top < bounds.threshold) break;
    const b = best[a]!;
    // Lance-Williams update for average linkage: the merged row is the size-weighted mean.
    const total = size[a]! + size[b]!;
    for (let k = 0; k < n; k++) {
      if (alive[k] === 0 || k === a || k === b) continue;
      const s = (size[a]! * sim[a * n + k]! + size[b]! * sim[b * n + k]!) / total;
      sim[a * n + k] = s;
      sim[k * n + a] = s;
    }
    size[a] = total;
    alive[b] = 0;
    parent[b] = a;
    clusters -= 1;
    for (let k = 0; k < n; k++) {
      if (alive[k] === 0) continue;
      if (k === a || best[k] === a || best[k] === b) rescan(k);
      else if (sim[k * n + a]! > sim[k * n + best[k]!]!) best[k] = a;
    }
  }
  const root = (i: number): number => {
    while (parent[i] !== i) i = parent[i]!;
    return i;
  };
  return numberByFirstAppearance(embeddings.map((_, i) => root(i)));
}

/**
 * Two-stage clustering for long audio: consecutive blocks of `blockSize` embeddings are clustered
 * on their own with a stricter threshold (fragments that surely are one speaker), then the
 * fragments' centroids, weighted by size, are clustered under the caller's bounds. Time and
 * memory grow linearly with the number of blocks for the first stage.
 */
export function clusterInBlocks(embeddings: readonly Float32Array[], bounds: ClusterBounds, blockSize: number, fragmentMargin = 0.15): number[] {
  if (embeddings.length <= blockSize) return clusterEmbeddings(embeddings, bounds);
  const fragmentOf = new Int32Array(embeddings.length);
  const centroids: Float32Array[] = [];
  const weights: number[] = [];
  for (let start = 0; start < embeddings.length; start += blockSize) {
    const block = embeddings.slice(start, start + blockSize);
    const labels = clusterEmbeddings(block, { threshold: Math.min(0.99, bounds.threshold + fragmentMargin), minClusters: 1, maxClusters: block.length });
    const base = centroids.length;
    const count = Math.max(...labels) + 1;
    for (let c = 0; c < count; c++) {
      centroids.push(new Float32Array(block[0]!.length));
      weights.push(0);
    }
    labels.forEach((label, i) => {
      fragmentOf[start + i] = base + label;
      addInto(centroids[base + label]!, block[i]!);
      weights[base + label]! += 1;
    });
  }
  for (const c of centroids) normalize(c);
  const fragmentLabels = clusterEmbeddings(centroids, bounds, weights);
  return numberByFirstAppearance(Array.from(fragmentOf, (fragment) => fragmentLabels[fragment]!));
}

/**
 * Best label sequence for per-frame scores [m][k] where staying costs nothing and any change
 * costs `penalty`: O(m·k) time, a back-pointer per frame and state.
 */
export function viterbi(score: Float64Array, m: number, k: number, penalty: number): Int32Array {
  const back = new Int32Array(m * k);
  let prev = new Float64Array(k);
  let next = new Float64Array(k);
  for (let s = 0; s < k; s++) prev[s] = score[s]!;
  for (let i = 1; i < m; i++) {
    let bestState = 0;
    for (let s = 1; s < k; s++) if (prev[s]! > prev[bestState]!) bestState = s;
    const switched = prev[bestState]! - penalty;
    for (let s = 0; s < k; s++) {
      if (prev[s]! >= switched) {
        next[s] = prev[s]! + score[i * k + s]!;
        back[i * k + s] = s;
      } else {
        next[s] = switched + score[i * k + s]!;
        back[i * k + s] = bestState;
      }
    }
    [prev, next] = [next, prev];
  }
  const path = new Int32Array(m);
  let state = 0;
  for (let s = 1; s < k; s++) if (prev[s]! > prev[state]!) state = s;
  for (let i = m - 1; i >= 0; i--) {
    path[i] = state;
    state = back[i * k + state]!;
  }
  return path;
}

/**
 * The number of speakers by the eigengap of a pruned affinity (spectral clustering's count): up
 * to `maxPoints` embeddings spread evenly over the file, cosine affinities of which each row keeps
 * its nearest `neighbours` share (binarised, symmetrised), the normalised affinity's eigenvalues
 * μ1 ≥ μ2 ≥ ... (one minus the normalised Laplacian's), and the k within [minClusters,
 * maxClusters] with the largest gap μk - μ(k+1). Several shares: each is tried and the one with
 * the smallest share / largest gap wins (the auto-tuned pruning of NME spectral clustering, Park
 * et al. 2020). Constant cost in the length (the sample is bounded).
 */
export function eigengapCount(
  embeddings: readonly Float32Array[],
  bounds: Pick<ClusterBounds, 'minClusters' | 'maxClusters'>,
  neighbours: number | readonly number[],
  maxPoints = 300,
): number {
  return prunedAffinityByEigengap(embeddings, bounds, neighbours, maxPoints).count;
}

/**
 * Spectral clustering (NME-SC, Park et al. 2020) on a bounded sample, then every embedding to the
 * nearest cluster centroid: the count and the pruned affinity as `eigengapCount` chooses them
 * (with minClusters = maxClusters the count is given and only the pruning is chosen), the
 * affinity's top `count` eigenvectors as coordinates of the sampled points (rows scaled to unit
 * length), k-means on them (farthest-first seeds from the first point, so the result is
 * deterministic), the clusters' centroids in the embedding space, and each embedding's nearest
 * centroid. Cost: cubic in the sample (at most `maxPoints`), linear in the embeddings.
 * Cluster ids are numbered in order of first appearance.
 */
export function spectralClusters(
  embeddings: readonly Float32Array[],
  bounds: Pick<ClusterBounds, 'minClusters' | 'maxClusters'>,
  neighbours: number | readonly number[],
  maxPoints = 300,
): number[] {
  const { points, count, affinity } = prunedAffinityByEigengap(embeddings, bounds, neighbours, maxPoints);
  if (count <= 1) return embeddings.map(() => 0);
  // Too few windows to choose from: agglomerative clustering to the count.
  if (affinity === null) return clusterEmbeddings(embeddings, { threshold: 1, minClusters: count, maxClusters: count });
  const n = points.length;
  const { vectors } = symmetricEigen(affinity, n);
  const coordinates = points.map((_, i) => normalize(Float32Array.from({ length: count }, (_, k) => vectors[i * n + k]!)));
  // A cluster k-means left empty has a zero centroid: it takes no embedding.
  const centroids = clusterCentroids(points, Array.from(kMeans(coordinates, count))).filter((c) => c.some((x) => x !== 0));
  return numberByFirstAppearance(embeddings.map((e) => nearest(e, centroids)));
}

/** Unit-length centroid of each cluster; `labels` numbered 0..k-1 (a label with no member gets a zero vector). */
export function clusterCentroids(embeddings: readonly Float32Array[], labels: readonly number[]): Float32Array[] {
  let k = 0;
  for (const label of labels) if (label + 1 > k) k = label + 1;
  const centroids = Array.from({ length: k }, () => new Float32Array(embeddings[0]?.length ?? 0));
  labels.forEach((label, i) => addInto(centroids[label]!, embeddings[i]!));
  return centroids.map(normalize);
}

/** Index of the most similar of `centroids` (unit vectors) to `v`. */
function nearest(v: Float32Array, centroids: readonly Float32Array[]): number {
  let arg = 0;
  let top = Number.NEGATIVE_INFINITY;
  centroids.forEach((c, j) => {
    const s = dot(v, c);
    if (s > top) {
      top = s;
      arg = j;
    }
  });
  return arg;
}

/** Lloyd's k-means on unit vectors by cosine, seeded farthest-first from point 0; at most 50 rounds. */
function kMeans(points: readonly Float32Array[], k: number): Int32Array {
  const seeds = [0];
  const closest = Float64Array.from(points, (p) => dot(p, points[0]!));
  while (seeds.length < k) {
    let far = 0;
    for (let i = 1; i < points.length; i++) if (closest[i]! < closest[far]!) far = i;
    seeds.push(far);
    points.forEach((p, i) => {
      closest[i] = Math.max(closest[i]!, dot(p, points[far]!));
    });
  }
  let centroids: Float32Array[] = seeds.map((s) => Float32Array.from(points[s]!));
  const labels = new Int32Array(points.length).fill(-1);
  for (let round = 0; round < 50; round++) {
    let moved = 0;
    points.forEach((p, i) => {
      const label = nearest(p, centroids);
      if (label !== labels[i]) moved++;
      labels[i] = label;
    });
    if (moved === 0) break;
    const next = centroids.map((c) => new Float32Array(c.length));
    points.forEach((p, i) => addInto(next[labels[i]!]!, p));
    // A cluster left empty keeps its centroid (it may win points back).
    centroids = next.map((c, j) => (c.some((x) => x !== 0) ? normalize(c) : centroids[j]!));
  }
  return labels;
}

/** Fewest neighbours an embedding keeps in the pruned affinity (short files would fall apart into islands with fewer). */
const MIN_NEIGHBOURS = 10;

/**
 * The sample, the eigengap's count within the bounds, and the normalised pruned affinity (n×n)
 * of the share that won; `affinity` is null when the sample has too few points for the bounds
 * (the count is then the sample size within the bounds).
 */
function prunedAffinityByEigengap(
  embeddings: readonly Float32Array[],
  bounds: Pick<ClusterBounds, 'minClusters' | 'maxClusters'>,
  neighbours: number | readonly number[],
  maxPoints: number,
): { points: Float32Array[]; count: number; affinity: Float64Array | null } {
  const lo = Math.max(1, bounds.minClusters);
  const step = Math.max(1, embeddings.length / maxPoints);
  const points: Float32Array[] = [];
  for (let at = 0; Math.floor(at) < embeddings.length; at += step) points.push(embeddings[Math.floor(at)]!);
  const n = points.length;
  const hi = Math.min(bounds.maxClusters, n - 1);
  if (hi < lo) return { points, count: Math.max(lo, Math.min(bounds.maxClusters, n)), affinity: null };
  const similarity = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) similarity[i * n + j] = dot(points[i]!, points[j]!);
  let best = { count: lo, affinity: null as Float64Array | null };
  let bestRatio = Number.POSITIVE_INFINITY;
  for (const share of typeof neighbours === 'number' ? [neighbours] : neighbours) {
    const affinity = prunedAffinity(similarity, n, Math.max(MIN_NEIGHBOURS, Math.round(share * n)));
    const { count, gap } = largestEigengap(symmetricEigenvalues(affinity, n), lo, hi);
    const ratio = share / Math.max(gap, 1e-9);
    if (ratio < bestRatio) {
      bestRatio = ratio;
      best = { count, affinity };
    }
  }
  return { points, ...best };
}

/** Each row keeps its `keep` most similar (binarised), symmetrised, normalised by the degrees: D^-½ A D^-½. */
function prunedAffinity(similarity: Float64Array, n: number, keep: number): Float64Array {
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    const row = similarity.subarray(i * n, (i + 1) * n);
    const cut = Float64Array.from(row).sort()[Math.max(0, n - keep)]!;
    for (let j = 0; j < n; j++) if (row[j]! >= cut) a[i * n + j] = 1;
  }
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      const s = (a[i * n + j]! + a[j * n + i]!) / 2;
      a[i * n + j] = s;
      a[j * n + i] = s;
    }
  }
  const degree = new Float64Array(n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) degree[i]! += a[i * n + j]!;
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j]! /= Math.sqrt(degree[i]! * degree[j]!);
  return a;
}

/** The k in [lo, hi] with the largest gap between the k-th and (k+1)-th of descending `values`. */
function largestEigengap(values: Float64Array, lo: number, hi: number): { count: number; gap: number } {
  let count = lo;
  let gap = Number.NEGATIVE_INFINITY;
  for (let k = lo; k <= hi; k++) {
    const g = values[k - 1]! - values[k]!;
    if (g > gap) {
      gap = g;
      count = k;
    }
  }
  return { count, gap };
}

/** Any cluster ids renumbered 0, 1, ... in order of first appearance. */
export function numberByFirstAppearance(ids: readonly number[]): number[] {
  const numbering = new Map<number, number>();
  return ids.map((id) => {
    let label = numbering.get(id);
    if (label === undefined) {
      label = numbering.size;
      numbering.set(id, label);
    }
    return label;
  });
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function addInto(target: Float32Array, source: Float32Array): void {
  for (let i = 0; i < target.length; i++) target[i]! += source[i]!;
}

export function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < v.length; i++) norm += v[i]! * v[i]!;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}
