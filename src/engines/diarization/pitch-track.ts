/**
 * Pitch (F0) of 16 kHz mono PCM every 10 ms by YIN (de Cheveigné & Kawahara 2002) on the signal
 * decimated to 4 kHz (two half-band stages; F0 up to 500 Hz): difference function over a 32 ms window, cumulative mean normalisation,
 * the first dip under the threshold (then its local minimum), parabolic interpolation. A frame is
 * voiced when such a dip exists and the frame is not silent. Besides F0 each frame carries its
 * periodicity (1 - the normalised difference at the chosen lag, or at the deepest dip when
 * unvoiced), its log energy and its zero-crossing rate: the features the segment typing reads.
 *
 * Allocation: the decimated signal (float64), the per-block energy and zero-crossing sums (12
 * bytes per 32 samples), a ring of per-block difference sums, one difference buffer and the four
 * output arrays; nothing per frame. Cost: bench/segment-types.ts (`pitchTrackAlone`).
 */

export const PITCH_SAMPLE_RATE = 16_000;
/** One frame every 10 ms. */
export const PITCH_HOP_MS = 10;
const RATE = 4_000;
const HOP = (RATE * PITCH_HOP_MS) / 1000;
/** Integration window of the difference function: 32 ms at 4 kHz. */
const WINDOW = 128;
const DECIMATION = PITCH_SAMPLE_RATE / RATE;
/** The sliding difference function is recomputed in full every this many frames (rounding stays bounded). */
const REFRESH = 32;
/** Samples per block of the difference sums (divides HOP and WINDOW), and the blocks kept: a window and the hop before it. */
const BLOCK = 8;
const RING = (WINDOW + HOP) / BLOCK + 1;
/** 16 kHz samples per block of the frame energies and zero crossings (divides the 10 ms hop and the 32 ms window). */
const ENERGY_BLOCK = 32;

export interface PitchOptions {
  /** Lowest F0 searched (Hz); default 60. */
  readonly minHz?: number;
  /** Highest F0 searched (Hz); default 500. */
  readonly maxHz?: number;
  /** YIN threshold on the normalised difference; default 0.2. */
  readonly threshold?: number;
  /** Frames with RMS under this are silent (never voiced); default 1e-3 (-60 dBFS). */
  readonly silenceRms?: number;
}

export interface PitchTrack {
  readonly frames: number;
  /** F0 in Hz per frame; 0 when unvoiced. */
  readonly f0: Float32Array;
  /** 0..1: how periodic the frame is (1 - normalised difference at its best lag). */
  readonly periodicity: Float32Array;
  /** Natural log of the frame's mean square (16 kHz samples), floored at 1e-10. */
  readonly logEnergy: Float32Array;
  /** Zero crossings per sample over the frame (16 kHz), 0..1. */
  readonly zeroCrossings: Float32Array;
}

/** Halves the rate: a 7-tap low-pass (half-band shape, zero at the old Nyquist) then every second sample. */
function decimate(pcm: Float32Array): Float32Array {
  const out = new Float32Array(pcm.length >> 1);
  const n = pcm.length;
  for (let i = 0; i < out.length; i++) {
    const c = 2 * i;
    if (c >= 3 && c + 3 < n) {
      out[i] = 0.5 * pcm[c]! + 0.3 * (pcm[c - 1]! + pcm[c + 1]!) - 0.05 * (pcm[c - 3]! + pcm[c + 3]!);
      continue;
    }
    let v = 0.5 * pcm[c]!;
    if (c >= 1) v += 0.3 * pcm[c - 1]!;
    if (c + 1 < n) v += 0.3 * pcm[c + 1]!;
    if (c >= 3) v -= 0.05 * pcm[c - 3]!;
    if (c + 3 < n) v -= 0.05 * pcm[c + 3]!;
    out[i] = v;
  }
  return out;
}

/** Sums (x[j] - x[j + tau])^2 over block `b`'s samples for every lag into its ring slot. */
function blockSums(x: Float64Array, b: number, lags: number, blocks: Float64Array): void {
  const row = (b % RING) * lags;
  const from = b * BLOCK;
  for (let tau = 1; tau < lags; tau++) {
    let sum = 0;
    for (let j = from, k = from + tau; j < from + BLOCK; j++, k++) {
      const d = x[j]! - x[k]!;
      sum += d * d;
    }
    blocks[row + tau] = sum;
  }
}

