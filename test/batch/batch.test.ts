import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { callJson, useTestGateway } from '../helpers/suite-gateway.js';
import { MEDIA_DIR, serveFixture, startTestServer, type TestServer } from '../helpers/tls-servers.js';

type ErrorBody = { error: { type: string; code: string; message: string; param?: string } };
type BatchEntry = { job_id: string; url: string; status: string; text?: string; progress?: Record<string, number | string> };
type Job = {
  id: string;
  object: string;
  status: string;
  text: string | null;
  segments: unknown[] | null;
  error: { type: string; code: string; message: string } | null;
  metadata: Record<string, unknown> & { jobs?: BatchEntry[] };
  progress: { stage: string; percent: number; total_segments: number; done_segments: number } | null;
  audio_url: string | null;
  audio_download_url?: string | null;
  url: string;
} & Record<string, unknown>;

const fixture = (name: string): Buffer => readFileSync(join(MEDIA_DIR, name));

let gw: TestGateway;
let host: TestServer;
let key: string;

beforeAll(async () => {
  host = await startTestServer({ tls: true });
  host.respond = (req, res) => {
    const name = /^\/([\w.-]+)$/.exec(req.url.split('?')[0]!)?.[1];
    if (name && name.startsWith('hello-am')) serveFixture(res, name, undefined, 'application/octet-stream');
    else res.writeHead(404).end('not here');
  };
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '10000' });
  key = await gw.key();
});
afterAll(async () => {
  await gw?.close();
  await host?.close();
});

const call = <T>(method: string, path: string, body?: unknown, apiKey = key) => callJson<T>(gw.url, method, path, body, apiKey);

const submit = (body: unknown, apiKey = key) => call<Job & ErrorBody>('POST', '/v1/transcriptions/batch', body, apiKey);

