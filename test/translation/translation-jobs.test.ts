import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UrlSigner } from '../../src/platform/auth/url-signer.js';
import { verifySignature } from '../../src/webhooks/webhook-signature.js';
import { until } from '../helpers/polling.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { startTestServer, type TestServer } from '../helpers/tls-servers.js';
import { REPO_MODELS_DIR, transcriptFixture, type Json } from './translation-fixtures.js';
import { useSourceServer } from './translation-test-servers.js';

/**
 * File translation jobs against a real gateway (port 0), a real HTTPS host of the sources, a
 * real HTTPS destination (PUT) and a real HTTPS callback receiver, all on loopback, which the
 * gateway may reach because the test gateway sets the operator's ALLOW_PRIVATE_NETWORK=true.
 */
const SECRET = 'callback-secret-0123456789';

const TEXT = 'Hello, how are you today?\n\nThe weather is good.\n';
const sources = useSourceServer({
  'docs/greeting.txt': { body: TEXT },
  'docs/interview.json': { body: JSON.stringify(transcriptFixture), type: 'application/json' },
  'docs/binary.bin': { body: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]) },
  'docs/not-transcript.json': { body: '{"hello": "world"}', type: 'application/json' },
  'am/selam.txt': { body: 'ሰላም ነው።\nእንዴት ነህ?\n' },
});

let gw: TestGateway;
let key: string;
let destination: TestServer;
let callbacks: TestServer;

beforeAll(async () => {
  destination = await startTestServer({ tls: true, respond: (req, res) => res.writeHead(req.url.includes('/broken/') ? 500 : 201).end() });
  callbacks = await startTestServer({ tls: true });
  gw = await startTestGateway({
    MODELS_DIR: REPO_MODELS_DIR,
    RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_RETRY_SCHEDULE: '1,1',
    TRANSLATION_RETRY_DELAY_MS: '10',
  });
  key = await gw.key();
});

afterAll(async () => {
  await gw?.close();
  await Promise.all([destination?.close(), callbacks?.close()]);
});

const headers = (k = key) => ({ 'content-type': 'application/json', 'x-api-key': k });
const submit = (body: unknown, k = key, base = gw.url) => fetch(`${base}/translate`, { method: 'POST', headers: headers(k), body: JSON.stringify(body) });
const get = async (path: string, k = key, base = gw.url): Promise<{ status: number; body: Json }> => {
  const response = await fetch(`${base}${path}`, { headers: { 'x-api-key': k } });
  return { status: response.status, body: (await response.json()) as Json };
};

async function submitted(body: unknown, k = key, base = gw.url): Promise<string> {
  const response = await submit(body, k, base);
  const json = (await response.json()) as Json;
  expect(response.status, JSON.stringify(json)).toBe(202);
  expect(json.status).toBe('PENDING');
  return json.job_id as string;
}

async function finished(id: string, k = key, base = gw.url): Promise<Json> {
  return until(
    async () => {
      const { body } = await get(`/translate/${id}`, k, base);
      return ['COMPLETED', 'PARTIAL', 'FAILED'].includes(body.status as string) ? body : undefined;
    },
    60_000,
    50,
    `translation job ${id} did not finish`,
  );
}

const request = (uris: string[], targets: string[], extra: Record<string, unknown> = {}) => ({
  source_language: 'en',
  target_languages: targets,
  input_config: { type: 'BLOB_STORAGE', uris },
  output_config: { destination_uri: 'svc://translations/out' },
  ...extra,
});