/** The pitch track of `pcm` (16 kHz mono); frame t covers [t*10 ms, t*10 ms + 32 ms). */
export function trackPitch(pcm: Float32Array, options: PitchOptions = {}): PitchTrack {
  const minHz = options.minHz ?? 60;
  const maxHz = options.maxHz ?? 500;
  const threshold = options.threshold ?? 0.2;
  const silence = (options.silenceRms ?? 1e-3) ** 2;
  const minLag = Math.max(2, Math.floor(RATE / maxHz));
  const maxLag = Math.ceil(RATE / minHz);
  // The 4 kHz signal as float64 (the same values: float32 reads are widened anyway), read faster in the lag loops.
  const x = Float64Array.from(decimate(decimate(pcm)));
  const frames = Math.max(0, Math.floor((pcm.length - 1) / (DECIMATION * HOP)) + 1);
  const f0 = new Float32Array(frames);
  const periodicity = new Float32Array(frames);
  const logEnergy = new Float32Array(frames);
  const zeroCrossings = new Float32Array(frames);
  const diff = new Float64Array(maxLag + 2);
  // Per BLOCK of samples j and lag tau, the sum of (x[j] - x[j + tau])^2: each block is summed once
  // when it enters a frame's window and taken out again when it leaves (a ring of RING blocks).
  const lags = maxLag + 2;
  const blocks = new Float64Array(RING * lags);
  const raw = new Float64Array(maxLag + 2);
  let rawStart = -1;
  const span = WINDOW + maxLag + 1;
  // Per ENERGY_BLOCK of 16 kHz samples: the sum of squares and the zero crossings (a sample whose
  // sign differs from the one before), so each frame adds up 16 blocks instead of 512 samples.
  const energyBlocks = Math.floor(pcm.length / ENERGY_BLOCK);
  const blockEnergy = new Float64Array(energyBlocks);
  const blockCrossings = new Uint8Array(energyBlocks);
  for (let b = 0; b < energyBlocks; b++) {
    let e = 0;
    let c = 0;
    for (let i = b * ENERGY_BLOCK; i < (b + 1) * ENERGY_BLOCK; i++) {
      const v = pcm[i]!;
      e += v * v;
      if (i > 0 && v >= 0 !== pcm[i - 1]! >= 0) c++;
    }
    blockEnergy[b] = e;
    blockCrossings[b] = c;
  }
  for (let t = 0; t < frames; t++) {
    const start = t * HOP;
    // Energy and zero crossings on the 16 kHz samples of the 32 ms window.
    const from16 = DECIMATION * start;
    const to16 = Math.min(pcm.length, from16 + DECIMATION * WINDOW);
    let energy = 0;
    let crossings = 0;
    if (to16 - from16 === DECIMATION * WINDOW) {
      // Whole window: its 16 blocks' sums (the zero crossing at its first sample, into the window, not counted).
      for (let b = from16 / ENERGY_BLOCK; b < to16 / ENERGY_BLOCK; b++) {
        energy += blockEnergy[b]!;
        crossings += blockCrossings[b]!;
      }
      if (from16 > 0 && pcm[from16]! >= 0 !== pcm[from16 - 1]! >= 0) crossings--;
    } else {
      for (let i = from16; i < to16; i++) {
        const v = pcm[i]!;
        energy += v * v;
        if (i > from16 && v >= 0 !== pcm[i - 1]! >= 0) crossings++;
      }
    }
    const count = Math.max(1, to16 - from16);
    energy /= count;
    logEnergy[t] = Math.log(Math.max(energy, 1e-10));
    zeroCrossings[t] = crossings / count;
    if (start + span > x.length) continue; // the file's last 50 ms: too short a window for the lags
    // Difference function d(tau) for tau in [1, maxLag + 1]: slid from the previous frame (the hop
    // leaving, the hop entering), computed afresh every REFRESH frames and after a gap.
    if (rawStart === start - HOP && t % REFRESH !== 0) {
      // The hop leaving was summed block by block when it entered: only the entering blocks are new.
      for (let b = (start + WINDOW - HOP) / BLOCK; b < (start + WINDOW) / BLOCK; b++) blockSums(x, b, lags, blocks);
      const leave = ((start - HOP) / BLOCK) % RING;
      const enter = ((start + WINDOW - HOP) / BLOCK) % RING;
      for (let tau = 1; tau <= maxLag + 1; tau++) {
        let change = 0;
        for (let k = 0; k < HOP / BLOCK; k++) change += blocks[((enter + k) % RING) * lags + tau]!;
        for (let k = 0; k < HOP / BLOCK; k++) change -= blocks[((leave + k) % RING) * lags + tau]!;
        raw[tau] = Math.max(0, raw[tau]! + change);
      }
    } else {
      for (let b = start / BLOCK; b < (start + WINDOW) / BLOCK; b++) blockSums(x, b, lags, blocks);
      const first = (start / BLOCK) % RING;
      for (let tau = 1; tau <= maxLag + 1; tau++) {
        let sum = 0;
        for (let k = 0; k < WINDOW / BLOCK; k++) sum += blocks[((first + k) % RING) * lags + tau]!;
        raw[tau] = sum;
      }
    }
    rawStart = start;
    // The cumulative mean normalisation.
    for (let tau = 1; tau <= maxLag + 1; tau++) diff[tau] = raw[tau]!;
    let running = 0;
    diff[0] = 1;
    for (let tau = 1; tau <= maxLag + 1; tau++) {
      running += diff[tau]!;
      diff[tau] = running > 0 ? (diff[tau]! * tau) / running : 1;
    }
    let lag = -1;
    let deepest = 1;
    for (let tau = minLag; tau <= maxLag; tau++) {
      const v = diff[tau]!;
      if (v < deepest) deepest = v;
      if (lag < 0 && v < threshold) {
        // Walk down to the bottom of this dip.
        let k = tau;
        while (k + 1 <= maxLag && diff[k + 1]! < diff[k]!) k++;
        lag = k;
        break;
      }
    }
    if (lag < 0 || energy < silence) {
      periodicity[t] = Math.max(0, 1 - deepest);
      continue;
    }
    // Parabolic interpolation around the minimum.
    const a = diff[lag - 1]!;
    const b = diff[lag]!;
    const c = diff[lag + 1]!;
    const denominator = a - 2 * b + c;
    const shift = denominator > 0 ? Math.max(-0.5, Math.min(0.5, (0.5 * (a - c)) / denominator)) : 0;
    f0[t] = RATE / (lag + shift);
    periodicity[t] = Math.max(0, 1 - b);
  }
  return { frames, f0, periodicity, logEnergy, zeroCrossings };
}
