/**
 * Logistic regression on standardised features: p = 1 / (1 + exp(-(bias + sum w_i (x_i - mean_i) / std_i))).
 * The segment-type models (models/segment-types/*.json) are two of these.
 */
export interface LogisticModel {
  readonly features: readonly string[];
  readonly mean: Float64Array;
  readonly std: Float64Array;
  readonly weights: Float64Array;
  readonly bias: number;
}

export function logisticProbability(model: LogisticModel, x: ArrayLike<number>): number {
  let z = model.bias;
  for (let i = 0; i < model.weights.length; i++) z += (model.weights[i]! * (x[i]! - model.mean[i]!)) / model.std[i]!;
  return 1 / (1 + Math.exp(-z));
}

/** Checks and converts `{features, mean, std, weights, bias}` (arrays of the features' length; std > 0). */
export function parseLogisticModel(raw: unknown, expected: readonly string[], what: string): LogisticModel {
  const r = (raw ?? {}) as Record<string, unknown>;
  const features = r['features'];
  if (!Array.isArray(features) || features.length !== expected.length || features.some((f, i) => f !== expected[i])) {
    throw new Error(`${what}: features must be ${expected.join(', ')}`);
  }
  const vector = (key: string): Float64Array => {
    const v = r[key];
    if (!Array.isArray(v) || v.length !== expected.length || v.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
      throw new Error(`${what}: ${key} must be ${expected.length} numbers`);
    }
    return Float64Array.from(v as number[]);
  };
  const std = vector('std');
  if (std.some((s) => s <= 0)) throw new Error(`${what}: std must be positive`);
  const bias = r['bias'];
  if (typeof bias !== 'number' || !Number.isFinite(bias)) throw new Error(`${what}: bias must be a number`);
  return { features: expected, mean: vector('mean'), std, weights: vector('weights'), bias };
}

/**
 * Fits a logistic model by full-batch gradient descent (Adam) with an L2 penalty on standardised
 * features; deterministic for the same rows. Used by the training script, not at serving time.
 */
export function fitLogisticModel(
  features: readonly string[],
  rows: readonly ArrayLike<number>[],
  labels: readonly number[],
  options: { l2?: number; steps?: number; rate?: number; weights?: readonly number[] } = {},
): LogisticModel {
  const d = features.length;
  const n = rows.length;
  const sampleWeight = options.weights ?? labels.map(() => 1);
  const mean = new Float64Array(d);
  const std = new Float64Array(d);
  for (const row of rows) for (let i = 0; i < d; i++) mean[i]! += row[i]! / n;
  for (const row of rows) for (let i = 0; i < d; i++) std[i]! += (row[i]! - mean[i]!) ** 2 / n;
  for (let i = 0; i < d; i++) std[i] = Math.sqrt(std[i]!) || 1;
  const z = rows.map((row) => Float64Array.from({ length: d }, (_, i) => (row[i]! - mean[i]!) / std[i]!));
  const w = new Float64Array(d + 1);
  const m = new Float64Array(d + 1);
  const v = new Float64Array(d + 1);
  const l2 = options.l2 ?? 1e-3;
  const rate = options.rate ?? 0.05;
  const totalWeight = sampleWeight.reduce((a, b) => a + b, 0);
  for (let step = 1; step <= (options.steps ?? 2000); step++) {
    const grad = new Float64Array(d + 1);
    for (let r = 0; r < n; r++) {
      let s = w[d]!;
      for (let i = 0; i < d; i++) s += w[i]! * z[r]![i]!;
      const err = (sampleWeight[r]! * (1 / (1 + Math.exp(-s)) - labels[r]!)) / totalWeight;
      for (let i = 0; i < d; i++) grad[i]! += err * z[r]![i]!;
      grad[d]! += err;
    }
    for (let i = 0; i < d; i++) grad[i]! += l2 * w[i]!;
    for (let i = 0; i <= d; i++) {
      m[i] = 0.9 * m[i]! + 0.1 * grad[i]!;
      v[i] = 0.999 * v[i]! + 0.001 * grad[i]! ** 2;
      const mh = m[i]! / (1 - 0.9 ** step);
      const vh = v[i]! / (1 - 0.999 ** step);
      w[i]! -= (rate * mh) / (Math.sqrt(vh) + 1e-8);
    }
  }
  return { features, mean, std, weights: w.slice(0, d), bias: w[d]! };
}

/** The JSON form parseLogisticModel reads (rounded to 6 significant digits). */
export function logisticModelJson(model: LogisticModel): Record<string, unknown> {
  const round = (x: number): number => Number(x.toPrecision(6));
  return {
    features: [...model.features],
    mean: [...model.mean].map(round),
    std: [...model.std].map(round),
    weights: [...model.weights].map(round),
    bias: round(model.bias),
  };
}
