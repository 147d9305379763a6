import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/polling.js';
import { startS3, type TestS3 } from '../helpers/s3-server.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { REPO_MODELS_DIR, transcriptFixture, type Json } from './translation-fixtures.js';
import { useSourceServer } from './translation-test-servers.js';

/** s3:// destinations: with FILES_BACKEND=s3 (a real S3 API, s3rver), outputs go to the gateway's bucket. */
let s3: TestS3;
let gw: TestGateway;
let key: string;
const sources = useSourceServer({ 's3/talk.json': { body: JSON.stringify(transcriptFixture), type: 'application/json' } });

beforeAll(async () => {
  s3 = await startS3('translations-bucket');
  gw = await startTestGateway({ ...s3.env, MODELS_DIR: REPO_MODELS_DIR, RATE_LIMIT_PER_MINUTE: '100000' });
  key = await gw.key();
});

afterAll(async () => {
  await gw?.close();
  await s3?.close();
});

const post = async (body: unknown): Promise<{ status: number; body: Json }> => {
  const response = await fetch(`${gw.url}/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
};

const job = (destination: string, uris = [sources.url('s3/talk.json')]) => ({
  source_language: 'en',
  target_languages: ['ti'],
  input_config: { type: 'BLOB_STORAGE', uris },
  output_config: { destination_uri: destination },
});

async function results(id: string): Promise<Json> {
  return until(
    async () => {
      const response = await fetch(`${gw.url}/translate/${id}/results`, { headers: { 'x-api-key': key } });
      return response.status === 200 ? ((await response.json()) as Json) : undefined;
    },
    30_000,
    50,
    'job did not finish',
  );
}

describe('file translation into S3 storage', () => {
  it('writes outputs into the gateway bucket under an s3:// prefix and serves them through signed URLs (302 to the bucket)', async () => {
    const submitted = await post(job('s3://translations-bucket/runs/first'));
    expect(submitted.status).toBe(202);
    const done = await results(submitted.body.job_id);
    expect(done.summary.status).toBe('COMPLETED');
    const link = done.outputs[0].target_uri as string;
    const redirect = await fetch(link, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toContain(s3.endpoint);
    const transcript = (await (await fetch(link)).json()) as Json;
    expect(transcript).toMatchObject({ language: 'ti', duration: transcriptFixture.duration });
    // The same object is the account's svc:// file: a later job reads it back.
    const again = await post({ ...job('svc://runs/second', ['svc://runs/first/talk.ti.json']), source_language: 'ti', target_languages: ['en'] });
    expect((await results(again.body.job_id)).summary.status).toBe('COMPLETED');
  });

  it('refuses s3:// destinations in another bucket (422)', async () => {
    const { status, body } = await post(job('s3://someone-elses-bucket/out'));
    expect(status).toBe(422);
    expect(body.detail[0].loc).toEqual(['body', 'output_config', 'destination_uri']);
    expect(body.detail[0].msg).toContain('translations-bucket');
  });
});
