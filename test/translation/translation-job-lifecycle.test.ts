import { afterAll, describe, expect, it } from 'vitest';
import type { TranslationEngine } from '../../src/engines/translation/translation.js';
import { until } from '../helpers/polling.js';
import { useScratchDir } from '../helpers/suite-fixtures.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { REPO_MODELS_DIR, type Json } from './translation-fixtures.js';
import { useSourceServer } from './translation-test-servers.js';

/** Engine failures, restarts mid-job and expiry of file translation jobs. */
const sources = useSourceServer({
  'a.txt': { body: 'The first file.\nIt has two lines.\n' },
  'b.txt': { body: 'The second file.\n' },
  'c.txt': { body: 'The third file.\n' },
  'resume-1.txt': { body: 'Translated before the shutdown.\n' },
  'resume-2.txt': { body: 'Translated after the restart.\n' },
});
const open: TestGateway[] = [];
const scratch = useScratchDir('translation-lifecycle-');

afterAll(async () => {
  for (const gw of open.splice(0)) await gw.close().catch(() => undefined);
});

/** A gateway on its normal boot (the engine of TRANSLATION_MODEL in the repository's models/), or with `engine` instead. */
async function start(env: Record<string, string> = {}, engine?: TranslationEngine): Promise<TestGateway> {
  const gw = await startTestGateway(
    { MODELS_DIR: REPO_MODELS_DIR, RATE_LIMIT_PER_MINUTE: '100000', TRANSLATION_RETRY_DELAY_MS: '10', ...env },
    engine ? { translationEngine: engine } : {},
  );
  open.push(gw);
  return gw;
}

const request = (uris: string[], targets: string[]) => ({
  source_language: 'en',
  target_languages: targets,
  input_config: { type: 'BLOB_STORAGE', uris },
  output_config: { destination_uri: 'svc://lifecycle' },
});

async function submit(gw: TestGateway, key: string, body: unknown): Promise<string> {
  const response = await fetch(`${gw.url}/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Json;
  expect(response.status, JSON.stringify(json)).toBe(202);
  return json.job_id as string;
}

async function get(gw: TestGateway, key: string, path: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${gw.url}${path}`, { headers: { 'x-api-key': key } });
  return { status: response.status, body: (await response.json()) as Json };
}

const final = (gw: TestGateway, key: string, id: string): Promise<Json> =>
  until(
    async () => {
      const { body } = await get(gw, key, `/translate/${id}`);
      return ['COMPLETED', 'PARTIAL', 'FAILED'].includes(body.status) ? body : undefined;
    },
    60_000,
    50,
    `job ${id} did not finish`,
  );

/**
 * A job held PROCESSING (its source stalls until `release`) on a gateway that then plays a dead
 * process, and the next gateway on the same SQLite store (`env`), which takes over every job left
 * processing, as after a crash. The dead one lost its lease, so nothing it does afterwards is written.
 */
async function jobOnDeadGateway(folder: string, source: string, target: string) {
  const env = { DATA_DIR: scratch(folder), JOB_LEASE_SECONDS: '2' };
  const dead = await start(env);
  const key = await dead.key();
  const release = sources.stall(source);
  const id = await submit(dead, key, request([sources.url(source)], [target]));
  await until(async () => ((await get(dead, key, `/translate/${id}`)).body.status === 'PROCESSING' ? true : undefined), 20_000, 20, 'not processing');
  return { env, key, id, release, next: await start(env) };
}

/** Resolves once `gw` holds the lease of job `id`. */
const takenOver = (gw: TestGateway, id: string): Promise<true> =>
  until(async () => ((await gw.gateway.store.jobs.get(id))?.leaseOwner === gw.gateway.backends.owner ? true : undefined), 20_000, 20, 'not taken over');

