// The job layer as the job tests assemble it over a store: a key's principal, an engine that holds
// each transcription until the test releases it, a JobRunner of stored audio, a JobService, and a
// SQLite store in a scratch folder. Each test closes what it makes (`close()`), before its store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Asr, FileTranscription, FileTranscriptionRequest } from '../../src/engines/asr/asr.js';
import { JobEvents } from '../../src/jobs/job-events.js';
import { InProcessJobQueue } from '../../src/jobs/job-queue.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { JobService } from '../../src/jobs/job-service.js';
import { buildJob } from '../../src/jobs/new-job.js';
import { type Principal, principalFor } from '../../src/platform/auth/principal.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { SqliteStore } from '../../src/platform/db/sqlite/sqlite-store.js';
import type { Store } from '../../src/platform/db/store-types.js';
import type { FileStorage } from '../../src/platform/files/file-storage.js';
import { LocalFileStorage } from '../../src/platform/files/local-file-storage.js';
import { UsageRecorder } from '../../src/platform/limits/usage-recorder.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { expect } from 'vitest';

export const silentLogger = createLogger('silent');

/** A write-scoped key `key_<name>` of account `acct_<name>`, with no limits of its own. */
export function testPrincipal(name: string): Principal {
  return principalFor({
    id: `key_${name}`,
    accountId: `acct_${name}`,
    name: null,
    prefix: 'sk_test',
    scopes: ['write'],
    ipAllowlist: null,
    originAllowlist: null,
    limits: {},
    createdAt: '2026-01-01T00:00:00.000Z',
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
  });
}

/** An engine whose transcriptions last until the test releases them, or their job is stopped. */
export class HeldEngine implements Pick<Asr, 'transcribe'> {
  private readonly releases: (() => void)[] = [];
  /** Transcriptions begun so far. */
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

/** A runner, as process `owner`, of jobs whose audio is in `storage` already (fetching a URL fails). */
export function storedAudioRunner(deps: {
  store: Store;
  storage: FileStorage;
  asr: Pick<Asr, 'transcribe'>;
  usage: UsageRecorder;
  owner: string;
  leaseMs: number;
  events?: JobEvents;
}): JobRunner {
  return new JobRunner({
    jobs: deps.store.jobs,
    storage: deps.storage,
    asr: deps.asr,
    events: deps.events ?? new JobEvents(),
    fetchAudio: async () => {
      throw new Error('the audio is stored already');
    },
    usage: deps.usage,
    logger: silentLogger,
    owner: deps.owner,
    leaseMs: deps.leaseMs,
  });
}

export interface TestJobService {
  readonly jobs: JobService;
  readonly queue: InProcessJobQueue;
  readonly events: JobEvents;
  readonly recorder: UsageRecorder;
  /** Closes the queue at once and flushes the usage recorder. */
  close(): Promise<void>;
}

/**
 * A JobService on `store` with default limits and 10 running jobs a key. Without a `runner` it
 * only recovers and sweeps (running a job would fail); its parts are new unless given.
 */
export function testJobService(
  store: Store,
  options: { soleProcess: boolean; runner?: JobRunner; events?: JobEvents; storage?: FileStorage; recorder?: UsageRecorder; workers?: number },
): TestJobService {
  const queue = new InProcessJobQueue(options.workers ?? 1);
  const events = options.events ?? new JobEvents();
  const recorder = options.recorder ?? new UsageRecorder(store.usage, silentLogger, 60_000);
  const jobs = new JobService({
    jobs: store.jobs,
    queue,
    runner: options.runner ?? (undefined as unknown as JobRunner),
    events,
    storage: options.storage ?? new LocalFileStorage(tmpdir()),
    usage: store.usage,
    recorder,
    limits: loadConfig({}).limits,
    logger: silentLogger,
    concurrencyLimit: async () => 10,
    soleProcess: options.soleProcess,
    idempotency: store.idempotency,
  });
  return {
    jobs,
    queue,
    events,
    recorder,
    close: async () => {
      await queue.close(0);
      await recorder.close();
    },
  };
}

/** A SQLite store in a new scratch folder; `close()` closes the store and removes the folder. */
export function openScratchSqlite(prefix: string): { readonly dir: string; readonly store: Store; close(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = SqliteStore.open(join(dir, 'gateway.db'));
  return {
    dir,
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs `use` on a SQLite store in a new scratch folder, then closes the store and removes the folder. */
export async function withSqliteStore(prefix: string, use: (store: Store) => Promise<void>): Promise<void> {
  const scratch = openScratchSqlite(prefix);
  try {
    await use(scratch.store);
  } finally {
    await scratch.close();
  }
}

/**
 * Submits a `mode=sync` job on `audio/held.wav` (the test puts it in storage first) and resolves
 * with its id once the service runs it (status `processing`, within 2 s).
 */
export async function submitHeldJob(service: Pick<JobService, 'submit'>, store: Store, principal: Principal): Promise<string> {
  const job = buildJob({
    principal,
    kind: 'single',
    language: 'am',
    requestedModel: '',
    mode: 'sync',
    audio: { key: 'audio/held.wav', size: 4, filename: null },
  });
  await service.submit([job]);
  for (let i = 0; i < 200 && (await store.jobs.get(job.id))?.status !== 'processing'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(await store.jobs.get(job.id)).toMatchObject({ status: 'processing', leaseOwner: 'this-process' });
  return job.id;
}

/**
 * A scratch SQLite store with `audio/held.wav` stored and a started, sole-process job service whose
 * runner (owner `this-process`, 5 s leases) holds every job on a HeldEngine. Close `parts`, then `scratch`.
 */
export async function startHeldJobService(prefix: string, workers: number) {
  const scratch = openScratchSqlite(prefix);
  const storage = new LocalFileStorage(join(scratch.dir, 'files'));
  await storage.putBuffer('audio/held.wav', Buffer.from('RIFF'), 'audio/wav');
  const usage = new UsageRecorder(scratch.store.usage, silentLogger, 60_000);
  const engine = new HeldEngine();
  const events = new JobEvents();
  const runner = storedAudioRunner({ store: scratch.store, storage, asr: engine, usage, events, owner: 'this-process', leaseMs: 5_000 });
  const parts = testJobService(scratch.store, { soleProcess: true, runner, events, storage, recorder: usage, workers });
  parts.jobs.start();
  return { scratch, engine, parts };
}
