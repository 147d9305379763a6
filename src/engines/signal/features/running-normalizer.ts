// Causal per-channel feature normalisation for live streams (issue 30): each frame is normalised
// by the mean and standard deviation (n - 1) of the frames so far, itself included, with a prior
// of `priorFrames` frames of fixed statistics (a model's stream-stats.json: log-mel statistics of
// training speech) in the sums, so that the first frames are not normalised by themselves alone.
// A frame's result never changes once computed (what a per-utterance normaliser cannot give).
import { NORMALIZE_EPSILON } from './log-mel-features.js';

export interface FeatureStatistics {
  readonly mean: readonly number[];
  readonly std: readonly number[];
  /** Frames' worth of weight the statistics carry in the running sums. */
  readonly priorFrames: number;
}

export class RunningNormalizer {
  private readonly sum: Float64Array;
  private readonly sumSquares: Float64Array;
  private count: number;

  constructor(stats: FeatureStatistics) {
    const channels = stats.mean.length;
    if (stats.std.length !== channels) throw new Error('mean and std have different lengths');
    this.sum = new Float64Array(channels);
    this.sumSquares = new Float64Array(channels);
    for (let c = 0; c < channels; c++) {
      this.sum[c] = stats.priorFrames * stats.mean[c]!;
      this.sumSquares[c] = stats.priorFrames * (stats.std[c]! ** 2 + stats.mean[c]! ** 2);
    }
    this.count = stats.priorFrames;
  }

  /** Normalises `features` ([frames, channels] row-major) in place, frame by frame, and returns them. */
  apply(features: Float32Array): Float32Array {
    const channels = this.sum.length;
    if (features.length % channels !== 0) throw new Error(`features are not whole frames of ${channels}`);
    for (let row = 0; row < features.length; row += channels) {
      this.count++;
      const n = this.count;
      for (let c = 0; c < channels; c++) {
        const x = features[row + c]!;
        const s1 = this.sum[c]! + x;
        const s2 = this.sumSquares[c]! + x * x;
        this.sum[c] = s1;
        this.sumSquares[c] = s2;
        const mean = s1 / n;
        const std = n > 1 ? Math.sqrt(Math.max(0, (s2 - n * mean * mean) / (n - 1))) : 0;
        features[row + c] = (x - mean) / (std + NORMALIZE_EPSILON);
      }
    }
    return features;
  }
}
