import { readFile } from 'node:fs/promises';
import { MFCC_COEFFICIENTS, type SpeakerFrames } from './speaker-features.js';

/**
 * Overlapped speech detection: the probability that two or more people speak in each 20 ms
 * speaker frame, from a small bidirectional GRU over the file's frames (FRAME_FEATURES each:
 * the file-centred MFCCs, the log energy over the file's median speech energy and the pitch
 * track's periodicity), a linear layer and a sigmoid. Trained on synthetic overlaps of ALFFA
 * speaker groups that neither the development nor the held-out sets use
 * (training/speakers/overlap-frames.ts, overlap_detector.py; card: models/diarization/README.md).
 * Loaded once per diarization thread; immutable.
 */
export interface OverlapDetector {
  readonly name: string;
  readonly hidden: number;
  readonly mean: Float32Array;
  readonly std: Float32Array;
  readonly forward: GruDirection;
  readonly backward: GruDirection;
  /** [2 * hidden]: forward state then backward state. */
  readonly outWeights: Float32Array;
  readonly outBias: number;
  /** Frames whose probability, median-filtered over MEDIAN_FRAMES, is over this are overlap. */
  readonly threshold: number;
  /** Overlap runs shorter than this many frames are dropped. */
  readonly minFrames: number;
}

/** One direction of a PyTorch GRU layer: gates in PyTorch's order (reset, update, new), [3 * hidden][inputs] and [3 * hidden][hidden] row-major. */
interface GruDirection {
  readonly inputWeights: Float32Array;
  readonly hiddenWeights: Float32Array;
  readonly inputBias: Float32Array;
  readonly hiddenBias: Float32Array;
}

/** Per frame: c1..c20 centred on the file's speech mean, the relative log energy, the periodicity of its two 10 ms pitch frames. */
export const FRAME_FEATURES = MFCC_COEFFICIENTS + 3;
export const OVERLAP_FEATURES: readonly string[] = [
  ...Array.from({ length: MFCC_COEFFICIENTS }, (_, c) => `c${c + 1}`),
  'energy',
  'periodicity0',
  'periodicity1',
];
/** Probabilities are median-filtered over this many frames (odd) before the threshold. */
const MEDIAN_FRAMES = 5;

export async function loadOverlapDetector(path: string): Promise<OverlapDetector> {
  return parseOverlapDetector(JSON.parse(await readFile(path, 'utf8')));
}

/**
 * Checks and converts the model JSON: `{name, threshold, min_frames, features, mean, std, hidden}`
 * and the tensors under PyTorch's state_dict names of a one-layer bidirectional `nn.GRU` and an
 * `nn.Linear(2 * hidden, 1)` named `out` (`weight_ih_l0`, `weight_hh_l0`, `bias_ih_l0`,
 * `bias_hh_l0`, the same with `_reverse`, `out.weight`, `out.bias`), as
 * training/speakers/overlap_detector.py writes them.
 */
export function parseOverlapDetector(raw: unknown): OverlapDetector {
  const r = (raw ?? {}) as Record<string, unknown>;
  const what = 'overlap detector';
  const threshold = Number(r['threshold']);
  if (!(threshold > 0 && threshold < 1)) throw new Error(`${what}: threshold must be in (0, 1)`);
  const minFrames = Number(r['min_frames']);
  if (!Number.isInteger(minFrames) || minFrames < 1) throw new Error(`${what}: min_frames must be a positive integer`);
  const hidden = Number(r['hidden']);
  if (!Number.isInteger(hidden) || hidden < 1 || hidden > 256) throw new Error(`${what}: hidden must be an integer 1-256`);
  const features = r['features'];
  if (!Array.isArray(features) || features.length !== FRAME_FEATURES || features.some((f, i) => f !== OVERLAP_FEATURES[i])) {
    throw new Error(`${what}: features must be ${OVERLAP_FEATURES.join(', ')}`);
  }
  // Tensors under their own names or with the `gru.` prefix of a module holding the GRU.
  const tensor = (key: string): unknown => r[key] ?? r[`gru.${key}`];
  const vector = (key: string, length: number): Float32Array => {
    const v = tensor(key);
    if (!Array.isArray(v) || v.length !== length || v.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
      throw new Error(`${what}: ${key} must be ${length} numbers`);
    }
    return Float32Array.from(v as number[]);
  };
  const matrix = (key: string, rows: number, columns: number): Float32Array => {
    const v = tensor(key);
    if (!Array.isArray(v) || v.length !== rows) throw new Error(`${what}: ${key} must be ${rows} rows of ${columns} numbers`);
    const out = new Float32Array(rows * columns);
    v.forEach((row: unknown, i) => out.set(vectorOf(row, columns, `${key} row ${i}`), i * columns));
    return out;
  };
  const vectorOf = (row: unknown, length: number, name: string): Float32Array => {
    if (!Array.isArray(row) || row.length !== length || row.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
      throw new Error(`${what}: ${name} must be ${length} numbers`);
    }
    return Float32Array.from(row as number[]);
  };
  const direction = (suffix: string): GruDirection => ({
    inputWeights: matrix(`weight_ih_l0${suffix}`, 3 * hidden, FRAME_FEATURES),
    hiddenWeights: matrix(`weight_hh_l0${suffix}`, 3 * hidden, hidden),
    inputBias: vector(`bias_ih_l0${suffix}`, 3 * hidden),
    hiddenBias: vector(`bias_hh_l0${suffix}`, 3 * hidden),
  });
  const std = vector('std', FRAME_FEATURES);
  if (std.some((s) => s <= 0)) throw new Error(`${what}: std must be positive`);
  const forward = direction('');
  const backward = direction('_reverse');
  const outWeights = matrix('out.weight', 1, 2 * hidden);
  const outBias = vector('out.bias', 1)[0]!;
  return {
    name: typeof r['name'] === 'string' ? r['name'] : 'overlap-detector',
    hidden,
    mean: vector('mean', FRAME_FEATURES),
    std,
    forward,
    backward,
    outWeights,
    outBias,
    threshold,
    minFrames,
  };
}

