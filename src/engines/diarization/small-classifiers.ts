/**
 * The small classifiers of the segment typing (models/segment-types/*.json), with their fitting
 * (used by the training script only). Logistic regression on standardised features, the voice
 * model: p = 1 / (1 + exp(-(bias + sum w_i (x_i - mean_i) / std_i))).
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
  const { r, numbers } = modelFields(raw, expected, what);
  const vector = (key: string): Float64Array => numbers(key, expected.length);
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

/**
 * A one-hidden-layer network on standardised features: p = sigmoid(out . tanh(W x + b) + outBias).
 * The music model is one of these (models/segment-types/*.json).
 */
export interface TinyNetwork {
  readonly features: readonly string[];
  readonly mean: Float64Array;
  readonly std: Float64Array;
  /** [hidden][features] row-major. */
  readonly hidden: Float64Array;
  readonly hiddenBias: Float64Array;
  readonly out: Float64Array;
  readonly outBias: number;
}

export function networkProbability(net: TinyNetwork, x: ArrayLike<number>): number {
  const d = net.features.length;
  let z = net.outBias;
  for (let h = 0; h < net.out.length; h++) {
    let a = net.hiddenBias[h]!;
    for (let i = 0; i < d; i++) a += (net.hidden[h * d + i]! * (x[i]! - net.mean[i]!)) / net.std[i]!;
    z += net.out[h]! * Math.tanh(a);
  }
  return 1 / (1 + Math.exp(-z));
}

/** Checks and converts `{features, mean, std, hidden: number[][], hidden_bias, out, out_bias}`. */
export function parseTinyNetwork(raw: unknown, expected: readonly string[], what: string): TinyNetwork {
  const { r, numbers } = modelFields(raw, expected, what);
  const rows = r['hidden'];
  if (!Array.isArray(rows) || rows.length === 0) throw new Error(`${what}: hidden must be a non-empty array of rows`);
  const hidden = new Float64Array(rows.length * expected.length);
  rows.forEach((row: unknown, h) => {
    if (!Array.isArray(row) || row.length !== expected.length || row.some((x) => typeof x !== 'number' || !Number.isFinite(x))) {
      throw new Error(`${what}: hidden row ${h} must be ${expected.length} numbers`);
    }
    hidden.set(row as number[], h * expected.length);
  });
  const std = numbers('std', expected.length);
  if (std.some((s) => s <= 0)) throw new Error(`${what}: std must be positive`);
  const outBias = r['out_bias'];
  if (typeof outBias !== 'number' || !Number.isFinite(outBias)) throw new Error(`${what}: out_bias must be a number`);
  return {
    features: expected,
    mean: numbers('mean', expected.length),
    std,
    hidden,
    hiddenBias: numbers('hidden_bias', rows.length),
    out: numbers('out', rows.length),
    outBias,
  };
}

/**
 * Fits a TinyNetwork (tanh hidden layer) by full-batch Adam with an L2 penalty; the weights start
 * from `seed`, so a fit is reproducible. Training only.
 */
