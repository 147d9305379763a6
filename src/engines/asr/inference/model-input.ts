import { LogMelExtractor } from '../../signal/features/log-mel-features.js';
import type { ModelInput } from '../models/model-manifest.js';

/** What a model's audio input gets for one utterance. */
export interface PreparedInput {
  /** Row-major [length] (waveform) or [length, featureDim] (features). */
  readonly data: Float32Array;
  /** Time steps: samples for waveform input, frames for features. */
  readonly length: number;
  /** 0 for a waveform (input rank 2, [batch, samples]); n_mels for features (rank 3). */
  readonly featureDim: number;
}

/** Variance floor of wav2vec2-style zero-mean unit-variance normalisation. */
const WAVEFORM_EPSILON = 1e-7;

/**
 * Turns 16 kHz mono PCM into a model's input as its manifest describes: the waveform as is,
 * the waveform normalised per utterance, or log-mel features. Holds the precomputed FFT and
 * filterbank, so keep one per model; not re-entrant (single-threaded use).
 */
export class InputPreparer {
  private readonly mel: LogMelExtractor | null;

  constructor(readonly input: ModelInput) {
    this.mel = input.kind === 'log_mel' ? new LogMelExtractor(input) : null;
  }

  get featureDim(): number {
    return this.input.kind === 'log_mel' ? this.input.nMels : 0;
  }

  /**
   * Lifetime: for `normalize: none` waveform input the result shares `pcm` (no copy), so the
   * caller keeps `pcm` unchanged until the model has run; otherwise the result is fresh.
   */
  prepare(pcm: Float32Array): PreparedInput {
    if (this.mel !== null) {
      const data = this.mel.compute(pcm);
      return { data, length: data.length / this.mel.params.nMels, featureDim: this.mel.params.nMels };
    }
    if (this.input.kind === 'waveform' && this.input.normalize === 'zero_mean_unit_var') {
      return { data: normalizeWaveform(pcm), length: pcm.length, featureDim: 0 };
    }
    return { data: pcm, length: pcm.length, featureDim: 0 };
  }
}

function normalizeWaveform(pcm: Float32Array): Float32Array {
  const n = pcm.length;
  if (n === 0) return new Float32Array(0);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += pcm[i]!;
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) {
    const d = pcm[i]! - mean;
    sq += d * d;
  }
  const scale = 1 / Math.sqrt(sq / n + WAVEFORM_EPSILON);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (pcm[i]! - mean) * scale;
  return out;
}
