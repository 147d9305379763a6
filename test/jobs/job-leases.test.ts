// Job leases: a process renews the lease of each job it runs and gives it up when the job ends;
// a job whose lease ended is taken over (requeued, or failed once out of attempts) by one process
// of however many sweep, and at start by the only process using a SQLite store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Asr } from '../../src/engines/asr/asr.js';
import { buildJob } from '../../src/jobs/new-job.js';
import { principalFor } from '../../src/platform/auth/principal.js';
import type { JobRecord } from '../../src/platform/db/job-records.js';
import { PostgresStore } from '../../src/platform/db/postgres/postgres-store.js';
import type { Store } from '../../src/platform/db/store-types.js';
import { LocalFileStorage } from '../../src/platform/files/local-file-storage.js';
import { UsageRecorder } from '../../src/platform/limits/usage-recorder.js';
import { skipWithout } from '../helpers/distributed-servers.js';
import { HeldEngine, silentLogger, storedAudioRunner, testJobService, testPrincipal, withSqliteStore } from '../helpers/job-services.js';
import { useTestSchema } from '../helpers/suite-fixtures.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const principal = testPrincipal('lease');

function stored(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...buildJob({ principal, kind: 'single', language: 'am', requestedModel: '', audio: { key: 'audio/held.wav', size: 4, filename: null } }),
    ...overrides,
  };
}

const skip = await skipWithout('postgres');