export function fitTinyNetwork(
  features: readonly string[],
  rows: readonly ArrayLike<number>[],
  labels: readonly number[],
  options: { hidden: number; seed: number; l2?: number; steps?: number; rate?: number; weights?: readonly number[] },
): TinyNetwork {
  const d = features.length;
  const n = rows.length;
  const H = options.hidden;
  const sampleWeight = options.weights ?? labels.map(() => 1);
  const totalWeight = sampleWeight.reduce((a, b) => a + b, 0);
  const mean = new Float64Array(d);
  const std = new Float64Array(d);
  for (const row of rows) for (let i = 0; i < d; i++) mean[i]! += row[i]! / n;
  for (const row of rows) for (let i = 0; i < d; i++) std[i]! += (row[i]! - mean[i]!) ** 2 / n;
  for (let i = 0; i < d; i++) std[i] = Math.sqrt(std[i]!) || 1;
  const z = new Float64Array(n * d);
  rows.forEach((row, r) => {
    for (let i = 0; i < d; i++) z[r * d + i] = (row[i]! - mean[i]!) / std[i]!;
  });
  // Parameters: hidden (H*d), hiddenBias (H), out (H), outBias (1).
  const P = H * d + 2 * H + 1;
  const w = new Float64Array(P);
  let s = options.seed >>> 0;
  const rand = (): number => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 4_294_967_296;
  };
  for (let k = 0; k < H * d; k++) w[k] = (rand() * 2 - 1) / Math.sqrt(d);
  for (let h = 0; h < H; h++) w[H * d + H + h] = (rand() * 2 - 1) / Math.sqrt(H);
  const m = new Float64Array(P);
  const v = new Float64Array(P);
  const grad = new Float64Array(P);
  const act = new Float64Array(H);
  const l2 = options.l2 ?? 1e-3;
  const rate = options.rate ?? 0.02;
  const oB = H * d + H;
  const oBias = P - 1;
  for (let step = 1; step <= (options.steps ?? 1500); step++) {
    grad.fill(0);
    for (let r = 0; r < n; r++) {
      let out = w[oBias]!;
      for (let h = 0; h < H; h++) {
        let a = w[H * d + h]!;
        for (let i = 0; i < d; i++) a += w[h * d + i]! * z[r * d + i]!;
        act[h] = Math.tanh(a);
        out += w[oB + h]! * act[h]!;
      }
      const err = (sampleWeight[r]! * (1 / (1 + Math.exp(-out)) - labels[r]!)) / totalWeight;
      grad[oBias]! += err;
      for (let h = 0; h < H; h++) {
        grad[oB + h]! += err * act[h]!;
        const back = err * w[oB + h]! * (1 - act[h]! * act[h]!);
        grad[H * d + h]! += back;
        for (let i = 0; i < d; i++) grad[h * d + i]! += back * z[r * d + i]!;
      }
    }
    for (let k = 0; k < P; k++) {
      if (k < H * d || (k >= oB && k < oBias)) grad[k]! += l2 * w[k]!;
      m[k] = 0.9 * m[k]! + 0.1 * grad[k]!;
      v[k] = 0.999 * v[k]! + 0.001 * grad[k]! ** 2;
      w[k]! -= (rate * (m[k]! / (1 - 0.9 ** step))) / (Math.sqrt(v[k]! / (1 - 0.999 ** step)) + 1e-8);
    }
  }
  return { features, mean, std, hidden: w.slice(0, H * d), hiddenBias: w.slice(H * d, H * d + H), out: w.slice(oB, oB + H), outBias: w[oBias]! };
}

/** The JSON form parseTinyNetwork reads (6 significant digits). */
export function tinyNetworkJson(net: TinyNetwork): Record<string, unknown> {
  const round = (x: number): number => Number(x.toPrecision(6));
  const d = net.features.length;
  return {
    features: [...net.features],
    mean: [...net.mean].map(round),
    std: [...net.std].map(round),
    hidden: Array.from({ length: net.out.length }, (_, h) => [...net.hidden.subarray(h * d, (h + 1) * d)].map(round)),
    hidden_bias: [...net.hiddenBias].map(round),
    out: [...net.out].map(round),
    out_bias: round(net.outBias),
  };
}

/**
 * A model file's fields once its `features` are `expected` (in order), and a reader of its arrays of
 * `length` finite numbers; both throw `${what}: ...` on anything else.
 */
function modelFields(
  raw: unknown,
  expected: readonly string[],
  what: string,
): { r: Record<string, unknown>; numbers: (key: string, length: number) => Float64Array } {
  const r = (raw ?? {}) as Record<string, unknown>;
  const features = r['features'];
  if (!Array.isArray(features) || features.length !== expected.length || features.some((f, i) => f !== expected[i])) {
    throw new Error(`${what}: features must be ${expected.join(', ')}`);
  }
  const numbers = (key: string, length: number): Float64Array => {
    const v = r[key];
    if (!Array.isArray(v) || v.length !== length || v.some((x) => typeof x !== 'number' || !Number.isFinite(x)))
      throw new Error(`${what}: ${key} must be ${length} numbers`);
    return Float64Array.from(v as number[]);
  };
  return { r, numbers };
}
