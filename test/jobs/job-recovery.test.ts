import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeLongAudio } from '../helpers/audio-files.js';
import { JobsClient, type Job } from '../helpers/jobs-client.js';
import { distEntry, REPO_ROOT, runNode, startServerProcess } from '../helpers/spawn-dist.js';

let scratch: string;
let longAudio: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'recovery-test-'));
  longAudio = makeLongAudio(join(scratch, 'long.flac'), 40);
}, 120_000);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every server a test starts is killed after it, whatever the test did. */
const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

async function start(env: Record<string, string>): Promise<Awaited<ReturnType<typeof startServerProcess>>> {
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

async function createKey(dataDir: string): Promise<string> {
  const created = await runNode(distEntry('src/app/cli/keys-cli.js'), ['create', '--account', 'recovery'], { DATA_DIR: dataDir });
  return (JSON.parse(created.stdout) as { key: string }).key;
}

/** Resolves once the server logged that it started this job: the crash then lands mid-job, however fast the job is. */
async function jobStarted(server: { output: () => string }, jobId: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const pattern = new RegExp(`"jobId":"${jobId}"[^\\n]*"msg":"job started"`);
  while (!pattern.test(server.output())) {
    if (Date.now() > deadline) throw new Error(`job ${jobId} did not start:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function exitOf(child: import('node:child_process').ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  return new Promise((resolve) => child.on('exit', (code) => resolve(code)));
}

/** Sends `signal` to a server and waits for it to exit; resolves to its exit code. */
async function stopServer(server: { child: ChildProcess }, signal: NodeJS.Signals): Promise<number | null> {
  server.child.kill(signal);
  return exitOf(server.child);
}

/** Starts a server on `dataDir` and a client of it that uses `key`. */
async function startOn(dataDir: string, key: string, extra: Record<string, string> = {}) {
  const server = await start(serverEnv(dataDir, extra));
  return { server, client: new JobsClient(`http://127.0.0.1:${server.port}`, key) };
}

describe('jobs across crashes and restarts', () => {
  it('resumes a job interrupted by a crash (kill -9) and completes it', async () => {
    const dataDir = join(scratch, 'crash-once');
    const key = await createKey(dataDir);
    let { server, client } = await startOn(dataDir, key);
    const created = await client.submitFile(longAudio, { language: 'am' });
    const queued = await client.submitFile(longAudio, { language: 'am' });
    expect([created.status, queued.status]).toEqual([202, 202]);
    await jobStarted(server, created.body.id);
    await stopServer(server, 'SIGKILL');

    ({ server, client } = await startOn(dataDir, key));
    try {
      const finished: Job = await client.waitFor(created.body.id, undefined, 120_000);
      expect(finished.status).toBe('completed');
      expect(finished.duration_seconds).toBeGreaterThan(39 * 60);
      expect((await client.waitFor(queued.body.id, undefined, 120_000)).status).toBe('completed');
      expect(server.output()).toContain('recovered jobs interrupted by a restart');
    } finally {
      await stopServer(server, 'SIGTERM');
    }
  }, 240_000);

  it('fails a job with a reason when it was interrupted by a crash twice', async () => {
    const dataDir = join(scratch, 'crash-twice');
    const key = await createKey(dataDir);
    let { server, client } = await startOn(dataDir, key);
    const created = await client.submitFile(longAudio, { language: 'am' });
    for (let crash = 0; crash < 2; crash++) {
      await jobStarted(server, created.body.id);
      await stopServer(server, 'SIGKILL');
      ({ server, client } = await startOn(dataDir, key));
    }
    try {
      const failed = await client.waitFor(created.body.id, undefined, 60_000);
      expect(failed.status).toBe('failed');
      expect(failed.error).toMatchObject({ code: 'internal_error' });
      expect(failed.error.message).toContain('interrupted by a server restart');
    } finally {
      await stopServer(server, 'SIGTERM');
    }
  }, 240_000);

  it('returns a running job to the queue on SIGTERM and finishes it after the restart', async () => {
    const dataDir = join(scratch, 'sigterm');
    const key = await createKey(dataDir);
    let { server, client } = await startOn(dataDir, key, { SHUTDOWN_GRACE_MS: '100' });
    const created = await client.submitFile(longAudio, { language: 'am' });
    await jobStarted(server, created.body.id);
    expect(await stopServer(server, 'SIGTERM')).toBe(0);
    expect(server.output()).toContain('returning unfinished jobs to the queue');

    ({ server, client } = await startOn(dataDir, key));
    try {
      const finished = await client.waitFor(created.body.id, undefined, 120_000);
      expect(finished.status).toBe('completed');
      expect(server.output()).not.toContain('recovered jobs interrupted by a restart');
    } finally {
      await stopServer(server, 'SIGTERM');
    }
  }, 240_000);
});
