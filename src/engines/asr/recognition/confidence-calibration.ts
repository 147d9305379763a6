/**
 * Calibrated segment confidence (issue 28): a model's raw decoding scores mapped to the expected
 * share of letters right (1 - CER, clipped to [0, 1]), fitted on speakers the model never trained
 * on (training/asr/confidence-calibration.ts writes the mapping; docs/decoding.md, Confidence).
 * Pure.
 *
 * Rules:
 * - The raw features of a decoded piece (`confidenceFeatures`), in CONFIDENCE_FEATURES order:
 *   the mean posterior of the emitted tokens (the raw confidence), their geometric mean, the share
 *   of output frames no token spans (blank), the lowest word confidence, and the emitted tokens per
 *   second of decoded audio. A piece with no token has no features (its confidence stays null).
 * - The mapping (`ConfidenceCalibration`): a logistic model on the standardised features
 *   (p = 1 / (1 + exp(-(bias + sum w_i (x_i - mean_i) / std_i)))), then, when present, a monotone
 *   piecewise-linear map of p (isotonic regression's steps: `x` strictly increasing, `y`
 *   non-decreasing, both in [0, 1]; p under x[0] reads y[0], over the last x the last y). The result
 *   is clipped to [0, 1] and rounded to 4 decimals.
 * - `fitIsotonic` is pool-adjacent-violators on (x, y, weight) rows: the non-decreasing step
 *   function with the least weighted squared error; blocks of equal fitted value become one knot at
 *   their weighted mean x. Used by the fitting script, not at serving time.
 * - A calibration file names its features; it is refused (`parseConfidenceCalibration` throws)
 *   unless they are exactly CONFIDENCE_FEATURES, every number is finite, std > 0, and the isotonic
 *   knots hold the rules above.
 */
import type { CtcHypothesis } from '../decoding/ctc-types.js';

export const CONFIDENCE_FEATURES = [
  'mean_token_probability',
  'geometric_mean_token_probability',
  'blank_ratio',
  'min_word_confidence',
  'tokens_per_second',
] as const;

export interface ConfidenceCalibration {
  readonly features: readonly string[];
  readonly mean: readonly number[];
  readonly std: readonly number[];
  readonly weights: readonly number[];
  readonly bias: number;
  /** Monotone map of the logistic output; null: the logistic output itself. */
  readonly isotonic: { readonly x: readonly number[]; readonly y: readonly number[] } | null;
}

/** Smallest token probability the geometric mean reads (a 0 would make it 0 whatever the rest). */
const MIN_PROBABILITY = 1e-4;

/**
 * The raw features of a decoded piece (CONFIDENCE_FEATURES order); null when it emitted no token.
 * `frames`: the valid output frames decoded; `frameMs`: the model's frame stride.
 */
export function confidenceFeatures(hypothesis: CtcHypothesis, frames: number, frameMs: number): number[] | null {
  const { tokens } = hypothesis;
  if (tokens.length === 0 || frames <= 0) return null;
  let sum = 0;
  let logSum = 0;
  let spanned = 0;
  for (const token of tokens) {
    sum += token.probability;
    logSum += Math.log(Math.max(MIN_PROBABILITY, token.probability));
    spanned += Math.max(0, token.endFrame - token.startFrame);
  }
  let minWord = 1;
  for (const word of hypothesis.words) minWord = Math.min(minWord, word.confidence);
  if (hypothesis.words.length === 0) minWord = sum / tokens.length;
  return [sum / tokens.length, Math.exp(logSum / tokens.length), Math.max(0, 1 - spanned / frames), minWord, tokens.length / ((frames * frameMs) / 1000)];
}

/** The calibrated confidence of a piece's features: 0..1, 4 decimals. */
export function calibratedConfidence(calibration: ConfidenceCalibration, features: readonly number[]): number {
  let z = calibration.bias;
  for (let i = 0; i < calibration.weights.length; i++) z += (calibration.weights[i]! * (features[i]! - calibration.mean[i]!)) / calibration.std[i]!;
  const p = 1 / (1 + Math.exp(-z));
  const mapped = calibration.isotonic === null ? p : interpolate(calibration.isotonic.x, calibration.isotonic.y, p);
  return Math.round(Math.min(1, Math.max(0, mapped)) * 10_000) / 10_000;
}

