import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { startTestServer, type TestServer } from '../helpers/tls-servers.js';

/**
 * One size rule on every path: 413 payload_too_large, and the message names the configured
 * limit (MAX_AUDIO_BYTES for audio, MAX_JSON_BODY_BYTES for JSON and form bodies).
 */
const AUDIO_LIMIT = 2_000_000;
const JSON_LIMIT = 8_000;
const suite = useTestGateway({ MAX_AUDIO_BYTES: '2MB', MAX_JSON_BODY_BYTES: '8kB', RATE_LIMIT_PER_MINUTE: '100000' }, { scopes: ['write'] });
let audioServer: TestServer;
beforeAll(async () => {
  audioServer = await startTestServer({
    tls: true,
    respond: (req, res) => {
      const body = Buffer.alloc(AUDIO_LIMIT + 500_000, 1);
      if (req.url.includes('chunked')) {
        res.writeHead(200, { 'content-type': 'audio/wav' });
        res.write(body.subarray(0, 1_000_000));
        res.end(body.subarray(1_000_000));
      } else {
        res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': String(body.length) }).end(body);
      }
    },
  });
});
afterAll(async () => {
  await audioServer?.close();
});

type Answer = { status: number; body: any };

function expectSizeError(answer: Answer, limit: number, surface: 'unified' | 'job' = 'unified'): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(413);
  if (surface === 'job') {
    expect(answer.body.detail).toContain(`exceeds the size limit of ${limit} bytes`);
    return;
  }
  expect(answer.body.error.code).toBe('payload_too_large');
  expect(answer.body.error.message).toContain(`exceeds the size limit of ${limit} bytes`);
}

async function send(method: string, path: string, headers: Record<string, string>, body: Buffer | string | FormData): Promise<Answer> {
  const url = path.startsWith('http') ? path : `${suite.gw.url}${path}`;
  const response = await fetch(url, { method, headers, body });
  return { status: response.status, body: await response.json() };
}

function fileForm(field: string, bytes: number, extra: Record<string, string> = {}): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(extra)) form.append(name, value);
  form.append(field, new Blob([Buffer.alloc(bytes, 1)]), 'big.wav');
  return form;
}

