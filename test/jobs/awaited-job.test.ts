// awaitCompletedJob, the wait of a request that answers with its job (POST /v1/audio/transcriptions,
// mode=sync): a client that left before the wait began still gets its job cancelled. Its request
// signal had fired already, and an abort listener added after that never fires, so the wait used to
// last until the job finished on its own and the job completed for nobody (seen in the OpenAI
// client test under load: the client left after its job was submitted, before the wait listened).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { awaitCompletedJob } from '../../src/jobs/awaited-job.js';
import { type HeldEngine, type openScratchSqlite, startHeldJobService, submitHeldJob, testPrincipal, type TestJobService } from '../helpers/job-services.js';

const principal = testPrincipal('awaited');
let scratch: ReturnType<typeof openScratchSqlite>;
let engine: HeldEngine;
let parts: TestJobService;

beforeEach(async () => {
  ({ scratch, engine, parts } = await startHeldJobService('awaited-job-', 1));
});

afterEach(async () => {
  engine.release();
  await parts.close();
  await scratch.close();
});

describe('awaitCompletedJob', () => {
  it('cancels the job at once when the request was aborted before the wait began', async () => {
    const id = await submitHeldJob(parts.jobs, scratch.store, principal);
    const left = new AbortController();
    left.abort();
    // The held engine never finishes a job by itself: without the cancel this wait would last the
    // whole limit (2 s here), and the race answers 'still waiting'.
    const outcome = await Promise.race([
      awaitCompletedJob(parts.jobs, { id, accountId: principal.accountId }, left.signal, 2_000).then(
        () => 'completed',
        (error: unknown) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_500)),
    ]);
    expect(outcome).toMatchObject({ code: 'internal_error', message: expect.stringMatching(/went away/) });
    expect(await scratch.store.jobs.get(id)).toMatchObject({ status: 'cancelled' });
  });
});
