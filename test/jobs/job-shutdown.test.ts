// JobService.close (issue 34 item 6): running jobs get the grace, then go back to `queued`
// (lease released, attempt not counted) and every `mode=sync` caller still waiting is answered
// with its job as it stands; callers arriving after shutdown are answered at once.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobEvents } from '../../src/jobs/job-events.js';
import { type JobService } from '../../src/jobs/job-service.js';
import { buildJob } from '../../src/jobs/new-job.js';
import type { Store } from '../../src/platform/db/store-types.js';
import { LocalFileStorage } from '../../src/platform/files/local-file-storage.js';
import { UsageRecorder } from '../../src/platform/limits/usage-recorder.js';
import { HeldEngine, openScratchSqlite, silentLogger, storedAudioRunner, testJobService, testPrincipal, type TestJobService } from '../helpers/job-services.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const principal = testPrincipal('shutdown');

/** Per test: a SQLite store with the held audio stored, and a started job service whose runner holds each job. */
let scratch: ReturnType<typeof openScratchSqlite>;
let store: Store;
let engine: HeldEngine;
let parts: TestJobService;
let service: JobService;

beforeEach(async () => {
  scratch = openScratchSqlite('job-shutdown-');
  store = scratch.store;
  const storage = new LocalFileStorage(join(scratch.dir, 'files'));
  await storage.putBuffer('audio/held.wav', Buffer.from('RIFF'), 'audio/wav');
  const usage = new UsageRecorder(store.usage, silentLogger, 60_000);
  engine = new HeldEngine();
  const events = new JobEvents();
  const runner = storedAudioRunner({ store, storage, asr: engine, usage, events, owner: 'this-process', leaseMs: 5_000 });
  parts = testJobService(store, { soleProcess: true, runner, events, storage, recorder: usage, workers: 2 });
  service = parts.jobs;
  service.start();
});

afterEach(async () => {
  await parts.close();
  await scratch.close();
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
