import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/webhooks/webhook-signature.js';
import { skipWithout } from '../helpers/distributed-servers.js';
import { until } from '../helpers/polling.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { useTestSchema } from '../helpers/suite-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/tls-servers.js';
import { REPO_MODELS_DIR, transcriptFixture, type Json } from './translation-fixtures.js';
import { useSourceServer } from './translation-test-servers.js';

/**
 * File translation jobs on the PostgreSQL store (its own schema): the same repositories and
 * migrations as SQLite, end to end, with the callback claims and the expiry sweep. Skipped
 * without a PostgreSQL at 127.0.0.1:5432 unless CI is set (then it fails).
 */
describe.skipIf(await skipWithout('postgres'))('file translation jobs on PostgreSQL', () => {
  const schema = useTestSchema('translation');
  const sources = useSourceServer({
    'pg/notes.txt': { body: 'Good morning.\nSee you tomorrow.\n' },
    'pg/talk.json': { body: JSON.stringify(transcriptFixture), type: 'application/json' },
  });
  let callbacks: TestServer;
  const SECRET = 'postgres-callback-secret-01';

  beforeAll(async () => {
    callbacks = await startTestServer({ tls: true, respond: (req, res) => res.writeHead(req.headers['x-webhook-attempt'] === '1' ? 500 : 204).end() });
  });
  afterAll(async () => {
    await callbacks?.close();
  });
  // Registered after the schema and the servers: started after them and closed before them.
  const suite = useTestGateway(() => ({
    MODELS_DIR: REPO_MODELS_DIR,
    STORE_BACKEND: 'postgres',
    DATABASE_URL: schema.url,
    SIGNING_SECRET: 'a-signing-secret-of-at-least-32-characters!',
    RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_RETRY_SCHEDULE: '1',
    // 18 s: room for the job and its callback retry (1 s) on a loaded machine before the expiry sweep removes it (expiry stops retries).
    TRANSLATION_JOB_EXPIRY_HOURS: '0.005',
  }));

  const get = async (path: string): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${suite.gw.url}${path}`, { headers: { 'x-api-key': suite.key } });
    return { status: response.status, body: (await response.json()) as Json };
  };

  it('runs a PARTIAL job, serves its outputs, retries its callback, then expires it', async () => {
    const response = await fetch(`${suite.gw.url}/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': suite.key },
      body: JSON.stringify({
        source_language: 'en',
        target_languages: ['am', 'ti'],
        input_config: { type: 'BLOB_STORAGE', uris: [sources.url('pg/notes.txt'), sources.url('pg/talk.json'), sources.url('pg/gone.txt')] },
        output_config: { destination_uri: 'svc://pg/out' },
        callback_url: `${callbacks.origin}/cb`,
        callback_secret: SECRET,
      }),
    });
    expect(response.status).toBe(202);
    const { job_id: id } = (await response.json()) as Json;
    const status = await until(
      async () => {
        const { body } = await get(`/translate/${id}`);
        return ['COMPLETED', 'PARTIAL', 'FAILED'].includes(body.status) ? body : undefined;
      },
      30_000,
      50,
      'job did not finish',
    );
    expect(status).toMatchObject({ status: 'PARTIAL', progress: { total_units: 6, completed_units: 4, failed_units: 2 } });
    const results = (await get(`/translate/${id}/results`)).body;
    expect(results.outputs.map((o: Json) => o.error?.code ?? o.status)).toEqual([
      'COMPLETED',
      'COMPLETED',
      'COMPLETED',
      'COMPLETED',
      'DOWNLOAD_ERROR',
      'DOWNLOAD_ERROR',
    ]);
    const transcript = (await (await fetch(results.outputs[2].target_uri)).json()) as Json;
    expect(transcript).toMatchObject({ language: 'am', duration: transcriptFixture.duration, speakers: transcriptFixture.speakers });
    const second = await callbacks.waitFor(2, 15_000);
    expect(second.headers['x-webhook-attempt']).toBe('2');
    expect(verifySignature(second.headers['x-webhook-signature'] as string, second.body, SECRET)).toBe(true);
    expect(JSON.parse(second.body.toString())).toMatchObject({ job_id: id, status: 'PARTIAL' });
    await until(async () => ((await get(`/translate/${id}`)).status === 404 ? true : undefined), 40_000, 200, 'not expired');
  }, 90_000);
});