async function waitFinal(id: string, apiKey = key, timeoutMs = 60_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await call<Job>('GET', `/v1/transcriptions/${id}`, undefined, apiKey);
    if (body.status === 'completed' || body.status === 'failed') return body;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${body.status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function uploadFile(name: string, apiKey = key): Promise<{ file_id: string; file_url: string; svc_uri: string }> {
  const form = new FormData();
  form.append('file', new Blob([fixture(name)]), name);
  const response = await fetch(`${gw.url}/v1/uploads`, { method: 'POST', headers: bearer(apiKey), body: form });
  expect(response.status).toBe(201);
  return (await response.json()) as { file_id: string; file_url: string; svc_uri: string };
}

describe('POST /v1/transcriptions/batch with audio_urls', () => {
  it('creates a parent exactly as specified, and one bad file does not fail the batch', async () => {
    const urls = [`${host.origin}/hello-am.mp3`, `${host.origin}/missing.mp3`, `${host.origin}/hello-am.wav?v=1`];
    const created = await submit({ audio_urls: urls, language: 'am' });
    expect(created.status).toBe(202);
    const parent = created.body;
    expect(parent).toMatchObject({ object: 'transcription', status: 'queued', text: null, segments: null, url: `/v1/transcriptions/${parent.id}` });
    expect(parent.metadata).toEqual({ batch_mode: true, total_count: 3 });
    expect(parent).not.toHaveProperty('batch_id');
    expect(parent).not.toHaveProperty('jobs');

    const done = await waitFinal(parent.id);
    expect(done.status).toBe('completed');
    expect(done.text).toBeNull();
    expect(done.segments).toBeNull();
    expect(done.metadata).toMatchObject({ batch_mode: true, total_count: 3, completed_count: 2, failed_count: 1, processing_count: 0, queued_count: 0 });
    const jobs = done.metadata.jobs!;
    expect(jobs.map((j) => j.url)).toEqual(urls);
    expect(jobs.map((j) => j.status)).toEqual(['completed', 'failed', 'completed']);
    expect(typeof jobs[0]!.text).toBe('string');
    expect(jobs[1]).not.toHaveProperty('text');
    expect(done.progress).toMatchObject({ stage: 'completed', percent: 100, total_segments: 3, done_segments: 3 });

    const child = await call<Job>('GET', `/v1/transcriptions/${jobs[0]!.job_id}`);
    expect(child.body).toMatchObject({ status: 'completed', audio_url: urls[0] });
    expect(Array.isArray(child.body.segments)).toBe(true);
    const download = await fetch(String(child.body.audio_download_url).replace(gw.gateway.baseUrl, gw.url));
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(fixture('hello-am.mp3'))).toBe(true);
    const failed = await call<Job>('GET', `/v1/transcriptions/${jobs[1]!.job_id}`);
    expect(failed.body.error).toMatchObject({ code: 'audio_download_failed' });
    expect(failed.body.audio_download_url).toBeNull();

    // The parent is listed (with its live metadata), its children are not.
    const list = await call<{ data: Job[] }>('GET', '/v1/transcriptions?limit=200');
    const listed = list.body.data.find((j) => j.id === parent.id);
    expect(listed?.metadata).toMatchObject({ batch_mode: true, completed_count: 2 });
    expect(list.body.data.some((j) => j.id === jobs[0]!.job_id)).toBe(false);
  });

  it('takes svc:// URIs and file_urls of uploads of the same account only, and never deletes them with the batch', async () => {
    const upload = await uploadFile('hello-am.ogg');
    const foreign = await uploadFile('hello-am.mp3', await gw.key({ account: 'foreigner' }));
    const urls = [upload.svc_uri, upload.file_url, foreign.svc_uri];
    const created = await submit({ audio_urls: urls });
    expect(created.status).toBe(202);
    const done = await waitFinal(created.body.id);
    expect(done.metadata.jobs!.map((j) => [j.url, j.status])).toEqual([
      [urls[0], 'completed'],
      [urls[1], 'completed'],
      [urls[2], 'failed'],
    ]);
    const foreignChild = await call<Job>('GET', `/v1/transcriptions/${done.metadata.jobs![2]!.job_id}`);
    expect(foreignChild.body.error).toMatchObject({ code: 'audio_download_failed' });
    expect((await call('DELETE', `/v1/transcriptions/${created.body.id}`)).status).toBe(200);
    expect((await call('GET', `/v1/transcriptions/${done.metadata.jobs![0]!.job_id}`)).status).toBe(404);
    expect((await call('GET', `/v1/media/${upload.file_id}`)).status).toBe(200);
  });

  it('fails the parent only when no file could be transcribed', async () => {
    const created = await submit({ audio_urls: [`${host.origin}/nope-1.mp3`, `${host.origin}/nope-2.mp3`] });
    const done = await waitFinal(created.body.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatchObject({ code: 'batch_failed' });
    expect(done.metadata).toMatchObject({ completed_count: 0, failed_count: 2 });
  });

  it.each([
    [{ audio_urls: ['http://example.com/a.mp3'] }, 400, 'invalid_field_value', 'audio_urls.0'],
    [{ audio_urls: ['https://example.com/a.mp3', 'ftp://example.com/b.mp3'] }, 400, 'invalid_field_value', 'audio_urls.1'],
    [{ audio_urls: [] }, 400, 'invalid_field_value', 'audio_urls'],
    [{ language: 'am' }, 400, 'missing_required_field', 'audio_urls'],
    [{ audio_urls: Array.from({ length: 101 }, (_, i) => `https://example.com/${i}.mp3`) }, 400, 'invalid_field_value', 'audio_urls'],
    [{ audio_urls: ['https://example.com/a.mp3'], language: 'en' }, 422, 'UNSUPPORTED_LANGUAGE', 'language'],
    [{ audio_urls: ['https://example.com/a.mp3'], language: 'am', model: 'no-such-model' }, 422, 'UNSUPPORTED_MODEL', 'model'],
  ])('refuses %j', async (body, status, code, param) => {
    const result = await submit(body);
    expect(result.status).toBe(status);
    expect(result.body.error).toMatchObject({ code, param });
  });
});

describe('POST /v1/transcriptions/batch with multipart files', () => {
  it('stores each part for its child; a part that is not audio fails alone; url is the file name', async () => {
    const form = new FormData();
    form.append('language', 'am');
    form.append('files', new Blob([fixture('hello-am.mp3')]), 'first.mp3');
    form.append('files', new Blob([fixture('not-audio.txt')]), 'notes.txt');
    form.append('files', new Blob([fixture('hello-am.flac')]), 'third.flac');
    const response = await fetch(`${gw.url}/v1/transcriptions/batch`, { method: 'POST', headers: bearer(key), body: form });
    expect(response.status).toBe(202);
    const parent = (await response.json()) as Job;
    expect(parent.metadata).toEqual({ batch_mode: true, total_count: 3 });
    const done = await waitFinal(parent.id);
    expect(done.metadata).toMatchObject({ completed_count: 2, failed_count: 1 });
    expect(done.metadata.jobs!.map((j) => [j.url, j.status])).toEqual([
      ['first.mp3', 'completed'],
      ['notes.txt', 'failed'],
      ['third.flac', 'completed'],
    ]);
    const bad = await call<Job>('GET', `/v1/transcriptions/${done.metadata.jobs![1]!.job_id}`);
    expect(bad.body.error).toMatchObject({ code: 'invalid_audio_format' });
    const good = await call<Job>('GET', `/v1/transcriptions/${done.metadata.jobs![2]!.job_id}`);
    expect(good.body.audio_url).toBeNull();
    const audio = await fetch(String(good.body.audio_download_url).replace(gw.gateway.baseUrl, gw.url));
    expect(Buffer.from(await audio.arrayBuffer()).equals(fixture('hello-am.flac'))).toBe(true);
  });

  it('needs at least one file, and valid fields (stored parts are dropped again)', async () => {
    const empty = new FormData();
    empty.append('language', 'am');
    const none = await fetch(`${gw.url}/v1/transcriptions/batch`, { method: 'POST', headers: bearer(key), body: empty });
    expect(none.status).toBe(400);
    expect(((await none.json()) as ErrorBody).error).toMatchObject({ code: 'missing_required_field', param: 'files' });
    const form = new FormData();
    form.append('files', new Blob([fixture('hello-am.mp3')]), 'a.mp3');
    form.append('language', 'xx');
    const bad = await fetch(`${gw.url}/v1/transcriptions/batch`, { method: 'POST', headers: bearer(key), body: form });
    expect(bad.status).toBe(422);
  });
});

describe('batch children share the limits of single jobs', () => {
  it('runs at most the key limit of children at once, and counts them against single submissions', async () => {
    const limited = await gw.key({ limits: { concurrentJobs: 1 } });
    const urls = [1, 2, 3, 4].map((i) => `${host.origin}/hello-am.wav?n=${i}`);
    const created = await submit({ audio_urls: urls }, limited);
    expect(created.status).toBe(202);
    const single = await fetch(`${gw.url}/v1/transcriptions`, {
      method: 'POST',
      headers: bearer(limited, { 'content-type': 'application/json' }),
      body: JSON.stringify({ audio_url: `${host.origin}/hello-am.mp3`, language: 'am' }),
    });
    expect(single.status).toBe(429);
    expect(((await single.json()) as ErrorBody).error.code).toBe('concurrent_limit_exceeded');
    let most = 0;
    for (;;) {
      const { body } = await call<Job>('GET', `/v1/transcriptions/${created.body.id}`, undefined, limited);
      most = Math.max(most, Number(body.metadata['processing_count'] ?? 0));
      if (body.status === 'completed' || body.status === 'failed') {
        expect(body.metadata).toMatchObject({ completed_count: 4 });
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(most).toBeLessThanOrEqual(1);
  });
});

describe('the private-network guard on batch URLs', () => {
  const strict = useTestGateway({ ALLOW_PRIVATE_NETWORK: 'false' });

  it('refuses literal private addresses at submission and names resolving to loopback when fetching', async () => {
    const post = (urls: string[]) =>
      fetch(`${strict.gw.url}/v1/transcriptions/batch`, {
        method: 'POST',
        headers: bearer(strict.key, { 'content-type': 'application/json' }),
        body: JSON.stringify({ audio_urls: urls }),
      });
    const literal = await post(['https://example.com/a.mp3', 'https://169.254.169.254/latest/meta-data']);
    expect(literal.status).toBe(400);
    expect(((await literal.json()) as ErrorBody).error).toMatchObject({ code: 'url_not_allowed', param: 'audio_urls.1' });
    const before = host.requests.length;
    const named = await post([`${host.origin}/hello-am.mp3`]);
    expect(named.status).toBe(202);
    const parent = (await named.json()) as Job;
    let done: Job;
    for (;;) {
      done = (await (await fetch(`${strict.gw.url}/v1/transcriptions/${parent.id}`, { headers: bearer(strict.key) })).json()) as Job;
      if (done.status === 'failed' || done.status === 'completed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(done.status).toBe('failed');
    const child = (await (await fetch(`${strict.gw.url}/v1/transcriptions/${done.metadata.jobs![0]!.job_id}`, { headers: bearer(strict.key) })).json()) as Job;
    expect(child.error?.code).toBe('url_not_allowed');
    expect(host.requests.length).toBe(before);
  });
});

describe('uploads as audio of single jobs', () => {
  it('transcribes a file_url and an svc:// URI; deleting the job keeps the media asset', async () => {
    const upload = await uploadFile('hello-am.m4a');
    for (const audioUrl of [upload.file_url, upload.svc_uri]) {
      const created = await call<Job>('POST', '/v1/transcriptions', { audio_url: audioUrl, language: 'am', mode: 'sync' });
      expect(created.status).toBe(202);
      expect(created.body).toMatchObject({ status: 'completed', audio_url: audioUrl });
      expect(created.body.duration_seconds).toBeCloseTo(1.66, 1);
      expect((await call('DELETE', `/v1/transcriptions/${created.body.id}`)).status).toBe(200);
    }
    expect((await call('GET', `/v1/media/${upload.file_id}`)).status).toBe(200);
    const stranger = await gw.key({ account: 'stranger' });
    const theirs = await call<Job>('POST', '/v1/transcriptions', { audio_url: upload.svc_uri, language: 'am', mode: 'sync' }, stranger);
    expect(theirs.body).toMatchObject({ status: 'failed', error: { code: 'audio_download_failed' } });
  });
});
