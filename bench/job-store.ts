/**
 * Job store benchmark: the operations a job goes through (submit, claim under the key's limit,
 * progress writes under the lease, the final write, reads and a list page), run by `concurrency`
 * workers at once against PostgreSQL and — the baseline, in the same run — SQLite (a WAL file in
 * a temporary folder). Prints operations per second and the PostgreSQL / SQLite ratio of each.
 *
 *   npm run build && node dist/bench/job-store.js [jobs=2000] [concurrency=8]
 *
 * PostgreSQL: BENCH_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test (a schema of
 * its own is created and dropped).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildJob } from '../src/jobs/new-job.js';
import type { JobRecord } from '../src/platform/db/job-records.js';
import { PostgresStore } from '../src/platform/db/postgres/postgres-store.js';
import { SqliteStore } from '../src/platform/db/sqlite/sqlite-store.js';
import type { Store } from '../src/platform/db/store-types.js';
import { testPrincipal } from '../test/helpers/job-services.js';
import { ratio3, writeBenchResults } from './bench-results.js';

const jobsTotal = Number(process.argv[2] ?? 2000);
const concurrency = Number(process.argv[3] ?? 8);
const databaseUrl = process.env['BENCH_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

const OPERATIONS = ['insert', 'claim', 'progress', 'complete', 'get', 'list', 'lifecycle'] as const;
type Operation = (typeof OPERATIONS)[number];
type Figures = Record<Operation, number>;

/** The 20 keys the benchmark's jobs belong to (only their ids and accounts reach the store). */
const PRINCIPALS = Array.from({ length: 20 }, (_, i) => testPrincipal(String(i)));

/** A queued job as POST /v1/transcriptions builds it. */
function newJob(i: number): JobRecord {
  return buildJob({ principal: PRINCIPALS[i % 20]!, kind: 'single', language: 'am', requestedModel: '', audioUrl: 'https://example.com/a.mp3' });
}

const SEGMENTS = Array.from({ length: 20 }, (_, i) => ({
  id: i,
  start_ms: i * 1000,
  end_ms: i * 1000 + 900,
  duration_ms: 900,
  text: 'ሰላም ለዓለም ይሁን',
  speaker: null,
  confidence: 0.9,
}));

/** Runs `work(i)` for i in [0, count) with `concurrency` workers; returns operations per second. */
async function timed(count: number, work: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) await work(i);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return Math.round(count / seconds);
}

async function measure(store: Store): Promise<Figures> {
  const jobs = Array.from({ length: jobsTotal }, (_, i) => newJob(i));
  const owner = 'bench/1/x';
  const lease = () => new Date(Date.now() + 60_000).toISOString();
  const figures = {} as Figures;
  figures.insert = await timed(jobs.length, (i) => store.jobs.insert([jobs[i]!]));
  figures.claim = await timed(jobs.length, (i) =>
    store.jobs.claim(jobs[i]!.id, {
      owner,
      leaseUntil: lease(),
      maxRunningForKey: 1_000_000,
      patch: { startedAt: new Date().toISOString(), progress: { stage: 'decoding', percent: 0, total_segments: 0, done_segments: 0 } },
    }),
  );
  figures.progress = await timed(jobs.length, (i) =>
    store.jobs.update(jobs[i]!.id, { progress: { stage: 'transcribing', percent: 50, total_segments: 20, done_segments: 10 } }, ['processing'], {
      leaseOwner: owner,
    }),
  );
  figures.complete = await timed(jobs.length, (i) =>
    store.jobs.update(
      jobs[i]!.id,
      { status: 'completed', eventsPending: true, text: 'ሰላም', segments: SEGMENTS, completedAt: new Date().toISOString(), leaseOwner: null, leaseUntil: null },
      ['processing'],
      { leaseOwner: owner },
    ),
  );
  figures.get = await timed(jobs.length, (i) => store.jobs.get(jobs[i]!.id));
  figures.list = await timed(Math.min(jobs.length, 1000), (i) => store.jobs.list({ accountId: `acct_${i % 20}`, limit: 20 }));
  // Whole lifecycles: insert, claim, two progress writes, the final write, one read.
  const more = Array.from({ length: Math.floor(jobsTotal / 2) }, (_, i) => newJob(i));
  figures.lifecycle = await timed(more.length, async (i) => {
    const job = more[i]!;
    await store.jobs.insert([job]);
    await store.jobs.claim(job.id, { owner, leaseUntil: lease(), maxRunningForKey: 1_000_000, patch: { startedAt: new Date().toISOString() } });
    for (let p = 0; p < 2; p++)
      await store.jobs.update(job.id, { progress: { stage: 'transcribing', percent: p * 50, total_segments: 2, done_segments: p } }, ['processing'], {
        leaseOwner: owner,
      });
    await store.jobs.update(job.id, { status: 'completed', segments: SEGMENTS, leaseOwner: null, leaseUntil: null }, ['processing'], { leaseOwner: owner });
    await store.jobs.get(job.id);
  });
  return figures;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-job-store-'));
  const schema = `bench_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  let sqlite: Figures;
  let postgres: Figures;
  try {
    const lite = SqliteStore.open(join(dir, 'gateway.db'));
    try {
      sqlite = await measure(lite);
    } finally {
      await lite.close();
    }
    const url = new URL(databaseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const shared = await PostgresStore.open({ connectionString: url.toString(), poolSize: concurrency });
    try {
      postgres = await measure(shared);
    } finally {
      await shared.close();
    }
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
  const ratios = Object.fromEntries(OPERATIONS.map((op) => [op, ratio3(postgres[op], sqlite[op])]));
  const report = {
    date: new Date().toISOString(),
    jobs: jobsTotal,
    concurrency,
    node: process.version,
    operations_per_second: { sqlite, postgres },
    postgres_to_sqlite_ratios: ratios,
  };
  console.log(`job store, ${jobsTotal} jobs, ${concurrency} concurrent callers (operations per second)`);
  console.log(`${'operation'.padEnd(10)} ${'sqlite'.padStart(8)} ${'postgres'.padStart(9)} ${'ratio'.padStart(7)}`);
  for (const op of OPERATIONS)
    console.log(`${op.padEnd(10)} ${String(sqlite[op]).padStart(8)} ${String(postgres[op]).padStart(9)} ${ratios[op]!.toFixed(3).padStart(7)}`);
  writeBenchResults('job-store', report);
}

await main();
