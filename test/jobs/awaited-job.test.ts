// awaitCompletedJob, the wait of a request that answers with its job (POST /v1/audio/transcriptions,
// mode=sync): a client that left before the wait began still gets its job cancelled. Its request
// signal had fired already, and an abort listener added after that never fires, so the wait used to
// last until the job finished on its own and the job completed for nobody (seen in the OpenAI
// client test under load: the client left after its job was submitted, before the wait listened).
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { awaitCompletedJob } from '../../src/jobs/awaited-job.js';
import { JobEvents } from '../../src/jobs/job-events.js';
import { buildJob } from '../../src/jobs/new-job.js';
import { LocalFileStorage } from '../../src/platform/files/local-file-storage.js';
import { UsageRecorder } from '../../src/platform/limits/usage-recorder.js';
import { HeldEngine, openScratchSqlite, silentLogger, storedAudioRunner, testJobService, testPrincipal, type TestJobService } from '../helpers/job-services.js';

const principal = testPrincipal('awaited');
let scratch: ReturnType<typeof openScratchSqlite>;
let engine: HeldEngine;
let parts: TestJobService;

beforeEach(async () => {
  scratch = openScratchSqlite('awaited-job-');
  const storage = new LocalFileStorage(join(scratch.dir, 'files'));
  await storage.putBuffer('audio/held.wav', Buffer.from('RIFF'), 'audio/wav');
  const usage = new UsageRecorder(scratch.store.usage, silentLogger, 60_000);
  engine = new HeldEngine();
  const events = new JobEvents();
  const runner = storedAudioRunner({ store: scratch.store, storage, asr: engine, usage, events, owner: 'this-process', leaseMs: 5_000 });
  parts = testJobService(scratch.store, { soleProcess: true, runner, events, storage, recorder: usage, workers: 1 });
  parts.jobs.start();
});

afterEach(async () => {
  engine.release();
  await parts.close();
  await scratch.close();
});

describe('awaitCompletedJob', () => {
  it('cancels the job at once when the request was aborted before the wait began', async () => {
    const job = buildJob({
      principal,
      kind: 'single',
      language: 'am',
      requestedModel: '',
      mode: 'sync',
      audio: { key: 'audio/held.wav', size: 4, filename: null },
    });
    await parts.jobs.submit([job]);
    for (let i = 0; i < 200 && (await scratch.store.jobs.get(job.id))?.status !== 'processing'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await scratch.store.jobs.get(job.id)).toMatchObject({ status: 'processing' });
    const left = new AbortController();
    left.abort();
    // The held engine never finishes a job by itself: without the cancel this wait would last the
    // whole limit (2 s here), and the race answers 'still waiting'.
    const outcome = await Promise.race([
      awaitCompletedJob(parts.jobs, job, left.signal, 2_000).then(
        () => 'completed',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_500)),
    ]);
    expect(outcome).toMatchObject({ code: 'internal_error', message: expect.stringMatching(/went away/) });
    expect(await scratch.store.jobs.get(job.id)).toMatchObject({ status: 'cancelled' });
  });
});
