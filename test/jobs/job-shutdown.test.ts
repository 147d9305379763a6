// JobService.close (issue 34 item 6): running jobs get the grace, then go back to `queued`
// (lease released, attempt not counted) and every `mode=sync` caller still waiting is answered
// with its job as it stands; callers arriving after shutdown are answered at once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Asr, FileTranscription, FileTranscriptionRequest } from '../../src/engines/asr/asr.js';
import { JobEvents } from '../../src/jobs/job-events.js';
import { InProcessJobQueue } from '../../src/jobs/job-queue.js';
import { JobRunner } from '../../src/jobs/job-runner.js';
import { buildJob, JobService } from '../../src/jobs/job-service.js';
import { principalFor } from '../../src/platform/auth/principal.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { SqliteStore } from '../../src/platform/db/sqlite/sqlite-store.js';
import type { Store } from '../../src/platform/db/store-types.js';
import { LocalFileStorage } from '../../src/platform/files/local-file-storage.js';
import { UsageRecorder } from '../../src/platform/limits/usage-recorder.js';
import { createLogger } from '../../src/platform/logging/logger.js';

const logger = createLogger('silent');
const limits = loadConfig({}).limits;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const principal = principalFor({
  id: 'key_shutdown',
  accountId: 'acct_shutdown',
  name: null,
  prefix: 'sk_d',
  scopes: ['write'],
  ipAllowlist: null,
  originAllowlist: null,
  limits: {},
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
});

/** A transcription that lasts until the test releases it, or its job is stopped. */
class HeldEngine implements Pick<Asr, 'transcribe'> {
  private readonly releases: (() => void)[] = [];

  async transcribe(request: FileTranscriptionRequest): Promise<FileTranscription> {
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

let dir: string;
let store: Store;
let storage: LocalFileStorage;
let usage: UsageRecorder;
let engine: HeldEngine;
let service: JobService;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'job-shutdown-'));
  store = SqliteStore.open(join(dir, 'gateway.db'));
  storage = new LocalFileStorage(join(dir, 'files'));
  await storage.putBuffer('audio/held.wav', Buffer.from('RIFF'), 'audio/wav');
  usage = new UsageRecorder(store.usage, logger, 60_000);
  engine = new HeldEngine();
  const events = new JobEvents();
  const runner = new JobRunner({
    jobs: store.jobs,
    storage,
    asr: engine,
    events,
    fetchAudio: async () => {
      throw new Error('the audio is stored already');
    },
    usage,
    logger,
    owner: 'this-process',
    leaseMs: 5_000,
  });
  service = new JobService({
    jobs: store.jobs,
    queue: new InProcessJobQueue(2),
    runner,
    events,
    storage,
    usage: store.usage,
    recorder: usage,
    limits,
    logger,
    concurrencyLimit: async () => 10,
    soleProcess: true,
    idempotency: store.idempotency,
  });
  service.start();
});

afterEach(async () => {
  await usage.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Submits a job on the held audio and resolves once it runs. */
async function runningJob(): Promise<string> {
  const job = buildJob({
    principal,
    kind: 'single',
    language: 'am',
    requestedModel: '',
    mode: 'sync',
    audio: { key: 'audio/held.wav', size: 4, filename: null },
  });
  await service.submit([job]);
  for (let i = 0; i < 200 && (await store.jobs.get(job.id))?.status !== 'processing'; i++) await sleep(10);
  expect(await store.jobs.get(job.id)).toMatchObject({ status: 'processing', leaseOwner: 'this-process' });
  return job.id;
}

describe('JobService shutdown', () => {
  it('answers waiting sync callers with their jobs returned to the queue once the grace has passed', async () => {
    const ids = [await runningJob(), await runningJob()];
    const waiting = ids.map((id) => service.waitForFinal(id, 60_000));
    const closedAt = Date.now();
    await service.close(200);
    const answered = await Promise.all(waiting);
    expect(Date.now() - closedAt).toBeLessThan(3_000);
    for (const job of answered) expect(job).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null, leaseUntil: null, error: null });
    expect(answered.map((job) => job!.id)).toEqual(ids);
    // After shutdown a caller gets the job as it stands at once.
    const late = await Promise.race([service.waitForFinal(ids[0]!, 60_000), sleep(1_000).then(() => 'still waiting')]);
    expect(late).toMatchObject({ id: ids[0], status: 'queued' });
  });

  it('gives running jobs the grace: a job that finishes in it answers its caller completed', async () => {
    const id = await runningJob();
    const waiting = service.waitForFinal(id, 60_000);
    const closing = service.close(5_000);
    await sleep(100);
    engine.release();
    await closing;
    expect(await waiting).toMatchObject({ id, status: 'completed', leaseOwner: null });
  });
});