function interpolate(xs: readonly number[], ys: readonly number[], x: number): number {
  if (x <= xs[0]!) return ys[0]!;
  const last = xs.length - 1;
  if (x >= xs[last]!) return ys[last]!;
  let lo = 0;
  let hi = last;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid]! <= x) lo = mid;
    else hi = mid;
  }
  const t = (x - xs[lo]!) / (xs[hi]! - xs[lo]!);
  return ys[lo]! + t * (ys[hi]! - ys[lo]!);
}

/** Pool-adjacent-violators: knots of the non-decreasing least-squares fit of y on x (see the rules). */
export function fitIsotonic(rows: readonly { x: number; y: number; weight?: number }[]): { x: number[]; y: number[] } {
  const sorted = [...rows].filter((r) => Number.isFinite(r.x) && Number.isFinite(r.y)).sort((a, b) => a.x - b.x);
  const blocks: { sumW: number; sumY: number; sumX: number }[] = [];
  for (const row of sorted) {
    const w = row.weight ?? 1;
    if (w <= 0) continue;
    blocks.push({ sumW: w, sumY: w * row.y, sumX: w * row.x });
    while (blocks.length > 1) {
      const b = blocks[blocks.length - 1]!;
      const a = blocks[blocks.length - 2]!;
      if (a.sumY / a.sumW < b.sumY / b.sumW) break;
      blocks.pop();
      a.sumW += b.sumW;
      a.sumY += b.sumY;
      a.sumX += b.sumX;
    }
  }
  const x: number[] = [];
  const y: number[] = [];
  for (const block of blocks) {
    const bx = block.sumX / block.sumW;
    const by = Math.min(1, Math.max(0, block.sumY / block.sumW));
    // Blocks whose mean x coincide (ties) keep the later, higher value.
    if (x.length > 0 && bx <= x[x.length - 1]!) {
      y[y.length - 1] = by;
      continue;
    }
    x.push(bx);
    y.push(by);
  }
  return { x, y };
}

type Json = Record<string, unknown>;

/** Checks a calibration file's JSON (`{features, mean, std, weights, bias, isotonic?}`); throws Error naming the problem. */
export function parseConfidenceCalibration(raw: unknown): ConfidenceCalibration {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('the confidence calibration must be a JSON object');
  const r = raw as Json;
  const features = r['features'];
  if (!Array.isArray(features) || features.length !== CONFIDENCE_FEATURES.length || features.some((f, i) => f !== CONFIDENCE_FEATURES[i])) {
    throw new Error(`the confidence calibration's features must be ${CONFIDENCE_FEATURES.join(', ')}`);
  }
  const numbers = (key: string, length: number | null, json: Json = r): number[] => {
    const v = json[key];
    if (!Array.isArray(v) || (length !== null && v.length !== length) || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new Error(`the confidence calibration's ${key} must be ${length === null ? 'an array' : `${length}`} of finite numbers`);
    }
    return v as number[];
  };
  const d = CONFIDENCE_FEATURES.length;
  const std = numbers('std', d);
  if (std.some((s) => s <= 0)) throw new Error("the confidence calibration's std must be positive");
  const bias = r['bias'];
  if (typeof bias !== 'number' || !Number.isFinite(bias)) throw new Error("the confidence calibration's bias must be a number");
  let isotonic: ConfidenceCalibration['isotonic'] = null;
  const iso = r['isotonic'];
  if (iso !== undefined && iso !== null) {
    if (typeof iso !== 'object' || Array.isArray(iso)) throw new Error("the confidence calibration's isotonic must be an object");
    const x = numbers('x', null, iso as Json);
    const y = numbers('y', x.length, iso as Json);
    if (x.length === 0) throw new Error("the confidence calibration's isotonic needs at least one knot");
    for (let i = 0; i < x.length; i++) {
      if (x[i]! < 0 || x[i]! > 1 || y[i]! < 0 || y[i]! > 1) throw new Error("the confidence calibration's isotonic knots must lie in [0, 1]");
      if (i > 0 && (x[i]! <= x[i - 1]! || y[i]! < y[i - 1]!))
        throw new Error("the confidence calibration's isotonic knots must rise (x strictly, y not falling)");
    }
    isotonic = { x, y };
  }
  return { features: [...CONFIDENCE_FEATURES], mean: numbers('mean', d), std, weights: numbers('weights', d), bias, isotonic };
}
