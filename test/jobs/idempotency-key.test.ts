import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranslationEngine } from '../../src/engines/translation/translation.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { MEDIA_DIR } from '../helpers/tls-servers.js';

// Idempotency-Key on the routes that create jobs: a retry with the same key and body answers the
// first job instead of creating another, across restarts; another body under the key is refused.

type Json = Record<string, unknown> & { error?: { code: string; type: string }; detail?: unknown };

/** Answers every text as it is: /translate needs an engine, never its output here. */
const echoEngine: TranslationEngine = {
  name: 'echo',
  languages: ['en', 'am'],
  translate: async (text) => text,
  translateMany: async (texts) => [...texts],
  close: async () => undefined,
};

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-idempotency-'));
let gw: TestGateway;
let key: string;
const env = { DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000' };
// Jobs fetch from here and fail at once: only their submission matters.
const audioUrl = 'http://127.0.0.1:9/missing.wav';

beforeAll(async () => {
  gw = await startTestGateway(env, { translationEngine: echoEngine });
  key = await gw.key();
});
afterAll(async () => {
  await gw?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function post(path: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; replayed: string | null; body: Json }> {
  const response = await fetch(`${gw.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as Json };
}

async function jobCount(apiKey = key): Promise<number> {
  const response = await fetch(`${gw.url}/v1/transcriptions?limit=100`, { headers: bearer(apiKey) });
  return ((await response.json()) as { data: unknown[] }).data.length;
}

describe('Idempotency-Key', () => {
  it('POST /v1/transcriptions: a retry answers the first job, another body 422, across a restart', async () => {
    const body = { audio_url: audioUrl, language: 'am' };
    const headers = bearer(key, { 'idempotency-key': 'retry-1' });
    const first = await post('/v1/transcriptions', body, headers);
    expect(first.status).toBe(202);
    expect(first.replayed).toBeNull();
    const again = await post('/v1/transcriptions', { language: 'am', audio_url: audioUrl }, headers);
    expect(again.status).toBe(202);
    expect(again.replayed).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(Object.keys(again.body).sort()).toEqual(Object.keys(first.body).sort());
    expect(await jobCount()).toBe(1);

    const other = await post('/v1/transcriptions', { ...body, language: 'om' }, headers);
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ code: 'idempotency_key_reused', type: 'idempotency_error' });
    // The same key on another endpoint is another request too.
    const batch = await post('/v1/transcriptions/batch', { audio_urls: ['https://127.0.0.1:9/a.wav'], language: 'am' }, headers);
    expect(batch.status).toBe(422);

    // Keys live in the store: a restarted gateway on the same data answers the same job.
    await gw.close().catch(() => undefined);
    gw = await startTestGateway(env, { translationEngine: echoEngine });
    const afterRestart = await post('/v1/transcriptions', body, headers);
    expect(afterRestart.status).toBe(202);
    expect(afterRestart.body.id).toBe(first.body.id);
    expect(await jobCount()).toBe(1);
  });

  it('keys are per account; without a key every request creates a job; a malformed key is 400', async () => {
    const body = { audio_url: audioUrl, language: 'am' };
    const otherAccount = await gw.key({ account: 'idempotency-other' });
    const mine = await post('/v1/transcriptions', body, bearer(key, { 'idempotency-key': 'shared-key' }));
    const theirs = await post('/v1/transcriptions', body, bearer(otherAccount, { 'idempotency-key': 'shared-key' }));
    expect(theirs.status).toBe(202);
    expect(theirs.body.id).not.toBe(mine.body.id);
    const before = await jobCount();
    await post('/v1/transcriptions', body, bearer(key));
    await post('/v1/transcriptions', body, bearer(key));
    expect(await jobCount()).toBe(before + 2);
    const bad = await post('/v1/transcriptions', body, bearer(key, { 'idempotency-key': 'x'.repeat(256) }));
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'invalid_field_value' });
  });

  it('multipart POST /v1/transcriptions: the same file is a retry, another file under the key 422', async () => {
    const send = (name: string) => {
      const form = new FormData();
      form.append('language', 'am');
      form.append('file', new Blob([readFileSync(join(MEDIA_DIR, name))]), name);
      return fetch(`${gw.url}/v1/transcriptions`, { method: 'POST', headers: bearer(key, { 'idempotency-key': 'upload-1' }), body: form });
    };
    const first = await send('hello-am.wav');
    const again = await send('hello-am.wav');
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(((await again.json()) as Json).id).toBe(((await first.json()) as Json).id);
    expect((await send('hello-am.flac')).status).toBe(422);
  });

  it('POST /v1/transcriptions/batch answers the first parent', async () => {
    const body = { audio_urls: ['https://127.0.0.1:9/a.wav', 'https://127.0.0.1:9/b.wav'], language: 'am' };
    const headers = bearer(key, { 'idempotency-key': 'batch-1' });
    const first = await post('/v1/transcriptions/batch', body, headers);
    const again = await post('/v1/transcriptions/batch', body, headers);
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
  });

  it('POST /transcribe and POST /translate (job API) answer the first job', async () => {
    const headers = { 'x-api-key': key, 'idempotency-key': 'job-api-1' };
    const transcribe = { audio_urls: [audioUrl], language: 'am' };
    const first = await post('/transcribe', transcribe, headers);
    const again = await post('/transcribe', transcribe, headers);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    const reused = await post('/transcribe', { ...transcribe, audio_urls: [audioUrl, audioUrl] }, headers);
    expect(reused.status).toBe(422);

    const translate = {
      source_language: 'en',
      target_languages: ['am'],
      input_config: { type: 'BLOB_STORAGE', uris: ['https://127.0.0.1:9/a.txt'] },
      output_config: { destination_uri: 'svc://idempotency' },
    };
    const translateHeaders = { 'x-api-key': key, 'idempotency-key': 'translate-1' };
    const t1 = await post('/translate', translate, translateHeaders);
    const t2 = await post('/translate', translate, translateHeaders);
    expect(t1.status).toBe(202);
    expect(t2.status).toBe(202);
    expect(t2.body).toEqual(t1.body);
  });
});
