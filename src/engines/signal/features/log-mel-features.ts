import { NativeLogMel } from './native-log-mel.js';
import { RealFft, type FftMethod } from './real-fft.js';

/** The log-mel front end a model declares (its manifest's `input`; docs/model-format.md). */
export interface LogMelInput {
  readonly kind: 'log_mel';
  readonly sampleRate: number;
  readonly nFft: number;
  readonly winLength: number;
  readonly hopLength: number;
  readonly nMels: number;
  readonly fMin: number;
  readonly fMax: number;
  readonly window: 'hann';
  readonly melScale: 'htk' | 'slaney';
  /** Filter area normalisation: `none` (torchaudio's default) or `slaney` (librosa's default). */
  readonly melNorm: 'none' | 'slaney';
  /** Frames centred on `t * hop_length` with reflect padding (torch.stft's default). */
  readonly center: boolean;
  /** 2 for a power spectrogram, 1 for magnitude. */
  readonly power: 1 | 2;
  readonly logFloor: number;
  readonly normalize: 'none' | 'per_utterance';
}

/** Epsilon added to the standard deviation in per-utterance normalisation. */
export const NORMALIZE_EPSILON = 1e-5;

const hzToMel = (hz: number, scale: 'htk' | 'slaney'): number => {
  if (scale === 'htk') return 2595 * Math.log10(1 + hz / 700);
  const fSp = 200 / 3;
  if (hz < 1000) return hz / fSp;
  return 1000 / fSp + Math.log(hz / 1000) / (Math.log(6.4) / 27);
};

const melToHz = (mel: number, scale: 'htk' | 'slaney'): number => {
  if (scale === 'htk') return 700 * (10 ** (mel / 2595) - 1);
  const fSp = 200 / 3;
  const minLogMel = 1000 / fSp;
  if (mel < minLogMel) return mel * fSp;
  return 1000 * Math.exp((Math.log(6.4) / 27) * (mel - minLogMel));
};

/**
 * Triangular mel filters over the `nFft/2 + 1` STFT bins, as [nMels][bins] row-major: bin
 * frequencies evenly spaced from 0 to sampleRate/2, filter edges evenly spaced on the mel scale
 * between fMin and fMax; with `slaney` normalisation each filter is scaled by 2/(upper-lower edge).
 */
export function melFilterbank(p: Pick<LogMelInput, 'sampleRate' | 'nFft' | 'nMels' | 'fMin' | 'fMax' | 'melScale' | 'melNorm'>): Float64Array {
  const bins = (p.nFft >> 1) + 1;
  const nyquist = Math.floor(p.sampleRate / 2);
  const melMin = hzToMel(p.fMin, p.melScale);
  const melMax = hzToMel(p.fMax, p.melScale);
  const edges = new Float64Array(p.nMels + 2);
  for (let i = 0; i < edges.length; i++) edges[i] = melToHz(melMin + ((melMax - melMin) * i) / (p.nMels + 1), p.melScale);
  const bank = new Float64Array(p.nMels * bins);
  for (let m = 0; m < p.nMels; m++) {
    const lower = edges[m]!;
    const centre = edges[m + 1]!;
    const upper = edges[m + 2]!;
    const scale = p.melNorm === 'slaney' ? 2 / (upper - lower) : 1;
    for (let k = 0; k < bins; k++) {
      const f = (nyquist * k) / (bins - 1);
      const down = (f - lower) / (centre - lower);
      const up = (upper - f) / (upper - centre);
      bank[m * bins + k] = Math.max(0, Math.min(down, up)) * scale;
    }
  }
  return bank;
}

/** Index into a signal of length `length` extended by mirror reflection (no edge repeat), as numpy's "reflect". */
function reflectIndex(i: number, length: number): number {
  if (length === 1) return 0;
  const period = 2 * (length - 1);
  let j = i % period;
  if (j < 0) j += period;
  return j < length ? j : period - j;
}

/** Which code computes the frames: the native kernel (native/src/dsp/log-mel.h) or this file's loop. */
export type LogMelKernel = 'native' | 'typescript';

export interface LogMelExtractorOptions {
  /** Default: `native` when the native kernel takes n_fft (prime factors up to 13), else `typescript`. */
  readonly kernel?: LogMelKernel;
  /** Forces the TypeScript FFT's method (benchmarks compare them); implies the `typescript` kernel. */
  readonly fftMethod?: FftMethod;
}

/**
 * Log-mel features as the manifest describes them (docs/model-format.md):
 *  1. frames of `n_fft` samples every `hop_length`; with `center` the signal is reflect-padded by
 *     n_fft/2 on both sides and there are 1 + floor(samples / hop) frames, without it
 *     1 + floor((samples - n_fft) / hop) (at least one; short input is zero-padded);
 *  2. a periodic Hann window of `win_length`, centred in the n_fft frame;
 *  3. |STFT|^power, mel filterbank, natural log of max(value, log_floor);
 *  4. `per_utterance`: each mel channel minus its mean over the frames, divided by its
 *     standard deviation (n-1 denominator) plus 1e-5.
 * This follows torchaudio's MelSpectrogram(center=True, pad_mode="reflect", norm=None|"slaney").
 *
 * The window and the filterbank are built here, once; steps 1-3 run in the native kernel
 * (native/src/dsp/log-mel.h: the same rules in C++, 2.5x faster, `bench/log-mel-features.ts`;
 * log-mel-features.test.ts holds the two within 1e-4) or, for sizes it does not take, in this file's loop. Not re-entrant:
 * one extractor per thread.
 */