/** A multipart body sent chunked (no Content-Length): the limit is enforced while streaming. */
function chunkedMultipart(path: string, field: string, bytes: number): Promise<Answer> {
  const boundary = '----sizes';
  return new Promise((resolve, reject) => {
    const req = request(`${suite.gw.url}${path}`, {
      method: 'POST',
      headers: bearer(suite.key, { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' }),
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="language"\r\n\r\nam\r\n`);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="big.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
    for (let sent = 0; sent < bytes; sent += 100_000) req.write(Buffer.alloc(100_000, 1));
    req.end(`\r\n--${boundary}--\r\n`);
  });
}

const bigJson = JSON.stringify({ audio_url: 'https://example.com/a.wav', language: 'am', pad: 'x'.repeat(JSON_LIMIT) });

describe('one size rule', () => {
  it('POST /v1/transcriptions: multipart file over MAX_AUDIO_BYTES, declared, within the framing cap and streamed', async () => {
    expectSizeError(await send('POST', '/v1/transcriptions', bearer(suite.key), fileForm('file', AUDIO_LIMIT + 1_500_000, { language: 'am' })), AUDIO_LIMIT);
    expectSizeError(await send('POST', '/v1/transcriptions', bearer(suite.key), fileForm('file', AUDIO_LIMIT + 100_000, { language: 'am' })), AUDIO_LIMIT);
    expectSizeError(await chunkedMultipart('/v1/transcriptions', 'file', AUDIO_LIMIT + 200_000), AUDIO_LIMIT);
  });

  it('POST /v1/transcriptions: JSON body over MAX_JSON_BODY_BYTES', async () => {
    expectSizeError(await send('POST', '/v1/transcriptions', bearer(suite.key, { 'content-type': 'application/json' }), bigJson), JSON_LIMIT);
  });

  it('POST /v1/uploads: declared, within the framing cap and streamed', async () => {
    expectSizeError(await send('POST', '/v1/uploads', bearer(suite.key), fileForm('file', AUDIO_LIMIT * 3)), AUDIO_LIMIT);
    expectSizeError(await send('POST', '/v1/uploads', bearer(suite.key), fileForm('file', AUDIO_LIMIT + 100_000)), AUDIO_LIMIT);
    expectSizeError(await chunkedMultipart('/v1/uploads', 'file', AUDIO_LIMIT + 200_000), AUDIO_LIMIT);
  });

  it('signed upload: content_length over the limit, and a PUT over it (declared and streamed)', async () => {
    const tooBig = await send(
      'GET',
      `/v1/uploads/signed-url?filename=a.wav&content_type=audio/wav&content_length=${AUDIO_LIMIT + 1}`,
      bearer(suite.key),
      undefined as never,
    );
    expectSizeError(tooBig, AUDIO_LIMIT);
    expect(tooBig.body.error.param).toBe('content_length');
    const signed = await send('GET', '/v1/uploads/signed-url?filename=a.wav&content_type=audio/wav', bearer(suite.key), undefined as never);
    expect(signed.status).toBe(200);
    expectSizeError(await send('PUT', signed.body.upload_url, { 'content-type': 'audio/wav' }, Buffer.alloc(AUDIO_LIMIT + 1, 1)), AUDIO_LIMIT);
    const streamed = await fetch(signed.body.upload_url, {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 25; i++) controller.enqueue(new Uint8Array(100_000));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expectSizeError({ status: streamed.status, body: await streamed.json() }, AUDIO_LIMIT);
  });

  it('POST /v1/transcriptions/batch: a file over the limit, and a JSON body over its limit', async () => {
    expectSizeError(
      await send('POST', '/v1/transcriptions/batch', bearer(suite.key), fileForm('files', AUDIO_LIMIT + 100_000, { language: 'am' })),
      AUDIO_LIMIT,
    );
    expectSizeError(await chunkedMultipart('/v1/transcriptions/batch', 'files', AUDIO_LIMIT + 200_000), AUDIO_LIMIT);
    expectSizeError(await send('POST', '/v1/transcriptions/batch', bearer(suite.key, { 'content-type': 'application/json' }), bigJson), JSON_LIMIT);
  });

  it('job API and translation: bodies over MAX_JSON_BODY_BYTES, each in its own envelope', async () => {
    const jobHeaders = { 'x-api-key': suite.key, 'content-type': 'application/json' };
    expectSizeError(
      await send('POST', '/transcribe', jobHeaders, JSON.stringify({ audio_urls: ['https://example.com/a.wav'], language: 'am', pad: 'x'.repeat(JSON_LIMIT) })),
      JSON_LIMIT,
      'job',
    );
    const form = new URLSearchParams({ key: suite.key, text: 'x'.repeat(JSON_LIMIT), src_lang: 'en', tgt_lang: 'am' });
    expectSizeError(await send('POST', '/translate/v1', { 'content-type': 'application/x-www-form-urlencoded' }, form.toString()), JSON_LIMIT);
  });

  it('a URL job whose audio is over the limit fails with the same code and message', async () => {
    const client = new JobsClient(suite.gw.url, suite.key);
    for (const path of ['/declared.wav', '/chunked.wav']) {
      const created = await client.submitUrl({ audio_url: `${audioServer.origin}${path}`, language: 'am' });
      expect(created.status).toBe(202);
      const job = await client.waitFor(created.body.id);
      expect(job.status).toBe('failed');
      expect(job.error.code).toBe('payload_too_large');
      expect(job.error.message).toContain(`exceeds the size limit of ${AUDIO_LIMIT} bytes`);
    }
  });

  it('the OpenAPI document declares 413 with the error schema on every operation that takes a body', async () => {
    const doc = (await (await fetch(`${suite.gw.url}/openapi.json`)).json()) as any;
    let checked = 0;
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        if (operation.requestBody === undefined) continue;
        const declared = operation.responses['413'];
        expect(declared, `${method} ${path}`).toBeDefined();
        expect(declared.content['application/json'].schema, `${method} ${path}`).toBeDefined();
        expect(declared.description, `${method} ${path}`).toMatch(/\d+ bytes/);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(5);
  });
});