describe.skipIf(skip)('job leases on PostgreSQL', () => {
  const schema = useTestSchema('leases');
  let store: Store;
  let files: string;
  let storage: LocalFileStorage;

  beforeAll(async () => {
    store = await PostgresStore.open({ connectionString: schema.url, poolSize: 4 });
    files = mkdtempSync(join(tmpdir(), 'lease-files-'));
    storage = new LocalFileStorage(files);
    await storage.putBuffer('audio/held.wav', Buffer.from('RIFF'), 'audio/wav');
  });

  afterAll(async () => {
    await store?.close();
    if (files) rmSync(files, { recursive: true, force: true });
  });

  function runner(engine: Pick<Asr, 'transcribe'>, owner: string, leaseMs: number) {
    const usage = new UsageRecorder(store.usage, silentLogger, 60_000);
    return { runner: storedAudioRunner({ store, storage, asr: engine, usage, owner, leaseMs }), close: () => usage.close() };
  }

  /** A stored job that `owner` has claimed (lease `leaseMs`) and is running on an engine held until released. */
  async function startHeldJob(owner: string, leaseMs: number) {
    const job = stored();
    await store.jobs.insert([job]);
    const engine = new HeldEngine();
    const { runner: r, close } = runner(engine, owner, leaseMs);
    const run = r.run(job.id, 5);
    await sleep(50);
    return { job, engine, run, close };
  }

  it('renews the lease while the job runs and clears it when the job completes', async () => {
    const { job, engine, run, close } = await startHeldJob('proc-a', 300);
    const claimed = (await store.jobs.get(job.id))!;
    expect(claimed).toMatchObject({ status: 'processing', leaseOwner: 'proc-a', attempts: 1 });
    await sleep(450);
    const renewed = (await store.jobs.get(job.id))!;
    // Still ours well past the first lease's end.
    expect(renewed.leaseOwner).toBe('proc-a');
    expect(Date.parse(renewed.leaseUntil!)).toBeGreaterThan(Date.parse(claimed.leaseUntil!));
    expect(Date.parse(renewed.leaseUntil!)).toBeGreaterThan(Date.now());
    engine.release();
    expect(await run).toBe('finished');
    expect(await store.jobs.get(job.id)).toMatchObject({ status: 'completed', leaseOwner: null, leaseUntil: null, eventsPending: true });
    await close();
  });

  it('stops a job taken over elsewhere and never overwrites the new holder', async () => {
    const { job, run, close } = await startHeldJob('proc-slow', 300);
    // Another process decided this one was gone, and runs the job itself.
    await store.jobs.update(job.id, { leaseOwner: 'proc-new', leaseUntil: new Date(Date.now() + 60_000).toISOString() }, ['processing']);
    expect(await run).toBe('finished');
    expect(await store.jobs.get(job.id)).toMatchObject({ status: 'processing', leaseOwner: 'proc-new' });
    await close();
  });

  it('answers busy while the key has its limit of jobs processing in any process', async () => {
    const key = principalFor({ ...principal.key, id: 'key_busy' });
    const running = {
      ...buildJob({ principal: key, kind: 'single', language: 'am', requestedModel: '' }),
      status: 'processing' as const,
      leaseOwner: 'elsewhere',
      leaseUntil: new Date(Date.now() + 60_000).toISOString(),
    };
    const waiting = {
      ...buildJob({ principal: key, kind: 'single', language: 'am', requestedModel: '', audio: { key: 'audio/held.wav', size: 4, filename: null } }),
    };
    await store.jobs.insert([running, waiting]);
    const engine = new HeldEngine();
    const { runner: r, close } = runner(engine, 'proc-b', 5_000);
    expect(await r.run(waiting.id, 1)).toBe('busy');
    expect(engine.started).toBe(0);
    expect(await store.jobs.get(waiting.id)).toMatchObject({ status: 'queued', attempts: 0 });
    await close();
  });

  it('takes over only jobs whose lease ended, once, however many processes sweep', async () => {
    const past = new Date(Date.now() - 1_000).toISOString();
    const future = new Date(Date.now() + 60_000).toISOString();
    const live = stored({ status: 'processing', leaseOwner: 'alive', leaseUntil: future, attempts: 1 });
    const expired = stored({ status: 'processing', leaseOwner: 'dead', leaseUntil: past, attempts: 1 });
    const exhausted = stored({ status: 'processing', leaseOwner: 'dead', leaseUntil: past, attempts: 2 });
    const forgotten = stored({ updatedAt: new Date(Date.now() - 120_000).toISOString() });
    await store.jobs.insert([live, expired, exhausted, forgotten]);
    const others = [1, 2, 3].map(() => testJobService(store, { soleProcess: false }));
    const finished: string[] = [];
    for (const o of others) o.events.on('finished', (job) => finished.push(job.id));
    const staleBefore = new Date(Date.now() - 60_000).toISOString();
    const results = await Promise.all(others.map((o) => o.jobs.sweep(staleBefore)));
    expect(results.reduce((n, r) => n + r.requeued, 0)).toBe(1);
    expect(results.reduce((n, r) => n + r.failed, 0)).toBe(1);
    expect(finished).toEqual([exhausted.id]);
    expect(await store.jobs.get(live.id)).toMatchObject({ status: 'processing', leaseOwner: 'alive' });
    expect(await store.jobs.get(expired.id)).toMatchObject({ status: 'queued', leaseOwner: null, leaseUntil: null });
    expect(await store.jobs.get(exhausted.id)).toMatchObject({ status: 'failed', error: { code: 'internal_error' } });
    // The forgotten queued job (and the requeued one) are in a queue again.
    expect(others.reduce((n, o) => n + o.queue.waiting(), 0)).toBeGreaterThanOrEqual(2);
    expect(others.some((o) => o.queue.waiting() > 0)).toBe(true);
    // A process starting now leaves the live job alone too.
    const starting = testJobService(store, { soleProcess: false });
    await starting.jobs.recover();
    expect(await store.jobs.get(live.id)).toMatchObject({ status: 'processing', leaseOwner: 'alive' });
    for (const o of [...others, starting]) await o.close();
  });
});

describe('job leases on SQLite (one process)', () => {
  it('takes over every job left processing at start, live lease or not', async () => {
    await withSqliteStore('lease-sqlite-', async (store) => {
      const live = stored({ status: 'processing', leaseOwner: 'previous-run', leaseUntil: new Date(Date.now() + 60_000).toISOString(), attempts: 1 });
      await store.jobs.insert([live]);
      const s = testJobService(store, { soleProcess: true });
      expect(await s.jobs.recover()).toEqual({ requeued: 1, failed: 0 });
      expect(await store.jobs.get(live.id)).toMatchObject({ status: 'queued', leaseOwner: null });
      expect(s.queue.waiting()).toBe(1);
      await s.close();
    });
  });
});
