// A second-order section with the RBJ audio-EQ cookbook's low- and high-pass coefficients, run in
// place: the one filter the synthetic channels use (bench/telephone-channel.ts, the telephone band
// of training/common/simulated-channel.ts).

/** Filters `samples` (at `rate` Hz) in place through an RBJ biquad low- or high-pass at `frequency` Hz with quality `q`. */
export function rbjBiquad(samples: Float32Array, kind: 'low' | 'high', frequency: number, q: number, rate: number): void {
  const w = (2 * Math.PI * frequency) / rate;
  const alpha = Math.sin(w) / (2 * q);
  const cos = Math.cos(w);
  const a0 = 1 + alpha;
  const b0 = (kind === 'low' ? (1 - cos) / 2 : (1 + cos) / 2) / a0;
  const b1 = (kind === 'low' ? 1 - cos : -(1 + cos)) / a0;
  const b2 = b0;
  const a1 = (-2 * cos) / a0;
  const a2 = (1 - alpha) / a0;
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i]!;
    const y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
    samples[i] = y;
  }
}
