/**
 * Upload benchmark: streams one large WAV file (default 200 MB) to the gateway as a multipart
 * POST /v1/uploads and as a signed PUT, and — the baseline, in the same run — to a bare
 * node:http server that pipes the body into a file. Each server runs in its own process; the
 * figures are throughput and the server's peak resident memory (VmRSS sampled every 10 ms) over
 * its memory at rest, to show that uploads stream to storage instead of being held in memory.
 *
 *   npm run build && node dist/bench/uploads.js [megabytes=200] [rounds=3]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openAsBlob, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { wavHeader } from '../test/helpers/fixtures.js';
import { distEntry, REPO_ROOT, runNode, startServerProcess } from '../test/helpers/spawn-dist.js';
import { publishReport, ratio3 } from './bench-results.js';

const megabytes = Number(process.argv[2] ?? 200);
const rounds = Number(process.argv[3] ?? 3);
const root = REPO_ROOT;

interface Figures {
  readonly megabytesPerSecond: number;
  /** Peak resident memory of the server process during the uploads, over its memory at rest (MB). */
  readonly peakRssGrowthMb: number;
}

/** A 16 kHz mono 16-bit WAV of `bytes` bytes: a valid header, then a quiet sawtooth. */
function makeWav(path: string, bytes: number): void {
  const data = bytes - 44;
  const fd = openSync(path, 'w');
  writeSync(fd, wavHeader(data));
  const chunk = Buffer.alloc(1 << 20);
  for (let i = 0; i < chunk.length; i += 2) chunk.writeInt16LE(((i / 2) % 200) - 100, i);
  for (let written = 0; written < data; written += chunk.length) writeSync(fd, chunk, 0, Math.min(chunk.length, data - written));
  closeSync(fd);
}

/** Resident memory (VmRSS) of a process, in MB. */
function memory(pid: number): { rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024 };
}

function startProcess(args: string[], env: Record<string, string>, ready: RegExp): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, cwd: root });
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (match) resolve({ child, port: Number(match[1]) });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${output}`)));
  });
}

const BASELINE = `
const http = require('node:http'); const fs = require('node:fs'); let n = 0;
const server = http.createServer((req, res) => {
  const out = fs.createWriteStream(process.argv[1] + '/upload-' + (n++));
  req.pipe(out).on('finish', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{}'));
});
server.listen(0, '127.0.0.1', () => console.log('listening on ' + server.address().port));`;

/** Runs `upload` `rounds` times while sampling the server's memory; returns the figures. */
async function measure(pid: number, bytes: number, upload: () => Promise<void>): Promise<Figures> {
  await new Promise((r) => setTimeout(r, 300));
  const atRest = memory(pid).rss;
  let peak = atRest;
  const sampler = setInterval(() => (peak = Math.max(peak, memory(pid).rss)), 10);
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) await upload();
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  return { megabytesPerSecond: Math.round(((bytes * rounds) / 1e6 / seconds) * 10) / 10, peakRssGrowthMb: Math.round((peak - atRest) * 10) / 10 };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'bench-uploads-'));
  const file = join(work, 'big.wav');
  const bytes = megabytes * 1_000_000;
  makeWav(file, bytes);
  const dataDir = join(work, 'data');
  const env = {
    DATA_DIR: dataDir,
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    MAX_AUDIO_BYTES: '2GB',
    RATE_LIMIT_PER_MINUTE: '100000',
  };
  const created = await runNode(distEntry('src/app/cli/keys-cli.js'), ['create', '--account', 'bench'], { ...env, LOG_LEVEL: 'silent' });
  if (created.code !== 0) throw new Error(`keys-cli failed: ${created.stderr}`);
  const key = (JSON.parse(created.stdout) as { key: string }).key;
  const baselineDir = join(work, 'baseline');
  mkdirSync(baselineDir);
  const baseline = await startProcess(['-e', BASELINE, baselineDir], {}, /listening on (\d+)/);
  const gateway = await startServerProcess(env);
  const gatewayUrl = `http://127.0.0.1:${gateway.port}`;
  const auth = { authorization: `Bearer ${key}` };
  const expect = async (response: Response, status: number): Promise<void> => {
    const text = await response.text();
    if (response.status !== status) throw new Error(`HTTP ${response.status}: ${text}`);
  };
  try {
    const results = {
      baseline: await measure(baseline.child.pid!, bytes, async () =>
        expect(await fetch(`http://127.0.0.1:${baseline.port}/`, { method: 'PUT', body: await openAsBlob(file) }), 201),
      ),
      signedPut: await measure(gateway.child.pid!, bytes, async () => {
        const signed = (await (await fetch(`${gatewayUrl}/v1/uploads/signed-url?filename=big.wav&content_type=audio/wav`, { headers: auth })).json()) as {
          upload_url: string;
        };
        const url = signed.upload_url.replace(/^http:\/\/localhost:\d+/, gatewayUrl);
        await expect(await fetch(url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: await openAsBlob(file) }), 200);
      }),
      multipart: await measure(gateway.child.pid!, bytes, async () => {
        const form = new FormData();
        form.append('file', await openAsBlob(file, { type: 'audio/wav' }), 'big.wav');
        await expect(await fetch(`${gatewayUrl}/v1/uploads`, { method: 'POST', headers: auth, body: form }), 201);
      }),
    };
    const ratio = (f: Figures) => ratio3(f.megabytesPerSecond, results.baseline.megabytesPerSecond);
    publishReport('uploads', {
      megabytes,
      rounds,
      results,
      throughput_ratios_to_baseline: { signedPut: ratio(results.signedPut), multipart: ratio(results.multipart) },
    });
  } finally {
    baseline.child.kill('SIGTERM');
    gateway.child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    rmSync(work, { recursive: true, force: true });
  }
}

void main();
