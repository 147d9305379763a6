import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { PLAIN_CLIENTS } from '../helpers/plain-clients.js';

/**
 * Answers decided before the request body has arrived (refused key, scope, size, content type,
 * rate, malformed multipart) must reach clients that write the whole body before reading:
 * Node's fetch, node:http and Python's urllib. The gateway reads and drops the rest of the
 * body, then answers on a connection that stays usable.
 */
let gw: TestGateway;
let writer: string;
let reader: string;
let limited: string;
beforeAll(async () => {
  gw = await startTestGateway({ MAX_JSON_BODY_BYTES: '8KB', MAX_AUDIO_BYTES: '2MB', RATE_LIMIT_PER_MINUTE: '100000' });
  writer = await gw.key({ scopes: ['write'] });
  reader = await gw.key({ scopes: ['read'] });
  // A day window: a fixed minute window could roll over during the run and admit a request.
  limited = await gw.key({ scopes: ['write'], limits: { requestsPerDay: 1 } });
  // Spends the single request of `limited`: every later one is 429.
  expect((await fetch(`${gw.url}/v1/usage`, { headers: bearer(limited) })).status).toBe(200);
});
afterAll(async () => gw.close());

const MULTIPART = 'multipart/form-data; boundary=----x';
const SIZES = [16 * 1024, 1024 * 1024, 20 * 1024 * 1024];

interface Case {
  readonly name: string;
  readonly path: string;
  readonly headers: () => Record<string, string>;
  readonly status: number;
  readonly check: (body: string) => void;
  /** Body sizes to try; default SIZES. */
  readonly sizes?: readonly number[];
}

const unified = (code: string) => (body: string) => expect(JSON.parse(body).error.code).toBe(code);

const CASES: Case[] = [
  { name: 'no key', path: '/v1/uploads', headers: () => ({ 'content-type': MULTIPART }), status: 401, check: unified('missing_api_key') },
  { name: 'bad key', path: '/v1/uploads', headers: () => bearer('sk_nope', { 'content-type': MULTIPART }), status: 401, check: unified('invalid_api_key') },
  {
    name: 'job API bad key',
    path: '/transcribe',
    headers: () => ({ 'x-api-key': 'sk_nope', 'content-type': 'application/json' }),
    status: 403,
    check: (body) => expect(JSON.parse(body)).toEqual({ detail: 'Invalid API Key.' }),
  },
  {
    name: 'read-only key',
    path: '/v1/uploads',
    headers: () => bearer(reader, { 'content-type': MULTIPART }),
    status: 403,
    check: unified('insufficient_scope'),
  },
  {
    name: 'JSON over the limit',
    path: '/v1/transcriptions',
    headers: () => bearer(writer, { 'content-type': 'application/json' }),
    status: 413,
    check: unified('payload_too_large'),
  },
  {
    name: 'wrong content type',
    path: '/v1/uploads',
    headers: () => bearer(writer, { 'content-type': 'text/plain' }),
    status: 415,
    check: unified('unsupported_content_type'),
  },
  {
    name: 'rate limited',
    path: '/v1/uploads',
    headers: () => bearer(limited, { 'content-type': MULTIPART }),
    status: 429,
    check: unified('rate_limit_exceeded'),
  },
  {
    name: 'multipart without boundary',
    path: '/v1/uploads',
    headers: () => bearer(writer, { 'content-type': 'multipart/form-data' }),
    status: 400,
    check: unified('invalid_multipart'),
    // Within MAX_AUDIO_BYTES (2 MB): a larger declared body is 413 before the multipart is looked at.
    sizes: SIZES.filter((size) => size <= 2_000_000),
  },
  {
    name: 'unknown path',
    path: '/v1/nowhere',
    headers: () => bearer(writer, { 'content-type': 'application/json' }),
    status: 404,
    check: unified('resource_not_found'),
  },
];

describe('early answers reach every ordinary client', () => {
  for (const [clientName, client] of PLAIN_CLIENTS) {
    for (const testCase of CASES) {
      it(`${clientName}: ${testCase.name} → ${testCase.status} for bodies from 16 KB to 20 MB`, async () => {
        for (const size of testCase.sizes ?? SIZES) {
          const answer = await client('POST', `${gw.url}${testCase.path}`, testCase.headers(), size);
          expect(answer.status, `${size} bytes`).toBe(testCase.status);
          testCase.check(answer.body);
        }
      }, 60_000);
    }
  }

  it('an upload over MAX_AUDIO_BYTES gets its 413 with every client', async () => {
    for (const [clientName, client] of PLAIN_CLIENTS) {
      for (const size of [3 * 1024 * 1024, 20 * 1024 * 1024]) {
        const answer = await client('POST', `${gw.url}/v1/uploads`, bearer(writer, { 'content-type': MULTIPART }), size);
        expect(answer.status, `${clientName} ${size}`).toBe(413);
        unified('payload_too_large')(answer.body);
      }
    }
  }, 60_000);

  it('keeps the connection open after a drained early answer', async () => {
    const { request, Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    for (let i = 0; i < 3; i++) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(`${gw.url}/v1/uploads`, { method: 'POST', agent, headers: { 'content-type': MULTIPART, 'content-length': String(1024 * 1024) } });
        req.on('socket', (socket) => sockets.add(socket));
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end(Buffer.alloc(1024 * 1024, 'a'));
      });
      expect(status).toBe(401);
    }
    agent.destroy();
    expect(sockets.size).toBe(1);
  });

  it('answers at once and closes when the declared body is over the drain bound (64 MiB)', async () => {
    const { request } = await import('node:http');
    const answer = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = request(`${gw.url}/v1/uploads`, { method: 'POST', headers: { 'content-type': MULTIPART, 'content-length': String(100 * 1024 * 1024) } });
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
        req.destroy();
      });
      req.on('error', (error) => (error.message.includes('EPIPE') || error.message.includes('ECONNRESET') ? undefined : reject(error)));
      req.write(Buffer.alloc(1024 * 1024, 'a'));
    });
    expect(answer).toEqual({ status: 401, connection: 'close' });
  });
});
