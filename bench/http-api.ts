/**
 * REST overhead benchmark. In one run: autocannon against a bare uWebSockets.js app answering
 * the same JSON (the baseline), then against the gateway's GET /health (no credential) and
 * GET /v1/languages (bearer key lookup, rate limiter, schema-checked route). Prints each
 * result and the ratio to the baseline, and writes bench/results/http-api.json.
 *
 *   npm run build && node dist/bench/http-api.js [seconds=5] [connections=50]
 */
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { uws } from '../src/platform/http/uws.js';
import { REPO_ROOT } from '../test/helpers/fixtures.js';
import { startTestGateway } from '../test/helpers/test-gateway.js';
import { publishReport, ratio3 } from './bench-results.js';

const seconds = Number(process.argv[2] ?? 5);
const connections = Number(process.argv[3] ?? 50);

interface Figures {
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
}

const autocannonCli = createRequire(import.meta.url).resolve('autocannon/autocannon.js');

/** Runs autocannon in its own process so that the load generator does not share our event loop. */
async function load(url: string, headers: Record<string, string> = {}): Promise<Figures> {
  const args = [autocannonCli, '-c', String(connections), '-d', String(seconds), '-j'];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  args.push(url);
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number };
  return {
    requestsPerSecond: Math.round(result.requests.average),
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    non2xx: result.non2xx,
  };
}

async function baselineServer(body: string): Promise<{ port: number; close: () => void }> {
  const app = uws.App();
  app.get('/*', (res) => {
    res.cork(() => {
      res.writeHeader('Content-Type', 'application/json');
      res.end(body);
    });
  });
  return new Promise((resolve, reject) =>
    app.listen('127.0.0.1', 0, (socket) => {
      if (!socket) return reject(new Error('listen failed'));
      resolve({ port: uws.us_socket_local_port(socket), close: () => uws.us_listen_socket_close(socket) });
    }),
  );
}

async function main(): Promise<void> {
  // The shipped models and the default worker count, as a deployment runs; responses unchecked.
  const started = await startTestGateway(
    {
      RATE_LIMIT_PER_MINUTE: '1000000',
      METRICS_ENABLED: 'true',
      MODELS_DIR: join(REPO_ROOT, 'models'),
      INFERENCE_WORKERS: '0',
      ALLOW_PRIVATE_NETWORK: 'false',
    },
    { validateResponses: false, account: 'bench', dataDirPrefix: 'bench-http-' },
  );
  const { gateway } = started;
  const key = await started.key({ limits: { requestsPerMinute: 1_000_000_000 } });
  const sample = await (await fetch(`http://127.0.0.1:${gateway.port}/v1/languages`, { headers: { authorization: `Bearer ${key}` } })).text();
  const baseline = await baselineServer(sample);
  try {
    const results = {
      baseline: await load(`http://127.0.0.1:${baseline.port}/v1/languages`),
      health: await load(`http://127.0.0.1:${gateway.port}/health`),
      languages: await load(`http://127.0.0.1:${gateway.port}/v1/languages`, { authorization: `Bearer ${key}` }),
    };
    const ratio = (f: Figures) => ratio3(f.requestsPerSecond, results.baseline.requestsPerSecond);
    publishReport('http-api', { seconds, connections, results, ratios_to_baseline: { health: ratio(results.health), languages: ratio(results.languages) } });
  } finally {
    baseline.close();
    await started.close();
  }
}

void main();
