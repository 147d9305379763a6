/**
 * Kaldi filterbank features as speaker-embedding networks of the WeSpeaker and 3D-Speaker kind
 * were trained on, computed as kaldi-native-fbank computes them inside sherpa-onnx's speaker
 * embedding extractor (the reference its parity test runs against). Pure.
 *
 * Rules (Kaldi's defaults unless said):
 * - 16 kHz input; samples scaled by 32768 unless `normalizeSamples` (the model's
 *   `normalize_samples` metadata: WeSpeaker models take int16-scaled samples);
 * - frames of 25 ms (400 samples) every 10 ms (160); `snip_edges` false: floor((n + 80) / 160)
 *   frames, frame f starting at f x 160 + 80 - 200, samples outside the signal reflected
 *   (s < 0 -> -s - 1, s >= n -> 2n - 1 - s);
 * - per frame: no dither; the frame's mean removed; pre-emphasis 0.97 (x[i] -= 0.97 x[i-1] from
 *   the end, x[0] -= 0.97 x[0]); Povey window (0.5 - 0.5 cos(2 pi i / 399))^0.85; zero-padded to
 *   512; power spectrum;
 * - `bins` (80) triangular filters equally spaced on the mel scale 1127 ln(1 + f / 700) between
 *   20 Hz and Nyquist - 400 Hz (7600 Hz), over FFT bins 0..255 (the Nyquist bin unused), each
 *   bin weighted by its own mel value; energies floored at float32 epsilon; natural log.
 * - `globalMean`: every dimension minus its mean over the utterance (`feature_normalize_type`
 *   "global-mean" in the model's metadata).
 * Output: [frames x bins] row-major.
 */
import { RealFft } from './real-fft.js';

export interface KaldiFbankOptions {
  readonly bins?: number;
  readonly normalizeSamples?: boolean;
  readonly globalMean?: boolean;
}

const RATE = 16000;
const LENGTH = 400;
const SHIFT = 160;
const PADDED = 512;
const FLT_EPSILON = 1.1920928955078125e-7;

const mel = (f: number): number => 1127 * Math.log(1 + f / 700);

/** Kaldi's mel banks: per filter, its first FFT bin and weights. */
function melBanks(bins: number): { first: number; weights: Float64Array }[] {
  const low = mel(20);
  const high = mel(RATE / 2 - 400);
  const delta = (high - low) / (bins + 1);
  const binWidth = RATE / PADDED;
  const banks: { first: number; weights: Float64Array }[] = [];
  for (let b = 0; b < bins; b++) {
    const left = low + b * delta;
    const centre = low + (b + 1) * delta;
    const right = low + (b + 2) * delta;
    const weights: number[] = [];
    let first = -1;
    for (let i = 0; i < PADDED / 2; i++) {
      const m = mel(binWidth * i);
      if (m > left && m < right) {
        if (first < 0) first = i;
        weights.push(m <= centre ? (m - left) / (centre - left) : (right - m) / (right - centre));
      } else if (first >= 0) break;
    }
    banks.push({ first: Math.max(first, 0), weights: Float64Array.from(weights) });
  }
  return banks;
}

const POVEY = Float64Array.from({ length: LENGTH }, (_, i) => (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (LENGTH - 1))) ** 0.85);

/** Kaldi fbank of 16 kHz mono PCM in [-1, 1]; returns the frame count and [frames x bins] values. */
export function kaldiFbank(pcm: Float32Array, options: KaldiFbankOptions = {}): { frames: number; bins: number; data: Float32Array } {
  const bins = options.bins ?? 80;
  const scale = options.normalizeSamples ? 1 : 32768;
  const n = pcm.length;
  const frames = n === 0 ? 0 : Math.floor((n + SHIFT / 2) / SHIFT);
  const banks = melBanks(bins);
  const fft = new RealFft(PADDED);
  const frame = new Float64Array(PADDED);
  const power = new Float64Array(PADDED / 2 + 1);
  const data = new Float32Array(frames * bins);
  for (let f = 0; f < frames; f++) {
    const start = f * SHIFT + SHIFT / 2 - LENGTH / 2;
    let mean = 0;
    for (let i = 0; i < LENGTH; i++) {
      let s = start + i;
      while (s < 0 || s >= n) s = s < 0 ? -s - 1 : 2 * n - 1 - s;
      frame[i] = pcm[s]! * scale;
      mean += frame[i]!;
    }
    mean /= LENGTH;
    for (let i = 0; i < LENGTH; i++) frame[i]! -= mean;
    for (let i = LENGTH - 1; i > 0; i--) frame[i]! -= 0.97 * frame[i - 1]!;
    frame[0]! -= 0.97 * frame[0]!;
    for (let i = 0; i < LENGTH; i++) frame[i]! *= POVEY[i]!;
    frame.fill(0, LENGTH);
    fft.powerSpectrum(frame, power);
    for (let b = 0; b < bins; b++) {
      const { first, weights } = banks[b]!;
      let energy = 0;
      for (let k = 0; k < weights.length; k++) energy += weights[k]! * power[first + k]!;
      data[f * bins + b] = Math.log(Math.max(energy, FLT_EPSILON));
    }
  }
  if (options.globalMean && frames > 0) {
    for (let b = 0; b < bins; b++) {
      let sum = 0;
      for (let f = 0; f < frames; f++) sum += data[f * bins + b]!;
      const m = sum / frames;
      for (let f = 0; f < frames; f++) data[f * bins + b]! -= m;
    }
  }
  return { frames, bins, data };
}
