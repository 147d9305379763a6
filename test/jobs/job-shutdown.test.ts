// JobService.close (issue 34 item 6): running jobs get the grace, then go back to `queued`
// (lease released, attempt not counted) and every `mode=sync` caller still waiting is answered
// with its job as it stands; callers arriving after shutdown are answered at once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { JobService } from '../../src/jobs/job-service.js';
import type { Store } from '../../src/platform/db/store-types.js';
import { type HeldEngine, type openScratchSqlite, startHeldJobService, submitHeldJob, testPrincipal, type TestJobService } from '../helpers/job-services.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const principal = testPrincipal('shutdown');

/** Per test: a SQLite store with the held audio stored, and a started job service whose runner holds each job. */
let scratch: ReturnType<typeof openScratchSqlite>;
let store: Store;
let engine: HeldEngine;
let parts: TestJobService;
let service: JobService;

beforeEach(async () => {
  ({ scratch, engine, parts } = await startHeldJobService('job-shutdown-', 2));
  store = scratch.store;
  service = parts.jobs;
});

afterEach(async () => {
  await parts.close();
  await scratch.close();
});

/** A job on the held audio, running. */
const runningJob = (): Promise<string> => submitHeldJob(service, store, principal);

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
