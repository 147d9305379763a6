import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

const REPO = join(import.meta.dirname, '..', '..');
const DASHBOARD = join(REPO, 'deploy', 'grafana', 'speech-gateway.json');
const ALERTS = join(REPO, 'deploy', 'prometheus', 'alerts.yaml');

/** Debian's `prometheus` package (promtool + server); .ci/run installs it, so CI fails without it. */
const hasPrometheus = spawnSync('promtool', ['--version']).status === 0 && spawnSync('prometheus', ['--version']).status === 0;
const needsPrometheus = process.env['CI'] ? describe : describe.skipIf(!hasPrometheus);

let gw: TestGateway;
let exposition = '';

beforeAll(async () => {
  gw = await startTestGateway({ METRICS_ENABLED: 'true' });
  await fetch(`${gw.url}/health`); // one request so labelled families carry samples too
  exposition = await (await fetch(gw.metricsUrl!)).text();
});
afterAll(async () => gw?.close());

/** Metric family names (and the series names a histogram or summary adds) the gateway exports. */
function exportedSeries(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
  }
  return names;
}

const PROMQL_WORDS = new Set([
  'sum',
  'avg',
  'min',
  'max',
  'count',
  'topk',
  'bottomk',
  'quantile',
  'stddev',
  'rate',
  'irate',
  'increase',
  'delta',
  'histogram_quantile',
  'label_values',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'clamp_min',
  'clamp_max',
  'abs',
  'le',
  'instance',
  'job',
]);
/** Series named by Prometheus itself rather than by an exporter. */
const PROMETHEUS_SERIES = new Set(['up']);

/** The metric names a PromQL expression reads: strings, label matchers, ranges and grouping clauses removed. */
function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  const names = stripped.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return names.filter((n) => !PROMQL_WORDS.has(n) && !/^\d/.test(n));
}

function dashboardExpressions(): string[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: { targets?: { expr: string }[] }[];
    templating: { list: { definition?: string }[] };
  };
  const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
  for (const v of dashboard.templating.list) if (v.definition) exprs.push(v.definition);
  return exprs;
}

function alertExpressions(): string[] {
  // The rule file is YAML; each rule's `expr:` is either inline or a `|` block.
  const lines = readFileSync(ALERTS, 'utf8').split('\n');
  const exprs: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)expr:\s*(.*)$/.exec(lines[i]!);
    if (!m) continue;
    if (m[2] !== '|') {
      exprs.push(m[2]!);
      continue;
    }
    const block: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1]!.startsWith(m[1]! + '  ') || lines[i + 1]!.trim() === '')) block.push(lines[++i]!.trim());
    exprs.push(block.join(' '));
  }
  return exprs;
}

describe('dashboard and alert rules', () => {
  it('the expression parser finds metric names and ignores PromQL around them', () => {
    expect(
      metricNamesIn(
        'histogram_quantile(0.95, sum by (le, route) (rate(gateway_http_request_duration_seconds_bucket{instance=~"$instance"}[$__rate_interval])))',
      ),
    ).toEqual(['gateway_http_request_duration_seconds_bucket']);
    expect(metricNamesIn('sum(rate(a_total{status=~"5.."}[5m])) / sum(rate(b_total[5m])) > 0.05')).toEqual(['a_total', 'b_total']);
  });

  it('every dashboard panel and alert names only metrics the gateway exports', () => {
    const exported = exportedSeries(exposition);
    expect(exported.size).toBeGreaterThan(20);
    const expressions = [...dashboardExpressions(), ...alertExpressions()];
    expect(expressions.length).toBeGreaterThan(20);
    const unknown = new Set<string>();
    for (const expr of expressions) {
      const names = metricNamesIn(expr);
      expect(names.length, expr).toBeGreaterThan(0);
      for (const name of names) if (!exported.has(name) && !PROMETHEUS_SERIES.has(name)) unknown.add(name);
    }
    expect([...unknown]).toEqual([]);
  });

  it('covers the questions operators ask: traffic, errors, latency, streams, turns, saturation, translation', () => {
    const all = dashboardExpressions().join('\n');
    for (const family of [
      'gateway_http_requests_total',
      'gateway_http_request_duration_seconds_bucket',
      'gateway_ws_sessions',
      'gateway_ws_turn_latency_seconds_bucket',
      'inference_queue_depth',
      'inference_queue_wait_seconds_bucket',
      'gateway_audio_ingested_seconds_total',
      'gateway_real_time_factor_bucket',
      'gateway_jobs_total',
      'gateway_job_queue_depth',
      'gateway_webhook_attempts_total',
      'gateway_rejections_total',
      'gateway_overload_level',
      'gateway_ws_session_duration_seconds_bucket',
      'translation_sentences_total',
      'translation_queue_depth',
      'translation_batch_seconds_bucket',
      'translation_guard_rows_total',
    ]) {
      expect(all).toContain(family);
    }
  });
});

needsPrometheus('Prometheus tooling', () => {
  it('promtool accepts the exposition (metric names, types, help)', () => {
    const result = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
    expect(result.stdout + result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it('promtool accepts the alert rules', () => {
    const result = spawnSync('promtool', ['check', 'rules', ALERTS], { encoding: 'utf8' });
    expect(result.status, result.stdout + result.stderr).toBe(0);
  });

  it('a real Prometheus server scrapes the gateway and loads the alert rules', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
    const port = await freePort();
    const target = new URL(gw.metricsUrl!).host; // the metrics listener, not the public port
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        `rule_files: [${JSON.stringify(ALERTS)}]`,
        'scrape_configs:',
        '  - job_name: speech-gateway',
        `    static_configs: [{ targets: [${JSON.stringify(target)}] }]`,
      ].join('\n'),
    );
    let server: ChildProcess | undefined;
    try {
      server = spawn(
        'prometheus',
        [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
        { stdio: 'ignore' },
      );
      const api = `http://127.0.0.1:${port}/api/v1`;
      const query = async (q: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> => {
        const res = await fetch(`${api}/query?query=${encodeURIComponent(q)}`).catch(() => null);
        if (!res?.ok) return [];
        return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
      };
      let up: { value: [number, string] }[] = [];
      for (let i = 0; i < 150 && up[0]?.value[1] !== '1'; i++) {
        await new Promise((r) => setTimeout(r, 200));
        up = await query('up{job="speech-gateway"}');
      }
      expect(up[0]?.value[1]).toBe('1');
      const requests = await query('gateway_http_requests_total{route="/health"}');
      expect(requests.length).toBeGreaterThan(0);
      const rules = (await (await fetch(`${api}/rules`)).json()) as { data: { groups: { rules: unknown[] }[] } };
      expect(rules.data.groups.flatMap((g) => g.rules).length).toBe(alertExpressions().length);
    } finally {
      server?.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 300));
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}