/**
 * The detector's inputs, [frames][FRAME_FEATURES]: `centred` (MFCCs centred on the file's speech
 * mean, speaker-features.ts centredFrames), the log energy minus the median log energy of the `speech`
 * frames, and the periodicity of the pitch track's two 10 ms frames in each 20 ms frame
 * (pitch-track.ts; one voice is periodic, two at once less so). Training writes exactly these
 * (training/speakers/overlap-frames.ts).
 */
export function overlapFrameFeatures(features: SpeakerFrames, centred: Float32Array, speech: Uint8Array, periodicity: Float32Array): Float32Array {
  const energies: number[] = [];
  for (let t = 0; t < features.frames; t++) if (speech[t] === 1) energies.push(features.logEnergy[t]!);
  energies.sort((a, b) => a - b);
  const median = energies.length > 0 ? energies[energies.length >> 1]! : 0;
  const out = new Float32Array(features.frames * FRAME_FEATURES);
  for (let t = 0; t < features.frames; t++) {
    const row = t * FRAME_FEATURES;
    out.set(centred.subarray(t * MFCC_COEFFICIENTS, (t + 1) * MFCC_COEFFICIENTS), row);
    out[row + MFCC_COEFFICIENTS] = features.logEnergy[t]! - median;
    out[row + MFCC_COEFFICIENTS + 1] = periodicity[2 * t] ?? 0;
    out[row + MFCC_COEFFICIENTS + 2] = periodicity[2 * t + 1] ?? 0;
  }
  return out;
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));

/**
 * One GRU step in place: h = (1 - z) * n + z * h with r = σ(Wir x + bir + Whr h + bhr),
 * z = σ(Wiz x + biz + Whz h + bhz), n = tanh(Win x + bin + r * (Whn h + bhn)) (PyTorch's GRU).
 * `gates` is scratch of 6 * hidden.
 */
function gruStep(d: GruDirection, x: Float32Array, xOffset: number, h: Float32Array, gates: Float32Array): void {
  const H = h.length;
  const D = FRAME_FEATURES;
  for (let g = 0; g < 3 * H; g++) {
    let a = d.inputBias[g]!;
    const wi = g * D;
    for (let i = 0; i < D; i++) a += d.inputWeights[wi + i]! * x[xOffset + i]!;
    gates[g] = a;
    let b = d.hiddenBias[g]!;
    const wh = g * H;
    for (let j = 0; j < H; j++) b += d.hiddenWeights[wh + j]! * h[j]!;
    gates[3 * H + g] = b;
  }
  for (let j = 0; j < H; j++) {
    const reset = sigmoid(gates[j]! + gates[3 * H + j]!);
    const update = sigmoid(gates[H + j]! + gates[4 * H + j]!);
    const candidate = Math.tanh(gates[2 * H + j]! + reset * gates[5 * H + j]!);
    h[j] = (1 - update) * candidate + update * h[j]!;
  }
}

/**
 * The overlap probability of every frame (the GRU reads the whole file, speech or not, as in
 * training; only speech frames are used). Cost: about 4,000 multiply-adds per 20 ms frame at 16
 * hidden units; memory: the standardised inputs and the forward states (frames × hidden floats).
 */
export function overlapProbabilities(frameFeatures: Float32Array, detector: OverlapDetector): Float32Array {
  const D = FRAME_FEATURES;
  const H = detector.hidden;
  const frames = frameFeatures.length / D;
  const x = new Float32Array(frameFeatures.length);
  for (let t = 0; t < frames; t++) for (let i = 0; i < D; i++) x[t * D + i] = (frameFeatures[t * D + i]! - detector.mean[i]!) / detector.std[i]!;
  const gates = new Float32Array(6 * H);
  const h = new Float32Array(H);
  const forwardStates = new Float32Array(frames * H);
  for (let t = 0; t < frames; t++) {
    gruStep(detector.forward, x, t * D, h, gates);
    forwardStates.set(h, t * H);
  }
  h.fill(0);
  const out = new Float32Array(frames);
  for (let t = frames - 1; t >= 0; t--) {
    gruStep(detector.backward, x, t * D, h, gates);
    let z = detector.outBias;
    for (let j = 0; j < H; j++) z += detector.outWeights[j]! * forwardStates[t * H + j]! + detector.outWeights[H + j]! * h[j]!;
    out[t] = sigmoid(z);
  }
  return out;
}

/** Overlap regions in frames [start, end): speech frames whose median-filtered probability is over `threshold`, in runs of at least `minFrames`. */
export function overlapRegions(probabilities: Float32Array, speech: Uint8Array, threshold: number, minFrames: number): { start: number; end: number }[] {
  const frames = probabilities.length;
  const half = MEDIAN_FRAMES >> 1;
  const window = new Float32Array(MEDIAN_FRAMES);
  const regions: { start: number; end: number }[] = [];
  let start = -1;
  for (let t = 0; t <= frames; t++) {
    let on = false;
    if (t < frames && speech[t] === 1) {
      for (let k = -half; k <= half; k++) window[k + half] = probabilities[Math.min(frames - 1, Math.max(0, t + k))]!;
      window.sort();
      on = window[half]! > threshold;
    }
    if (on && start < 0) start = t;
    if (!on && start >= 0) {
      if (t - start >= minFrames) regions.push({ start, end: t });
      start = -1;
    }
  }
  return regions;
}
