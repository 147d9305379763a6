// The overload bench's histogram reader against a real prom-client registry's exposition.
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { histogramBetween, readHistogram } from '../../bench/prom-histogram.js';

describe('histograms between two scrapes', () => {
  it('reads the series per label set and keeps only what came between the scrapes', async () => {
    const registry = new Registry();
    const wait = new Histogram({ name: 'wait_seconds', help: 'h', labelNames: ['priority'], buckets: [0.01, 0.1, 1], registers: [registry] });
    wait.observe({ priority: 'interactive' }, 5); // before: past the last bound
    const before = await registry.metrics();
    for (const v of [0.005, 0.005, 0.05, 0.5]) wait.observe({ priority: 'interactive' }, v);
    for (let i = 0; i < 20; i++) wait.observe({ priority: 'partial' }, i < 18 ? 0.05 : 2);
    const after = await registry.metrics();

    const series = readHistogram(after, 'wait_seconds');
    expect([...series.keys()].sort()).toEqual(['priority="interactive"', 'priority="partial"']);
    expect(series.get('priority="interactive"')).toMatchObject({ bounds: [0.01, 0.1, 1, Number.POSITIVE_INFINITY], cumulative: [2, 3, 4, 5], count: 5 });

    const between = histogramBetween(before, after, 'wait_seconds', 1000);
    // the 5 s observation before the first scrape is not counted
    expect(between['priority="interactive"']).toEqual({ count: 4, mean: expect.closeTo(140, 6), p50AtMost: 10, p95AtMost: 1000 });
    // 18 of 20 within 0.1 s: the median is in that bucket, the 95th past the last finite bound
    expect(between['priority="partial"']).toMatchObject({ count: 20, p50AtMost: 100, p95AtMost: null });
  });

  it('gives nothing for a histogram the scrape lacks, and null quantiles for an idle series', () => {
    expect(readHistogram('other_total 3\n', 'wait_seconds').size).toBe(0);
    const scrape = 'x_bucket{le="1"} 2\nx_bucket{le="+Inf"} 2\nx_sum 1\nx_count 2\n';
    expect(histogramBetween(scrape, scrape, 'x')).toEqual({ all: { count: 0, mean: null, p50AtMost: null, p95AtMost: null } });
  });
});
