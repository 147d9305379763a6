// Prometheus histograms read from two scrapes of the text exposition: what happened between them,
// per label set. For benches that want to say where a latency comes from (queue wait, piece time)
// over their loaded phase only.
//
// Rules: a series is a histogram's `_bucket` lines with the same labels but `le`; the difference of
// two scrapes is taken bucket by bucket (cumulative counts, so a difference is still cumulative);
// a quantile is the upper bound of the first bucket holding it (`+Inf` reads as null): an upper
// bound, as a histogram cannot say more. The mean is the `_sum` difference over the `_count` one.

export interface HistogramSeries {
  /** The labels but `le`, as written (`kind="final",model="x"`), sorted by name. */
  readonly labels: string;
  /** Upper bounds, ascending; the last is Infinity. */
  readonly bounds: readonly number[];
  /** Cumulative counts per bound. */
  readonly cumulative: readonly number[];
  readonly sum: number;
  readonly count: number;
}

function parseLabels(text: string): Map<string, string> {
  const labels = new Map<string, string>();
  for (const match of text.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels.set(match[1]!, match[2]!);
  return labels;
}

function labelKey(labels: ReadonlyMap<string, string>): string {
  return [...labels]
    .filter(([name]) => name !== 'le')
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}="${value}"`)
    .join(',');
}

/** Every series of histogram `name` in a scrape, by label key. */
export function readHistogram(scrape: string, name: string): Map<string, HistogramSeries> {
  const buckets = new Map<string, [number, number][]>();
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const line of scrape.split('\n')) {
    const match = /^(\w+)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (match === null) continue;
    const [, metric, labelText = '', valueText] = match;
    const labels = parseLabels(labelText);
    const key = labelKey(labels);
    const value = Number(valueText);
    if (metric === `${name}_bucket`) {
      const le = labels.get('le');
      if (le === undefined) continue;
      const list = buckets.get(key) ?? [];
      list.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), value]);
      buckets.set(key, list);
    } else if (metric === `${name}_sum`) sums.set(key, value);
    else if (metric === `${name}_count`) counts.set(key, value);
  }
  const series = new Map<string, HistogramSeries>();
  for (const [key, list] of buckets) {
    list.sort((a, b) => a[0] - b[0]);
    series.set(key, { labels: key, bounds: list.map((b) => b[0]), cumulative: list.map((b) => b[1]), sum: sums.get(key) ?? 0, count: counts.get(key) ?? 0 });
  }
  return series;
}

export interface HistogramSummary {
  readonly count: number;
  /** Mean, in the histogram's unit times `scale`. */
  readonly mean: number | null;
  /** Upper bounds of the buckets holding the median and the 95th percentile (null: past the last finite bound). */
  readonly p50AtMost: number | null;
  readonly p95AtMost: number | null;
}

/** What `after` adds to `before` per label key (series new in `after` count whole); values times `scale`. */
export function histogramBetween(before: string, after: string, name: string, scale = 1): Record<string, HistogramSummary> {
  const start = readHistogram(before, name);
  const out: Record<string, HistogramSummary> = {};
  for (const [key, end] of readHistogram(after, name)) {
    const base = start.get(key);
    const cumulative = end.cumulative.map((c, i) => c - (base?.cumulative[i] ?? 0));
    const count = end.count - (base?.count ?? 0);
    const sum = end.sum - (base?.sum ?? 0);
    const quantile = (q: number): number | null => {
      if (count <= 0) return null;
      const index = cumulative.findIndex((c) => c >= q * count);
      const bound = index < 0 ? Number.POSITIVE_INFINITY : end.bounds[index]!;
      return Number.isFinite(bound) ? bound * scale : null;
    };
    out[key === '' ? 'all' : key] = { count, mean: count > 0 ? (sum / count) * scale : null, p50AtMost: quantile(0.5), p95AtMost: quantile(0.95) };
  }
  return out;
}
