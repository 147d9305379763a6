import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeLongAudio } from '../helpers/audio-files.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';
import { JobsClient, type Job } from '../helpers/jobs-client.js';
import { createKeyWithCli, REPO_ROOT, startServerProcess, stopProcess, type ServerProcess } from '../helpers/spawn-dist.js';
import { connectReady, wsUrl } from '../ws/ws-client.js';

const scratch = useScratchDir('recovery-test-');
let longAudio: string;
let longerAudio: string;

beforeAll(() => {
  longAudio = makeLongAudio(scratch('long.flac'), 40);
  longerAudio = makeLongAudio(scratch('longer.flac'), 90);
}, 120_000);

/** Every server a test starts is killed after it, whatever the test did. */
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function start(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess(env);
  started.push(server.child);
  return server;
}

function serverEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    DATA_DIR: dataDir,
    MODELS_DIR: join(REPO_ROOT, 'test', 'fixtures', 'models'),
    INFERENCE_WORKERS: '1',
    RATE_LIMIT_PER_MINUTE: '100000',
    ...extra,
  };
}

const createKey = (dataDir: string): Promise<string> => createKeyWithCli('recovery', { DATA_DIR: dataDir });

/** Resolves once the server logged that it started this job: the crash then lands mid-job, however fast the job is. */
async function jobStarted(server: { output: () => string }, jobId: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pattern = new RegExp(`"jobId":"${jobId}"[^\\n]*"msg":"job started"`);
  while (!pattern.test(server.output())) {
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not start:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Kills the server (kill -9) once it has started job `jobId`. */
async function crashMidJob(server: ServerProcess, jobId: string): Promise<void> {
  await jobStarted(server, jobId);
  await stopProcess(server.child, 'SIGKILL');
}

/** Starts a server on `dataDir` and a client of it that uses `key`. */
async function startOn(dataDir: string, key: string, extra: Record<string, string> = {}) {
  const server = await start(serverEnv(dataDir, extra));
  return { server, client: new JobsClient(server.url, key) };
}

/** A key in a new data folder `folder` under scratch, and a server on it. */
async function firstServer(folder: string, extra: Record<string, string> = {}) {
  const dataDir = scratch(folder);
  const key = await createKey(dataDir);
  return { dataDir, key, ...(await startOn(dataDir, key, extra)) };
}

/** Runs `check` on a new server on `dataDir`, then stops that server gracefully (SIGTERM), whatever `check` did. */
async function lastServer(
  dataDir: string,
  key: string,
  check: (server: ServerProcess, client: JobsClient) => Promise<void>,
  extra: Record<string, string> = {},
): Promise<void> {
  const { server, client } = await startOn(dataDir, key, extra);
  try {
    await check(server, client);
  } finally {
    await stopProcess(server.child, 'SIGTERM');
  }
}

describe('jobs across crashes and restarts', () => {
  it('resumes a job interrupted by a crash (kill -9) and completes it', async () => {
    const { dataDir, key, server, client } = await firstServer('crash-once');
    const created = await client.submitFile(longAudio, { language: 'am' });
    const queued = await client.submitFile(longAudio, { language: 'am' });
    expect([created.status, queued.status]).toEqual([202, 202]);
    await crashMidJob(server, created.body.id);
    await lastServer(dataDir, key, async (restarted, restartedClient) => {
      const finished: Job = await restartedClient.waitFor(created.body.id, undefined, 120_000);
      expect(finished.status).toBe('completed');
      expect(finished.duration_seconds).toBeGreaterThan(39 * 60);
      expect((await restartedClient.waitFor(queued.body.id, undefined, 120_000)).status).toBe('completed');
      expect(restarted.output()).toContain('recovered jobs interrupted by a restart');
    });
  }, 240_000);

  it('fails a job with a reason when it was interrupted by a crash twice', async () => {
    const first = await firstServer('crash-twice');
    const created = await first.client.submitFile(longAudio, { language: 'am' });
    await crashMidJob(first.server, created.body.id);
    await crashMidJob((await startOn(first.dataDir, first.key)).server, created.body.id);
    await lastServer(first.dataDir, first.key, async (_server, client) => {
      const failed = await client.waitFor(created.body.id, undefined, 60_000);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatchObject({ code: 'internal_error' });
      expect(failed.error.message).toContain('interrupted by a server restart');
    });
  }, 240_000);

  it('returns a running job to the queue on SIGTERM and finishes it after the restart', async () => {
    const { dataDir, key, server, client } = await firstServer('sigterm', { SHUTDOWN_GRACE_MS: '100' });
    const created = await client.submitFile(longAudio, { language: 'am' });
    await jobStarted(server, created.body.id);
    expect(await stopProcess(server.child, 'SIGTERM')).toBe(0);
    expect(server.output()).toContain('returning unfinished jobs to the queue');
    await lastServer(dataDir, key, async (restarted, restartedClient) => {
      const finished = await restartedClient.waitFor(created.body.id, undefined, 120_000);
      expect(finished.status).toBe('completed');
      expect(restarted.output()).not.toContain('recovered jobs interrupted by a restart');
    });
  }, 240_000);
});

/** Resolves with the ids of the first `count` jobs the server logged as started, in order. */
async function jobsStarted(server: { output: () => string }, count: number, timeoutMs = 60_000): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = [...new Set([...server.output().matchAll(/"jobId":"(tr_[0-9a-f]+)"[^\n]*"msg":"job started"/g)].map((m) => m[1]!))];
    if (ids.length >= count) return ids.slice(0, count);
    if (Date.now() > deadline) throw new Error(`${count} jobs did not start:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('graceful shutdown with mode=sync callers waiting', () => {
  it('answers the waiting callers with their jobs as they stand, returns the jobs to the queue and exits 0 within the grace', async () => {
    // A grace over 5 s: the old shutdown drained requests (the sync callers) and then the jobs, each for the whole
    // grace, and its forced exit (grace + 5 s) came first.
    const graceMs = 6_000;
    // JOB_WORKERS=3: both jobs run at once (one account holds JOB_WORKERS - 1 workers).
    // FILE_SPEECH_GATE=off: this test is about shutdown; the gate's Silero pass over 2 x 90 minutes would only lengthen the wait for the re-queued jobs.
    const ungated = { FILE_SPEECH_GATE: 'off' };
    const { dataDir, key, server, client } = await firstServer('sigterm-sync', { SHUTDOWN_GRACE_MS: String(graceMs), JOB_WORKERS: '3', ...ungated });
    // 90 minutes each: on a quiet machine the fixture model reads 2 x 40 minutes within the grace, so the jobs would finish instead of going back.
    const answers = [client.submitFile(longerAudio, { language: 'am', mode: 'sync' }), client.submitFile(longerAudio, { language: 'am', mode: 'sync' })];
    const ids = await jobsStarted(server, 2);
    const signalledAt = Date.now();
    const exit = stopProcess(server.child, 'SIGTERM');
    const answered = await Promise.all(answers);
    expect(await exit).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(graceMs + 4_000);
    expect(answered.map((a) => a.status)).toEqual([202, 202]);
    expect(answered.map((a) => a.body.id).sort()).toEqual([...ids].sort());
    // The jobs as they stand once shutdown has put them back: queued, no error.
    for (const { body } of answered) expect(body).toMatchObject({ status: 'queued', error: null });
    expect(server.output()).toContain('returning unfinished jobs to the queue');
    expect(server.output()).not.toContain('shutdown took too long');
    await lastServer(
      dataDir,
      key,
      async (restarted, restartedClient) => {
        for (const id of ids) expect((await restartedClient.waitFor(id, undefined, 120_000)).status).toBe('completed');
        expect(restarted.output()).not.toContain('recovered jobs interrupted by a restart');
      },
      ungated,
    );
  }, 360_000);
});

describe('WebSocket session jobs across crashes', () => {
  it('ends a session job left processing by a crash (kill -9) as failed with a reason after the restart', async () => {
    const { dataDir, key, server } = await firstServer('ws-crash', { JOB_LEASE_SECONDS: '1' });
    const session = await connectReady(wsUrl(server.url, { language: 'am' }), { authorization: `Bearer ${key}` });
    const ready = session.messages.find((m) => m.type === 'ready') as { job_id: string };
    session.send(Buffer.alloc(32_000));
    const before = await new JobsClient(server.url, key).get(ready.job_id);
    expect(before.body.status).toBe('processing');
    await stopProcess(server.child, 'SIGKILL');
    session.close();
    await lastServer(dataDir, key, async (_restarted, client) => {
      const ended = await client.waitFor(ready.job_id, undefined, 20_000);
      expect(ended.status).toBe('failed');
      expect(ended.error).toMatchObject({ type: 'server_error', code: 'internal_error' });
      expect(ended.error.message).toContain('gateway process stopped');
      expect(ended.metadata.end_reason).toBe('server_lost');
      expect(ended.completed_at).not.toBeNull();
    });
  }, 120_000);
});
