/**
 * Clusters of one voice merged by the Bayesian information criterion on their frames (Chen and
 * Gopalakrishnan 1998, as LIUM and many clustering diarizers use it): each cluster's MFCC frames
 * (centred on the file's speech mean) modelled by one full-covariance Gaussian, two clusters merge
 * when one Gaussian explains both at least as well once its fewer parameters are counted:
 *   ΔBIC = ½ (n ln|Σ| − n₁ ln|Σ₁| − n₂ ln|Σ₂|) − λ · ½ (D + D(D + 1)/2) · ln n   (n = n₁ + n₂).
 * Unlike the windows' cosines on the file's principal directions, whose scale depends on how many
 * voices the file holds, this weighs all of a cluster's frames against the same yardstick in every file.
 *
 * Rules:
 * - A cluster's frames are the speech frames the windows' vote gives it (frame-labels.ts).
 * - While more than `minClusters` clusters remain, the pair of lowest ΔBIC merges when it is under 0;
 *   the merged statistics are the sums of both.
 * Pure; one pass over the speech frames, then D×D determinants per pair and merge.
 */
import { numberByFirstAppearance } from './speaker-clustering.js';
import { logDeterminantPositiveDefinite } from './speaker-linear-algebra.js';

/** Frames, sum and sum of outer products of a cluster's D-dimensional frames. */
interface GaussianStatistics {
  n: number;
  readonly sum: Float64Array;
  readonly outer: Float64Array;
}

/** Covariance regularisation (on the diagonal), against the determinant of a cluster of few frames. */
const RIDGE = 1e-3;

/** Window labels with clusters of one voice merged by ΔBIC with penalty weight `lambda` (renumbered by first appearance). */
export function mergeSameVoices(
  centred: Float32Array,
  dims: number,
  speech: Uint8Array,
  frameLabels: Int32Array,
  windowLabels: readonly number[],
  lambda: number,
  minClusters: number,
): number[] {
  let clusters = 0;
  for (const label of windowLabels) if (label + 1 > clusters) clusters = label + 1;
  if (clusters <= Math.max(1, minClusters)) return [...windowLabels];
  const stats: GaussianStatistics[] = Array.from({ length: clusters }, () => ({ n: 0, sum: new Float64Array(dims), outer: new Float64Array(dims * dims) }));
  for (let t = 0; t < frameLabels.length; t++) {
    const label = frameLabels[t]!;
    if (label < 0 || speech[t] === 0) continue;
    const s = stats[label]!;
    s.n++;
    for (let i = 0; i < dims; i++) {
      const x = centred[t * dims + i]!;
      s.sum[i]! += x;
      for (let j = 0; j <= i; j++) s.outer[i * dims + j]! += x * centred[t * dims + j]!;
    }
  }
  const penalty = 0.5 * lambda * (dims + (dims * (dims + 1)) / 2);
  const into = Array.from({ length: clusters }, (_, k) => k);
  const alive = new Set(into.filter((k) => stats[k]!.n > dims));
  while (alive.size > Math.max(1, minClusters)) {
    let best = { a: -1, b: -1, delta: Number.POSITIVE_INFINITY };
    const ids = [...alive];
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        const a = stats[ids[i]!]!;
        const b = stats[ids[j]!]!;
        const joined = combined(a, b, dims);
        const delta = 0.5 * (joined.n * logDetCovariance(joined, dims) - a.n * logDetCovariance(a, dims) - b.n * logDetCovariance(b, dims)) - penalty * Math.log(joined.n);
        if (delta < best.delta) best = { a: ids[i]!, b: ids[j]!, delta };
      }
    }
    if (!(best.delta < 0)) break;
    stats[best.a] = combined(stats[best.a]!, stats[best.b]!, dims);
    alive.delete(best.b);
    for (let k = 0; k < clusters; k++) if (into[k] === best.b) into[k] = best.a;
  }
  return numberByFirstAppearance(windowLabels.map((label) => into[label]!));
}

function combined(a: GaussianStatistics, b: GaussianStatistics, dims: number): GaussianStatistics {
  const sum = new Float64Array(dims);
  const outer = new Float64Array(dims * dims);
  for (let i = 0; i < dims; i++) sum[i] = a.sum[i]! + b.sum[i]!;
  for (let i = 0; i < dims * dims; i++) outer[i] = a.outer[i]! + b.outer[i]!;
  return { n: a.n + b.n, sum, outer };
}

/** ln|Σ| of the statistics' maximum-likelihood covariance (lower triangle of `outer` used), with a small ridge. */
function logDetCovariance(s: GaussianStatistics, dims: number): number {
  const covariance = new Float64Array(dims * dims);
  for (let i = 0; i < dims; i++) {
    for (let j = 0; j <= i; j++) {
      const c = s.outer[i * dims + j]! / s.n - (s.sum[i]! / s.n) * (s.sum[j]! / s.n);
      covariance[i * dims + j] = c;
      covariance[j * dims + i] = c;
    }
    covariance[i * dims + i]! += RIDGE;
  }
  return logDeterminantPositiveDefinite(covariance, dims);
}
