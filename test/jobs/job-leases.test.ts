import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { JobEvents } from '../../src/jobs/job-events.js';
import { InProcessJobQueue } from '../../src/jobs/job-queue.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { buildJob, JobService } from '../../src/jobs/job-service.js';
import type { JobRecord } from '../../src/platform/db/job-records.js';
import type { FileTranscription, FileTranscriptionRequest, Asr } from '../../src/engines/asr/asr.js';
import { UsageRecorder } from '../../src/platform/limits/usage-recorder.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { LocalFileStorage } from '../../src/platform/files/local-file-storage.js';
import { PostgresStore } from '../../src/platform/db/postgres/postgres-store.js';
import { SqliteStore } from '../../src/platform/db/sqlite/sqlite-store.js';
import type { Store } from '../../src/platform/db/store-types.js';
import { principalFor } from '../../src/platform/auth/principal.js';
import { skipWithout } from '../helpers/distributed-servers.js';
import { useTestSchema } from '../helpers/suite-fixtures.js';

const logger = createLogger('silent');
const limits = loadConfig({}).limits;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An engine whose transcription lasts until the test releases it (or the job is stopped). */
class HeldEngine implements Pick<Asr, 'transcribe'> {
  private releases: (() => void)[] = [];
  started = 0;

  async transcribe(request: FileTranscriptionRequest): Promise<FileTranscription> {
    this.started++;
    await new Promise<void>((resolve, reject) => {
      this.releases.push(resolve);
      request.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    });
    return { language: 'am', model: 'test-model', durationSeconds: 1.5, segments: [], detection: null, diarization: null };
  }

  release(): void {
    for (const release of this.releases.splice(0)) release();
  }
}

const principal = principalFor({
  id: 'key_lease',
  accountId: 'acct_lease',
  name: null,
  prefix: 'sk_x',
  scopes: ['write'],
  ipAllowlist: null,
  originAllowlist: null,
  limits: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
});

function stored(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...buildJob({ principal, kind: 'single', language: 'am', requestedModel: '', audio: { key: 'audio/held.wav', size: 4, filename: null } }),
    ...overrides,
  };
}

function service(store: Store, soleProcess: boolean, queue = new InProcessJobQueue(1)) {
  const events = new JobEvents();
  const recorder = new UsageRecorder(store.usage, logger, 60_000);
  const jobs = new JobService({
    jobs: store.jobs,
    queue,
    // recover() and sweep() never run jobs: no runner needed here.
    runner: undefined as unknown as JobRunner,
    events,
    storage: new LocalFileStorage(tmpdir()),
    usage: store.usage,
    recorder,
    limits,
    logger,
    concurrencyLimit: async () => 10,
    soleProcess,
    idempotency: store.idempotency,
  });
  return { jobs, queue, events, close: () => recorder.close() };
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

  function runner(engine: Pick<Asr, 'transcribe'>, owner: string, leaseMs: number): { runner: JobRunner; close: () => Promise<void> } {
    const usage = new UsageRecorder(store.usage, logger, 60_000);
    const runner = new JobRunner({
      jobs: store.jobs,
      storage,
      asr: engine,
      events: new JobEvents(),
      fetchAudio: async () => {
        throw new Error('the audio is stored already');
      },
      usage,
      logger,
      owner,
      leaseMs,
    });
    return { runner, close: () => usage.close() };
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
    const others = [service(store, false), service(store, false), service(store, false)];
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
    const starting = service(store, false);
    await starting.jobs.recover();
    expect(await store.jobs.get(live.id)).toMatchObject({ status: 'processing', leaseOwner: 'alive' });
    for (const o of [...others, starting]) {
      await o.queue.close(0);
      await o.close();
    }
  });
});

describe('job leases on SQLite (one process)', () => {
  it('takes over every job left processing at start, live lease or not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lease-sqlite-'));
    const store = SqliteStore.open(join(dir, 'gateway.db'));
    try {
      const live = stored({ status: 'processing', leaseOwner: 'previous-run', leaseUntil: new Date(Date.now() + 60_000).toISOString(), attempts: 1 });
      await store.jobs.insert([live]);
      const s = service(store, true);
      expect(await s.jobs.recover()).toEqual({ requeued: 1, failed: 0 });
      expect(await store.jobs.get(live.id)).toMatchObject({ status: 'queued', leaseOwner: null });
      expect(s.queue.waiting()).toBe(1);
      await s.queue.close(0);
      await s.close();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
