import type { ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../helpers/polling.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';
import { createKeyWithCli, startServerProcess, stopProcess } from '../helpers/spawn-dist.js';
import type { Json } from './translation-fixtures.js';
import { useSourceServer } from './translation-test-servers.js';

/**
 * Compiled gateway processes on their normal boot (the translation engine of TRANSLATION_MODEL
 * in the repository's models/), killed with SIGKILL while a file translation job is PROCESSING;
 * a new process on the same data folder (SQLite store, files) resumes the job, or fails it with
 * the reason after a second crash. Sources come from a real HTTPS host (the test CA, which the
 * spawned processes trust through NODE_EXTRA_CA_CERTS; loopback through ALLOW_PRIVATE_NETWORK).
 */
const sources = useSourceServer({
  'crash/first.txt': { body: 'Good morning, how are you?\n' },
  'crash/second.txt': { body: 'The meeting starts at nine.\n' },
  'crash/third.txt': { body: 'Thank you very much.\n' },
});
const started: ChildProcess[] = [];
const scratch = useScratchDir('translation-crash-');

afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

async function start(dataDir: string) {
  const server = await startServerProcess({
    DATA_DIR: dataDir,
    ALLOW_PRIVATE_NETWORK: 'true',
    RATE_LIMIT_PER_MINUTE: '100000',
    TRANSLATION_UNIT_CONCURRENCY: '1',
    // Units must take the network's time to be caught mid-job: no transfer tables.
    TRANSLATION_TRANSFER: 'off',
    INFERENCE_WORKERS: '1',
  });
  started.push(server.child);
  return server;
}

const createKey = (dataDir: string): Promise<string> => createKeyWithCli('crash', { DATA_DIR: dataDir });

const get = async (base: string, key: string, path: string): Promise<Json> => (await fetch(`${base}${path}`, { headers: { 'x-api-key': key } })).json();

async function submit(base: string, key: string, uris: string[]): Promise<string> {
  const response = await fetch(`${base}/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({
      source_language: 'en',
      target_languages: ['am'],
      input_config: { type: 'BLOB_STORAGE', uris },
      output_config: { destination_uri: 'svc://crash' },
    }),
  });
  const body = (await response.json()) as Json;
  expect(response.status, JSON.stringify(body)).toBe(202);
  return body.job_id;
}

const final = (base: string, key: string, id: string): Promise<Json> =>
  until(
    async () => {
      const status = await get(base, key, `/translate/${id}`);
      return ['COMPLETED', 'PARTIAL', 'FAILED'].includes(status.status) ? status : undefined;
    },
    120_000,
    100,
    `job ${id} did not finish`,
  );

describe('file translation jobs across crashes (kill -9)', () => {
  it('resumes a job whose gateway was killed mid-job: finished units are kept, the rest run in the new process', { timeout: 180_000 }, async () => {
    const dataDir = scratch('once');
    const key = await createKey(dataDir);
    const first = await start(dataDir);
    const release = sources.stall('crash/second.txt');
    const id = await submit(first.url, key, [sources.url('crash/first.txt'), sources.url('crash/second.txt')]);
    await until(
      async () => ((await get(first.url, key, `/translate/${id}`)).progress.completed_units === 1 ? true : undefined),
      120_000,
      50,
      'first unit not done',
    );
    expect((await get(first.url, key, `/translate/${id}`)).status).toBe('PROCESSING');
    await stopProcess(first.child, 'SIGKILL');
    release();
    const second = await start(dataDir);
    const status = await final(second.url, key, id);
    expect(status).toMatchObject({ status: 'COMPLETED', progress: { total_units: 2, completed_units: 2, failed_units: 0 } });
    expect(sources.fetches('crash/first.txt')).toBe(1);
    const results = await get(second.url, key, `/translate/${id}/results`);
    for (const output of results.outputs) {
      const text = await (await fetch(output.target_uri)).text();
      expect(text.trim().length).toBeGreaterThan(0);
    }
  });

  it('fails a job whose gateway was killed twice, with the reason', { timeout: 180_000 }, async () => {
    const dataDir = scratch('twice');
    const key = await createKey(dataDir);
    const release = sources.stall('crash/third.txt');
    try {
      const first = await start(dataDir);
      const id = await submit(first.url, key, [sources.url('crash/third.txt')]);
      // PROCESSING is set when the job is claimed, a moment before its download starts: wait for the download.
      await until(async () => (sources.fetches('crash/third.txt') >= 1 ? true : undefined), 60_000, 50, 'not downloading');
      expect((await get(first.url, key, `/translate/${id}`)).status).toBe('PROCESSING');
      await stopProcess(first.child, 'SIGKILL');
      const second = await start(dataDir);
      await until(async () => (sources.fetches('crash/third.txt') >= 2 ? true : undefined), 60_000, 50, 'not resumed');
      await stopProcess(second.child, 'SIGKILL');
      const third = await start(dataDir);
      const status = await final(third.url, key, id);
      expect(status.status).toBe('FAILED');
      const results = await get(third.url, key, `/translate/${id}/results`);
      expect(results.outputs[0]).toMatchObject({ status: 'FAILED', error: { code: 'INTERNAL_ERROR' } });
      expect(results.outputs[0].error.message).toContain('interrupted by a server restart 2 times');
    } finally {
      release();
    }
  });
});