describe('file translation jobs', () => {
  it('translates text and transcript JSON into two languages, serves signed outputs and calls back signed', async () => {
    const id = await submitted(
      request([sources.url('docs/greeting.txt'), sources.url('docs/interview.json')], ['am', 'ti'], {
        callback_url: `${callbacks.origin}/hook`,
        callback_secret: SECRET,
      }),
    );
    const status = await finished(id);
    expect(status).toMatchObject({ job_id: id, status: 'COMPLETED', progress: { total_units: 4, completed_units: 4, failed_units: 0 } });
    const { status: code, body: results } = await get(`/translate/${id}/results`);
    expect(code).toBe(200);
    expect(results.summary).toMatchObject({ status: 'COMPLETED', success_count: 4, failure_count: 0 });
    expect(results.summary.total_characters).toBeGreaterThan(TEXT.length);
    const outputs = results.outputs as Json[];
    expect(outputs.map((o) => [o.source_uri, o.target_language, o.status, o.error])).toEqual([
      [sources.url('docs/greeting.txt'), 'am', 'COMPLETED', null],
      [sources.url('docs/greeting.txt'), 'ti', 'COMPLETED', null],
      [sources.url('docs/interview.json'), 'am', 'COMPLETED', null],
      [sources.url('docs/interview.json'), 'ti', 'COMPLETED', null],
    ]);
    // Signed URLs: no credential, names derived from the source names, 24 hours by default.
    expect(outputs.map((o) => new URL(o.target_uri).pathname.split('/').pop())).toEqual([
      'greeting.am.txt',
      'greeting.ti.txt',
      'interview.am.json',
      'interview.ti.json',
    ]);
    const expires = Number(new URL(outputs[0]!.target_uri).searchParams.get('expires'));
    expect(expires - Date.now() / 1000).toBeGreaterThan(86_400 - 60);
    expect(expires - Date.now() / 1000).toBeLessThanOrEqual(86_400);
    const text = await (await fetch(outputs[0]!.target_uri)).text();
    expect(text.split('\n')).toHaveLength(TEXT.split('\n').length);
    expect(text.split('\n')[1]).toBe('');
    // The text is the engine's (its quality is the engine's own tests' concern): the source line is replaced.
    expect(text.split('\n')[0]).not.toBe(TEXT.split('\n')[0]);
    const transcript = (await (await fetch(outputs[3]!.target_uri)).json()) as Json;
    expect(transcript.language).toBe('ti');
    expect(transcript.duration).toBe(transcriptFixture.duration);
    expect(transcript.speakers).toEqual(transcriptFixture.speakers);
    expect(transcript.segments).toHaveLength(transcriptFixture.segments.length);
    transcript.segments.forEach((segment: Json, i: number) => {
      const source = transcriptFixture.segments[i]!;
      expect({ ...segment, text: undefined }).toEqual({ ...source, text: undefined });
      if (source.text === '') expect(segment.text).toBe('');
      else {
        expect(typeof segment.text).toBe('string');
        expect(segment.text).not.toBe(source.text);
      }
    });
    // The outputs live under the destination prefix in the account's storage area, and serve as svc:// sources.
    const chained = await submitted({ ...request(['svc://translations/out/greeting.am.txt'], ['en']), source_language: 'am' });
    expect((await finished(chained)).status).toBe('COMPLETED');
    // The callback: once, signed like a webhook, with the final payload.
    const delivery = await callbacks.waitFor(1);
    expect(delivery.method).toBe('POST');
    expect(verifySignature(delivery.headers['x-webhook-signature'] as string, delivery.body, SECRET)).toBe(true);
    expect(verifySignature(delivery.headers['x-webhook-signature'] as string, delivery.body, 'another-secret-0123456')).toBe(false);
    const payload = JSON.parse(delivery.body.toString()) as Json;
    expect(payload).toMatchObject({ event: 'translation.finished', job_id: id, status: 'COMPLETED', summary: { success_count: 4 } });
    expect(payload.outputs).toHaveLength(4);
  });

  it('answers 403 to altered and expired output links, and serves them without a credential', async () => {
    const id = await submitted(request([sources.url('docs/greeting.txt')], ['am']));
    await finished(id);
    const url = new URL((await get(`/translate/${id}/results`)).body.outputs[0].target_uri);
    expect((await fetch(url)).status).toBe(200);
    const tampered = new URL(url);
    tampered.searchParams.set('sig', `${url.searchParams.get('sig')!.slice(0, -2)}AA`);
    expect((await fetch(tampered)).status).toBe(403);
    const otherObject = new URL(url);
    otherObject.searchParams.set('object', 'accounts/other/files/secret.txt');
    expect((await fetch(otherObject)).status).toBe(403);
    const longer = new URL(url);
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
    expect((await fetch(longer)).status).toBe(403);
    const past = new UrlSigner(gw.gateway.backends.signingSecret, gw.url, () => Date.now() - 3_600_000);
    const expired = past.sign('GET', url.pathname, 60, { object: url.searchParams.get('object')! }).url;
    const answer = await fetch(expired);
    expect(answer.status).toBe(403);
    expect(await answer.json()).toEqual({ detail: 'The signed URL has expired.' });
  });

  it('writes outputs to an https:// destination with one PUT each', async () => {
    const before = destination.requests.length;
    const id = await submitted({
      ...request([sources.url('docs/greeting.txt')], ['am', 'ti']),
      output_config: { destination_uri: `${destination.origin}/bucket/run-1` },
    });
    expect((await finished(id)).status).toBe('COMPLETED');
    const puts = destination.requests.slice(before);
    expect(puts.map((r) => [r.method, r.url]).sort()).toEqual([
      ['PUT', '/bucket/run-1/greeting.am.txt'],
      ['PUT', '/bucket/run-1/greeting.ti.txt'],
    ]);
    const results = (await get(`/translate/${id}/results`)).body;
    const served = await (await fetch(results.outputs[0].target_uri)).text();
    expect(puts.find((r) => r.url.endsWith('greeting.am.txt'))!.body.toString()).toBe(served);
  });

  it('reports per-unit DOWNLOAD_ERROR and UNSUPPORTED_FORMAT with PARTIAL', async () => {
    const id = await submitted(
      request(
        [sources.url('docs/greeting.txt'), sources.url('docs/missing.txt'), sources.url('docs/binary.bin'), sources.url('docs/not-transcript.json')],
        ['am'],
      ),
    );
    const status = await finished(id);
    expect(status).toMatchObject({ status: 'PARTIAL', progress: { total_units: 4, completed_units: 1, failed_units: 3 } });
    const results = (await get(`/translate/${id}/results`)).body;
    expect(results.summary).toMatchObject({ status: 'PARTIAL', success_count: 1, failure_count: 3 });
    const [ok, missing, binary, json] = results.outputs as Json[];
    expect(ok).toMatchObject({ status: 'COMPLETED', error: null });
    expect(missing).toMatchObject({ status: 'FAILED', target_uri: null, error: { code: 'DOWNLOAD_ERROR' } });
    expect(missing!.error.message).toContain('404');
    expect(binary).toMatchObject({ status: 'FAILED', target_uri: null, error: { code: 'UNSUPPORTED_FORMAT' } });
    expect(json).toMatchObject({ status: 'FAILED', error: { code: 'UNSUPPORTED_FORMAT' } });
  });

  it('reports UPLOAD_ERROR when the destination refuses the output, and FAILED when every unit failed', async () => {
    const id = await submitted({
      ...request([sources.url('docs/greeting.txt')], ['am', 'ti'], { callback_url: `${callbacks.origin}/upload-hook` }),
      output_config: { destination_uri: `${destination.origin}/broken/out/` },
    });
    expect((await finished(id)).status).toBe('FAILED');
    const results = (await get(`/translate/${id}/results`)).body;
    expect(results.summary).toMatchObject({ status: 'FAILED', success_count: 0, failure_count: 2, total_characters: 0 });
    for (const output of results.outputs as Json[]) {
      expect(output).toMatchObject({ status: 'FAILED', target_uri: null, error: { code: 'UPLOAD_ERROR' } });
      expect(output.error.message).toContain('HTTP 500');
    }
    const delivery = await until(async () => callbacks.requests.find((r) => r.url === '/upload-hook'), 15_000, 50, 'no callback');
    expect(delivery.headers['x-webhook-signature']).toBeUndefined(); // no callback_secret: unsigned, like a webhook without one
    expect(JSON.parse(delivery.body.toString())).toMatchObject({ job_id: id, status: 'FAILED' });
  });

  it('retries a failed callback on the webhook schedule', async () => {
    let calls = 0;
    const flaky = await startTestServer({ tls: true, respond: (_req, res) => res.writeHead(++calls === 1 ? 503 : 200).end() });
    try {
      const id = await submitted(request([sources.url('docs/greeting.txt')], ['am'], { callback_url: `${flaky.origin}/cb`, callback_secret: SECRET }));
      await finished(id);
      const first = await flaky.waitFor(1);
      const second = await flaky.waitFor(2, 15_000);
      expect(second.at - first.at).toBeGreaterThanOrEqual(900);
      expect(second.headers['x-webhook-attempt']).toBe('2');
      expect(second.body.equals(first.body)).toBe(true);
      expect(verifySignature(second.headers['x-webhook-signature'] as string, second.body, SECRET)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(flaky.requests).toHaveLength(2); // a 2xx ends the deliveries
    } finally {
      await flaky.close();
    }
  });

  it('answers 409 for results and delete while the job runs, then deletes it (404 after; outputs stay)', async () => {
    const release = sources.stall('am/selam.txt');
    const id = await submitted({ ...request([sources.url('am/selam.txt')], ['en']), source_language: 'am' });
    const pending = await get(`/translate/${id}/results`);
    expect(pending.status).toBe(409);
    expect(pending.body).toEqual({ detail: 'Job is still in progress' });
    await until(async () => ((await get(`/translate/${id}`)).body.status === 'PROCESSING' ? true : undefined), 15_000, 20, 'never PROCESSING');
    expect((await get(`/translate/${id}/results`)).status).toBe(409);
    const busy = await fetch(`${gw.url}/translate/${id}`, { method: 'DELETE', headers: { 'x-api-key': key } });
    expect(busy.status).toBe(409);
    release();
    await finished(id);
    const output = (await get(`/translate/${id}/results`)).body.outputs[0].target_uri as string;
    const removed = await fetch(`${gw.url}/translate/${id}`, { method: 'DELETE', headers: { 'x-api-key': key } });
    expect(removed.status).toBe(204);
    expect((await get(`/translate/${id}`)).status).toBe(404);
    expect((await get(`/translate/${id}/results`)).status).toBe(404);
    expect((await fetch(`${gw.url}/translate/${id}`, { method: 'DELETE', headers: { 'x-api-key': key } })).status).toBe(404);
    expect((await fetch(output)).status).toBe(200);
  });

  it('keeps jobs to their account and type, and checks the key', async () => {
    const id = await submitted(request([sources.url('docs/greeting.txt')], ['am']));
    const other = await gw.key({ account: 'someone-else' });
    expect((await get(`/translate/${id}`, other)).status).toBe(404);
    expect((await get(`/transcribe/${id}`)).status).toBe(404);
    const unified = await fetch(`${gw.url}/v1/transcriptions/${id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(unified.status).toBe(404);
    const unifiedDelete = await fetch(`${gw.url}/v1/transcriptions/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } });
    expect(unifiedDelete.status).toBe(404);
    expect((await get('/translate/tr_unknown')).body).toEqual({ detail: 'Job not found' });
    expect((await fetch(`${gw.url}/translate/${id}`)).status).toBe(401);
    expect((await get(`/translate/${id}`, 'sk_not_a_key')).status).toBe(403);
    await finished(id);
  });

  it('is described by /openapi.json and /llms.txt', async () => {
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as Json;
    expect(Object.keys(doc.paths['/translate'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/translate/{job_id}']).sort()).toEqual(['delete', 'get']);
    expect(Object.keys(doc.paths['/translate/{job_id}/results'])).toEqual(['get']);
    expect(doc.paths['/translate'].post.security).toBeDefined();
    const index = await (await fetch(`${gw.url}/llms.txt`)).text();
    for (const line of ['POST /translate`', 'GET /translate/{job_id}`', 'GET /translate/{job_id}/results`', 'DELETE /translate/{job_id}`'])
      expect(index).toContain(line);
    const full = await (await fetch(`${gw.url}/llms-full.txt`)).text();
    expect(full).toContain('## File translation jobs');
    expect(full).toContain('TRANSLATION_ERROR (after 3 retries)');
  });

  it("counts jobs against the key's concurrent job limit", async () => {
    const limited = await gw.key({ limits: { concurrentJobs: 1 } });
    const release = sources.stall('docs/slow.txt');
    sources.files['docs/slow.txt'] = { body: 'slow text' };
    const first = await submitted(request([sources.url('docs/slow.txt')], ['am']), limited);
    const second = await submit(request([sources.url('docs/greeting.txt')], ['am']), limited);
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    release();
    await finished(first, limited);
    expect((await submit(request([sources.url('docs/greeting.txt')], ['am']), limited)).status).toBe(202);
  });
});