// Every test here starts one to three gateways (and some wait out leases): the dead-gateway one took
// 7 s on a quiet machine, 11 s beside a training run and 32-33 s beside two busy loops, past the
// default 30 s limit, which another test here came within 5 s of.
describe('file translation job lifecycle', { timeout: 90_000 }, () => {
  it('fails a unit with TRANSLATION_ERROR after 3 retries of a failing engine', async () => {
    let calls = 0;
    // Test-only: an engine that always throws, the one way to provoke TRANSLATION_ERROR on purpose.
    const failing: TranslationEngine = {
      name: 'failing',
      languages: ['en', 'am', 'ti'],
      translate: async () => {
        throw new Error('engine unavailable (test)');
      },
      close: async () => undefined,
      translateMany: async () => {
        calls++;
        throw new Error('engine unavailable (test)');
      },
    };
    const gw = await start({}, failing);
    const key = await gw.key();
    const id = await submit(gw, key, request([sources.url('a.txt')], ['am', 'ti']));
    expect((await final(gw, key, id)).status).toBe('FAILED');
    const results = (await get(gw, key, `/translate/${id}/results`)).body;
    expect(calls).toBe(8); // per unit: the attempt and 3 retries
    for (const output of results.outputs) {
      expect(output).toMatchObject({ status: 'FAILED', target_uri: null, error: { code: 'TRANSLATION_ERROR' } });
      expect(output.error.message).toContain('after 3 retries');
      expect(output.error.message).toContain('engine unavailable (test)');
    }
  });

  it('resumes a job stopped mid-way by a shutdown: done units are kept, the rest run after the restart', async () => {
    const dataDir = scratch('graceful');
    const env = { DATA_DIR: dataDir, SHUTDOWN_GRACE_MS: '200', TRANSLATION_UNIT_CONCURRENCY: '1' };
    const first = await start(env);
    const key = await first.key();
    const release = sources.stall('resume-2.txt');
    const id = await submit(first, key, request([sources.url('resume-1.txt'), sources.url('resume-2.txt')], ['am']));
    await until(
      async () => ((await get(first, key, `/translate/${id}`)).body.progress.completed_units === 1 ? true : undefined),
      20_000,
      20,
      'first file not done',
    );
    expect((await get(first, key, `/translate/${id}`)).body.status).toBe('PROCESSING');
    await first.close();
    release();
    const second = await start(env);
    const status = await final(second, key, id);
    expect(status).toMatchObject({ status: 'COMPLETED', progress: { total_units: 2, completed_units: 2, failed_units: 0 } });
    expect(sources.fetches('resume-1.txt')).toBe(1); // not translated again
    expect(sources.fetches('resume-2.txt')).toBe(2); // interrupted, then fetched again
    const results = (await get(second, key, `/translate/${id}/results`)).body;
    for (const output of results.outputs) expect((await fetch(output.target_uri)).status).toBe(200);
  });

  it('takes over a job whose process died (its lease is gone), and fails it with a reason after a second death', async () => {
    const { env, key, id, release, next } = await jobOnDeadGateway('crash', 'c.txt', 'am');
    await takenOver(next, id);
    expect((await next.gateway.store.jobs.get(id))?.attempts).toBe(2);
    // Its second process dies too: the third fails it with the reason instead of retrying forever.
    const third = await start(env);
    const failed = await final(third, key, id);
    expect(failed.status).toBe('FAILED');
    const results = (await get(third, key, `/translate/${id}/results`)).body;
    expect(results.outputs[0]).toMatchObject({ status: 'FAILED', error: { code: 'INTERNAL_ERROR' } });
    expect(results.outputs[0].error.message).toContain('interrupted by a server restart 2 times');
    release();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await get(third, key, `/translate/${id}/results`)).body.outputs[0].status).toBe('FAILED'); // the dead processes wrote nothing
  });

  it('resumes a job whose process died once and completes it', async () => {
    const { key, id, release, next } = await jobOnDeadGateway('crash-once', 'a.txt', 'ti');
    await takenOver(next, id);
    release();
    expect((await final(next, key, id)).status).toBe('COMPLETED');
  });

  it('removes finished jobs after TRANSLATION_JOB_EXPIRY_HOURS', async () => {
    const gw = await start({ TRANSLATION_JOB_EXPIRY_HOURS: '0.0005' }); // 1.8 s
    const key = await gw.key();
    const id = await submit(gw, key, request([sources.url('b.txt')], ['am']));
    const status = await final(gw, key, id);
    expect(Date.parse(status.expires_at) - Date.parse(status.created_at)).toBe(1800);
    const output = (await get(gw, key, `/translate/${id}/results`)).body.outputs[0].target_uri;
    await until(async () => ((await get(gw, key, `/translate/${id}`)).status === 404 ? true : undefined), 10_000, 100, 'not expired');
    expect((await get(gw, key, `/translate/${id}/results`)).status).toBe(404);
    expect((await fetch(output)).status).toBe(200); // output files stay
  });
});