export class LogMelExtractor {
  readonly kernel: LogMelKernel;
  private readonly window: Float64Array;
  private readonly bank: Float64Array;
  /** Per mel channel, the first and one-past-last FFT bin with a nonzero weight (the sum skips the rest). */
  private readonly bankFrom: Int32Array;
  private readonly bankTo: Int32Array;
  private readonly native: NativeLogMel | null;
  private readonly fft: RealFft | null;
  private readonly frame: Float64Array;
  private readonly spectrum: Float64Array;

  constructor(
    readonly params: LogMelInput,
    options: LogMelExtractorOptions = {},
  ) {
    this.window = new Float64Array(params.nFft);
    const offset = (params.nFft - params.winLength) >> 1;
    for (let i = 0; i < params.winLength; i++) this.window[offset + i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / params.winLength);
    this.bank = melFilterbank(params);
    const bins = (params.nFft >> 1) + 1;
    this.bankFrom = new Int32Array(params.nMels);
    this.bankTo = new Int32Array(params.nMels);
    for (let m = 0; m < params.nMels; m++) {
      let from = bins;
      let to = 0;
      for (let k = 0; k < bins; k++) {
        if (this.bank[m * bins + k] !== 0) {
          from = Math.min(from, k);
          to = k + 1;
        }
      }
      this.bankFrom[m] = Math.min(from, to);
      this.bankTo[m] = to;
    }
    const wanted = options.fftMethod === undefined ? (options.kernel ?? 'native') : 'typescript';
    this.native =
      wanted === 'native'
        ? NativeLogMel.tryCreate({
            nFft: params.nFft,
            hopLength: params.hopLength,
            power: params.power,
            logFloor: params.logFloor,
            window: this.window,
            bank: this.bank,
            bankFrom: this.bankFrom,
            bankTo: this.bankTo,
          })
        : null;
    if (options.kernel === 'native' && this.native === null) throw new RangeError(`the native log-mel kernel does not take n_fft ${params.nFft}`);
    this.kernel = this.native === null ? 'typescript' : 'native';
    this.fft = this.native === null ? new RealFft(params.nFft, options.fftMethod) : null;
    this.frame = new Float64Array(this.native === null ? params.nFft : 0);
    this.spectrum = new Float64Array(this.fft?.bins ?? 0);
  }

  frameCount(samples: number): number {
    const { nFft, hopLength, center } = this.params;
    if (center) return 1 + Math.floor(samples / hopLength);
    return samples >= nFft ? 1 + Math.floor((samples - nFft) / hopLength) : 1;
  }

  /** Returns [frames, n_mels] row-major; `pcm` is read, not kept. */
  compute(pcm: Float32Array): Float32Array {
    const { nMels, center, normalize } = this.params;
    const frames = this.frameCount(pcm.length);
    const out = new Float32Array(frames * nMels);
    if (this.native !== null) this.native.compute(pcm, center, out);
    else this.computeHere(pcm, frames, out);
    if (normalize === 'per_utterance') normalizePerChannel(out, frames, nMels);
    return out;
  }

  /** Frees the native kernel now (else it is freed when the extractor is collected). Idempotent; compute() afterwards throws. */
  close(): void {
    this.native?.close();
  }

  private computeHere(pcm: Float32Array, frames: number, out: Float32Array): void {
    const { nFft, hopLength, nMels, center, power, logFloor } = this.params;
    const fft = this.fft!;
    const bins = fft.bins;
    const pad = center ? nFft >> 1 : 0;
    const n = pcm.length;
    for (let t = 0; t < frames; t++) {
      const first = t * hopLength - pad;
      for (let i = 0; i < nFft; i++) {
        const at = first + i;
        let x: number;
        if (at >= 0 && at < n) x = pcm[at]!;
        else if (center && n > 0) x = pcm[reflectIndex(at, n)]!;
        else x = 0;
        this.frame[i] = x * this.window[i]!;
      }
      fft.powerSpectrum(this.frame, this.spectrum);
      if (power === 1) for (let k = 0; k < bins; k++) this.spectrum[k] = Math.sqrt(this.spectrum[k]!);
      const row = t * nMels;
      for (let m = 0; m < nMels; m++) {
        let sum = 0;
        const base = m * bins;
        const to = this.bankTo[m]!;
        for (let k = this.bankFrom[m]!; k < to; k++) sum += this.bank[base + k]! * this.spectrum[k]!;
        out[row + m] = Math.log(Math.max(sum, logFloor));
      }
    }
  }
}

function normalizePerChannel(features: Float32Array, frames: number, channels: number): void {
  for (let c = 0; c < channels; c++) {
    let sum = 0;
    for (let t = 0; t < frames; t++) sum += features[t * channels + c]!;
    const mean = sum / frames;
    let sq = 0;
    for (let t = 0; t < frames; t++) {
      const d = features[t * channels + c]! - mean;
      sq += d * d;
    }
    const std = frames > 1 ? Math.sqrt(sq / (frames - 1)) : 0;
    const scale = 1 / (std + NORMALIZE_EPSILON);
    for (let t = 0; t < frames; t++) features[t * channels + c] = (features[t * channels + c]! - mean) * scale;
  }
}
