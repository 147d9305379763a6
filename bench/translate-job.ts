/**
 * File translation benchmark: one job of 100 files (default) end to end, through a compiled
 * gateway process on its normal boot (the translation engine of TRANSLATION_MODEL under
 * MODELS_DIR), the files served by a local HTTPS server (test CA; the gateway is told to trust it
 * and, as an operator would for a private host, ALLOW_PRIVATE_NETWORK=true). Measures the wall
 * time from POST /translate to a final status, units, lines and characters per second, and
 * checks every output through its signed URL. A fifth of the files are transcript JSON.
 *
 *   npm run bench:translate-job -- [files=100] [lines=8] [targets=am] [unitConcurrency=4]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { distEntry, REPO_ROOT, runNode, startServerProcess } from '../test/helpers/spawn-dist.js';
import { startTestServer } from '../test/helpers/tls-servers.js';
import { publishReport } from './bench-results.js';

const files = Number(process.argv[2] ?? 100);
const linesPerFile = Number(process.argv[3] ?? 8);
const targets = (process.argv[4] ?? 'am').split(',');
const unitConcurrency = process.argv[5] ?? '4';

/** Everyday English sentences (5 to 16 words), combined deterministically into the files. */
const SENTENCES = [
  'The meeting will start at nine in the morning.',
  'Please send me the report before Friday.',
  'The rains came early this year and the farmers are happy.',
  'How much does a kilo of coffee cost at the market today?',
  'My brother works at the hospital in the city.',
  'The children walked to school together.',
  'We need more water for the cattle during the dry season.',
  'The new road connects the two towns in less than an hour.',
  'She asked the teacher a question about the lesson.',
  'Thank you for coming to the celebration.',
  'The bus leaves from the main station every afternoon.',
  'Health workers visited every village in the district last month.',
  'He bought bread, tea and sugar at the small shop near the church.',
  'The government announced a new plan for schools.',
  'It is very cold in the highlands at night.',
  'Our team won the football match on Sunday.',
  'The price of fuel has risen again this week.',
  'Can you tell me the way to the post office?',
  'They planted trees along the river to stop the soil from washing away.',
  'The doctor said the child needs to rest for three days.',
  'Many people gathered in the square to hear the news.',
  'The library is open from Monday to Saturday.',
  'I will call you when I arrive in Addis Ababa.',
  'The harvest was good because of the rain in the spring.',
];

function fileText(index: number): string[] {
  return Array.from({ length: linesPerFile }, (_, line) => SENTENCES[(index * 7 + line * 5) % SENTENCES.length]!);
}

function fileBody(index: number): { name: string; body: string; type: string } {
  const lines = fileText(index);
  if (index % 5 !== 4) return { name: `doc-${index}.txt`, body: `${lines.join('\n')}\n`, type: 'text/plain; charset=utf-8' };
  const segments = lines.map((text, i) => ({ id: i, start_time: (i * 4).toFixed(2), end_time: (i * 4 + 3.5).toFixed(2), type: 'speech', text }));
  const transcript = { job_id: `tr_bench_${index}`, status: 'COMPLETED', duration: lines.length * 4, language: 'en', text: lines.join(' '), segments };
  return { name: `talk-${index}.json`, body: JSON.stringify(transcript), type: 'application/json' };
}

async function main(): Promise<void> {
  const bodies = Array.from({ length: files }, (_, i) => fileBody(i));
  const byPath = new Map(bodies.map((b) => [`/${b.name}`, b]));
  const sources = await startTestServer({
    tls: true,
    respond: (req, res) => {
      const file = byPath.get(req.url);
      if (file === undefined) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': file.type }).end(file.body);
    },
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-translate-'));
  const env = {
    DATA_DIR: dataDir,
    ALLOW_PRIVATE_NETWORK: 'true',
    NODE_EXTRA_CA_CERTS: join(REPO_ROOT, 'test', 'fixtures', 'tls', 'ca.pem'),
    RATE_LIMIT_PER_MINUTE: '100000',
    // Units take the network's time (the shipped folder's transfer tables would answer them in microseconds).
    TRANSLATION_TRANSFER: 'off',
    TRANSLATION_UNIT_CONCURRENCY: unitConcurrency,
  };
  const created = await runNode(distEntry('src/app/cli/keys-cli.js'), ['create', '--account', 'bench'], env, 60_000);
  const key = (JSON.parse(created.stdout) as { key: string }).key;
  const server = await startServerProcess(env);
  const base = `http://127.0.0.1:${server.port}`;
  try {
    const started = performance.now();
    const response = await fetch(`${base}/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({
        source_language: 'en',
        target_languages: targets,
        input_config: { type: 'BLOB_STORAGE', uris: bodies.map((b) => `${sources.origin}/${b.name}`) },
        output_config: { destination_uri: 'svc://bench/out' },
      }),
    });
    const submitted = (await response.json()) as { job_id?: string };
    if (response.status !== 202 || submitted.job_id === undefined) throw new Error(`submission failed: ${response.status} ${JSON.stringify(submitted)}`);
    let status: { status: string; created_at: string; completed_at: string | null; progress: Record<string, number> };
    for (;;) {
      status = (await (await fetch(`${base}/translate/${submitted.job_id}`, { headers: { 'x-api-key': key } })).json()) as typeof status;
      if (['COMPLETED', 'PARTIAL', 'FAILED'].includes(status.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const results = (await (await fetch(`${base}/translate/${submitted.job_id}/results`, { headers: { 'x-api-key': key } })).json()) as {
      summary: { status: string; total_characters: number; success_count: number; failure_count: number };
      outputs: { target_uri: string | null; error: { code: string } | null }[];
    };
    let fetched = 0;
    for (const output of results.outputs) if (output.target_uri !== null && (await fetch(output.target_uri)).ok) fetched++;
    const units = files * targets.length;
    const lines = units * linesPerFile;
    const words = bodies.reduce((sum, _b, i) => sum + fileText(i).join(' ').split(/\s+/).length, 0) * targets.length;
    publishReport('translate-job', {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      files,
      targets,
      linesPerFile,
      units,
      transcriptFiles: bodies.filter((b) => b.name.endsWith('.json')).length,
      translationUnitConcurrency: Number(unitConcurrency),
      status: results.summary.status,
      successCount: results.summary.success_count,
      failureCount: results.summary.failure_count,
      errors: results.outputs.filter((o) => o.error !== null).map((o) => o.error!.code),
      outputsFetchedThroughSignedUrls: fetched,
      sourceCharacters: results.summary.total_characters,
      wallSeconds: Math.round(wallSeconds * 100) / 100,
      gatewayProcessingSeconds: status.completed_at === null ? null : (Date.parse(status.completed_at) - Date.parse(status.created_at)) / 1000,
      unitsPerSecond: Math.round((units / wallSeconds) * 100) / 100,
      filesPerSecond: Math.round((files / wallSeconds) * 100) / 100,
      sentencesPerSecond: Math.round((lines / wallSeconds) * 10) / 10,
      wordsPerSecond: Math.round(words / wallSeconds),
      charactersPerSecond: Math.round(results.summary.total_characters / wallSeconds),
    });
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
    await sources.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
