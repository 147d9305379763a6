/**
 * chrF (Popović 2015) as sacreBLEU computes it by default: character n-grams of orders 1 to 6
 * over each sentence with all whitespace removed (characters are Unicode code points), n-gram
 * statistics summed over the corpus per order (hypothesis n-grams, reference n-grams, matches =
 * sum of min(count in hypothesis, count in reference)); precision and recall averaged over the
 * orders that have n-grams on both sides, then
 *   chrF = 100 * (1 + β²) * P * R / (β² * P + R),   β = 2 (recall counts four times as much).
 * One reference per hypothesis. Pure.
 */

export interface ChrfOptions {
  /** Highest character n-gram order. Default 6. */
  readonly order?: number;
  /** Recall weight. Default 2. */
  readonly beta?: number;
}

export interface ChrfStatistics {
  /** Per order n (index n - 1): [hypothesis n-grams, reference n-grams, matches]. */
  readonly orders: ReadonlyArray<readonly [number, number, number]>;
}

/** How often each n-gram of `units` occurs (grams keyed by their units joined with U+0000). */
export function ngramCounts(units: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let i = 0; i + n <= units.length; i++) {
    const gram = units.slice(i, i + n).join('\u0000');
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

const characters = (text: string): string[] => Array.from(text.replace(/\s+/gu, ''));

/** The n-gram statistics of one hypothesis against its reference. */
export function chrfSentenceStatistics(hypothesis: string, reference: string, order = 6): ChrfStatistics {
  const hyp = characters(hypothesis);
  const ref = characters(reference);
  const orders: Array<[number, number, number]> = [];
  for (let n = 1; n <= order; n++) {
    const h = ngramCounts(hyp, n);
    const r = ngramCounts(ref, n);
    let matches = 0;
    for (const [gram, count] of h) matches += Math.min(count, r.get(gram) ?? 0);
    orders.push([Math.max(0, hyp.length - n + 1), Math.max(0, ref.length - n + 1), matches]);
  }
  return { orders };
}

/** chrF from summed statistics (0 to 100). */
export function chrfFromStatistics(statistics: ChrfStatistics, beta = 2): number {
  const factor = beta * beta;
  let precision = 0;
  let recall = 0;
  let effective = 0;
  for (const [hyp, ref, matches] of statistics.orders) {
    // sacreBLEU's default (no eps smoothing): only orders with n-grams on both sides count.
    if (hyp === 0 || ref === 0) continue;
    precision += matches / hyp;
    recall += matches / ref;
    effective++;
  }
  if (effective === 0) return 0;
  precision /= effective;
  recall /= effective;
  if (precision + recall === 0) return 0;
  return (100 * (1 + factor) * precision * recall) / (factor * precision + recall);
}

/** Corpus chrF of hypotheses against references (same length, one reference each), 0 to 100. */
export function corpusChrf(hypotheses: readonly string[], references: readonly string[], options: ChrfOptions = {}): number {
  if (hypotheses.length !== references.length) throw new RangeError(`${hypotheses.length} hypotheses for ${references.length} references`);
  const order = options.order ?? 6;
  const sums: Array<[number, number, number]> = Array.from({ length: order }, () => [0, 0, 0]);
  hypotheses.forEach((hypothesis, i) => {
    chrfSentenceStatistics(hypothesis, references[i]!, order).orders.forEach(([h, r, m], n) => {
      const sum = sums[n]!;
      sum[0] += h;
      sum[1] += r;
      sum[2] += m;
    });
  });
  return chrfFromStatistics({ orders: sums }, options.beta ?? 2);
}
