import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WEBHOOK_SIGNATURE_GUIDE } from '../../src/app/media-guide.js';
import { verifySignature } from '../../src/webhooks/webhook-signature.js';
import { REPO_ROOT } from '../helpers/spawn-dist.js';
import { bearer } from '../helpers/test-gateway.js';
import { callJson, useTestGateway } from '../helpers/suite-gateway.js';
import { startTestServer, type TestServer } from '../helpers/tls-servers.js';
import { nodeSnippet, readmeVerifier, type VerifyWebhook } from './readme-snippet.js';

type ErrorBody = { error: { type: string; code: string; message: string; param?: string } };
type Webhook = {
  id: string;
  object: string;
  url: string;
  events: string[];
  status: string;
  description: string;
  has_secret: boolean;
  consecutive_failures: number;
};
type Delivery = {
  id: string;
  object: string;
  webhook_id: string;
  event_id: string;
  event: string;
  status: string;
  attempt_count: number;
  max_attempts: number;
  redelivery_of: string | null;
  attempts: { number: number; response_status: number | null; error: string | null; duration_ms: number; response_body: string | null }[];
  payload: { id: string; event: string; webhook_id: string; timestamp: string; data: Record<string, unknown> };
};

const SECRET = 'whsec_test_0123456789abcdef0123456789abcdef';

let receiver: TestServer;
let verifyFromReadme: VerifyWebhook;

beforeAll(async () => {
  receiver = await startTestServer({ tls: true });
  verifyFromReadme = await readmeVerifier();
});
afterAll(async () => receiver?.close());
// Registered after the receiver's hooks: started after it and closed before it.
const suite = useTestGateway({ RATE_LIMIT_PER_MINUTE: '10000', WEBHOOK_TIMEOUT_SECONDS: '1' });
beforeEach(() => {
  receiver.respond = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
});

const call = <T>(method: string, path: string, body?: unknown, apiKey = suite.key) => callJson<T>(suite.gw.url, method, path, body, apiKey);

const create = (body: Record<string, unknown>, apiKey = suite.key) => call<Webhook & ErrorBody>('POST', '/v1/webhooks', body, apiKey);

describe('webhook management', () => {
  it('creates a webhook (events default to *, the secret is never shown)', async () => {
    const { status, body, headers } = await create({ url: `${receiver.origin}/hooks`, secret: SECRET, description: 'CI receiver' });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      object: 'webhook',
      url: `${receiver.origin}/hooks`,
      events: ['*'],
      status: 'active',
      description: 'CI receiver',
      has_secret: true,
      consecutive_failures: 0,
    });
    expect(body.id).toMatch(/^wh_/);
    expect(headers.get('location')).toBe(`/v1/webhooks/${body.id}`);
    expect(JSON.stringify(body)).not.toContain(SECRET);
    const fetched = await call<Webhook>('GET', `/v1/webhooks/${body.id}`);
    expect(fetched.body).toEqual(body);
  });

  it.each([
    [{ url: 'http://example.com/hook' }, 'invalid_field_value', 'url'],
    [{ url: 'not a url' }, 'invalid_field_value', 'url'],
    [{ url: 'ftp://example.com/hook' }, 'invalid_field_value', 'url'],
    [{}, 'missing_required_field', 'url'],
    [{ url: 'https://example.com/h', events: ['job.exploded'] }, 'invalid_field_value', 'events.0'],
    [{ url: 'https://example.com/h', events: [] }, 'invalid_field_value', 'events'],
    [{ url: 'https://example.com/h', secret: 'short' }, 'invalid_field_value', 'secret'],
  ])('refuses %j with 400 %s', async (body, code, param) => {
    const result = await create(body);
    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ type: 'invalid_request_error', code, param });
  });

  it('lists the account webhooks with status, limit and offset; other accounts see none of them', async () => {
    const otherAccountKey = await suite.gw.key({ account: 'someone-else' });
    const a = await create({ url: `${receiver.origin}/a`, events: ['job.completed'] }, otherAccountKey);
    const b = await create({ url: `${receiver.origin}/b`, events: ['job.failed', 'job.progress'] }, otherAccountKey);
    await call('PATCH', `/v1/webhooks/${b.body.id}`, { status: 'paused' }, otherAccountKey);
    const all = await call<{ data: Webhook[]; total: number; has_more: boolean; limit: number; offset: number }>(
      'GET',
      '/v1/webhooks',
      undefined,
      otherAccountKey,
    );
    expect(all.body.data.map((w) => w.id)).toEqual([a.body.id, b.body.id]);
    expect(all.body).toMatchObject({ total: 2, has_more: false, limit: 50, offset: 0 });
    const page = await call<{ data: Webhook[]; has_more: boolean }>('GET', '/v1/webhooks?limit=1&offset=0', undefined, otherAccountKey);
    expect(page.body.data.map((w) => w.id)).toEqual([a.body.id]);
    expect(page.body.has_more).toBe(true);
    const paused = await call<{ data: Webhook[] }>('GET', '/v1/webhooks?status=paused', undefined, otherAccountKey);
    expect(paused.body.data.map((w) => w.id)).toEqual([b.body.id]);
    const mine = await call<{ data: Webhook[] }>('GET', '/v1/webhooks');
    expect(mine.body.data.map((w) => w.id)).not.toContain(a.body.id);
    const foreign = await call<ErrorBody>('GET', `/v1/webhooks/${a.body.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('webhook_not_found');
    expect((await call('GET', '/v1/webhooks?status=broken')).status).toBe(422);
  });

  it('updates url, events, description, secret and status; refuses what is not allowed', async () => {
    const { body: hook } = await create({ url: `${receiver.origin}/x`, secret: SECRET });
    const changed = await call<Webhook>('PATCH', `/v1/webhooks/${hook.id}`, {
      url: `${receiver.origin}/y`,
      events: ['job.completed', 'job.failed'],
      description: 'changed',
      secret: null,
      status: 'paused',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      url: `${receiver.origin}/y`,
      events: ['job.completed', 'job.failed'],
      description: 'changed',
      has_secret: false,
      status: 'paused',
    });
    const resumed = await call<Webhook>('PATCH', `/v1/webhooks/${hook.id}`, { status: 'active' });
    expect(resumed.body.status).toBe('active');
    const insecure = await call<ErrorBody>('PATCH', `/v1/webhooks/${hook.id}`, { url: 'http://example.com/' });
    expect(insecure.status).toBe(400);
    expect(insecure.body.error).toMatchObject({ code: 'invalid_field_value', param: 'url' });
    const failed = await call<ErrorBody>('PATCH', `/v1/webhooks/${hook.id}`, { status: 'failed' });
    expect(failed.status).toBe(400);
    expect(failed.body.error.param).toBe('status');
    expect((await call('PATCH', '/v1/webhooks/wh_nope', { description: 'x' })).status).toBe(404);
  });

  it('deletes a webhook with its delivery log', async () => {
    const { body: hook } = await create({ url: `${receiver.origin}/gone` });
    const test = await call<Delivery>('POST', `/v1/webhooks/${hook.id}/test`);
    expect(test.status).toBe(200);
    const deleted = await call('DELETE', `/v1/webhooks/${hook.id}`);
    expect(deleted.status).toBe(204);
    expect((await call('GET', `/v1/webhooks/${hook.id}`)).status).toBe(404);
    expect((await call('GET', `/v1/webhooks/${hook.id}/deliveries/${test.body.id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/webhooks/${hook.id}`)).status).toBe(404);
  });
});

describe('test deliveries, signatures and the delivery log', () => {
  it('sends a signed test delivery that the README snippet verifies, and answers its result', async () => {
    const { body: hook } = await create({ url: `${receiver.origin}/signed`, secret: SECRET });
    const before = receiver.requests.length;
    const { status, body } = await call<Delivery>('POST', `/v1/webhooks/${hook.id}/test`);
    expect(status).toBe(200);
    expect(body).toMatchObject({
      object: 'webhook_delivery',
      webhook_id: hook.id,
      event: 'webhook.test',
      status: 'succeeded',
      attempt_count: 1,
      max_attempts: 1,
    });
    expect(body.attempts[0]).toMatchObject({ number: 1, response_status: 200, error: null, response_body: '{"received":true}' });
    const request = receiver.requests[before]!;
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/signed');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-webhook-id']).toBe(body.event_id);
    expect(request.headers['x-webhook-event']).toBe('webhook.test');
    expect(request.headers['x-webhook-delivery']).toBe(body.id);
    const payload = JSON.parse(request.body.toString()) as Delivery['payload'];
    expect(payload).toMatchObject({ id: body.event_id, event: 'webhook.test', webhook_id: hook.id });
    expect(payload).toEqual(body.payload);
    const signature = String(request.headers['x-webhook-signature']);
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(Math.abs(Number(/t=(\d+)/.exec(signature)![1]) - Date.now() / 1000)).toBeLessThan(5);
    expect(verifyFromReadme(request.body, signature, SECRET)).toBe(true);
    expect(verifySignature(signature, request.body, SECRET)).toBe(true);
    // An altered body, another secret, or a stale timestamp fail.
    expect(verifyFromReadme(Buffer.concat([request.body, Buffer.from(' ')]), signature, SECRET)).toBe(false);
    expect(verifyFromReadme(request.body, signature, `${SECRET}-other`)).toBe(false);
    expect(verifySignature(signature, request.body, SECRET, { now: Math.floor(Date.now() / 1000) + 301 })).toBe(false);
  });

  it('sends no signature without a secret', async () => {
    const { body: hook } = await create({ url: `${receiver.origin}/unsigned` });
    const before = receiver.requests.length;
    await call('POST', `/v1/webhooks/${hook.id}/test`);
    expect(receiver.requests[before]!.headers['x-webhook-signature']).toBeUndefined();
  });

  it('reports failures without counting them against the webhook', async () => {
    const { body: hook } = await create({ url: `${receiver.origin}/fails` });
    receiver.respond = (_req, res) => res.writeHead(500).end('boom');
    const failed = await call<Delivery>('POST', `/v1/webhooks/${hook.id}/test`);
    expect(failed.body).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(failed.body.attempts[0]).toMatchObject({ response_status: 500, error: 'HTTP 500', response_body: 'boom' });
    receiver.respond = (_req, res) => res.writeHead(302, { location: 'https://example.com/elsewhere' }).end();
    const redirected = await call<Delivery>('POST', `/v1/webhooks/${hook.id}/test`);
    expect(redirected.body.status).toBe('failed');
    expect(redirected.body.attempts[0]!.error).toContain('redirects are not followed');
    receiver.respond = () => undefined; // never answers
    const started = Date.now();
    const silent = await call<Delivery>('POST', `/v1/webhooks/${hook.id}/test`);
    expect(silent.body.attempts[0]).toMatchObject({ response_status: null, error: 'No answer within 1 s.' });
    expect(Date.now() - started).toBeLessThan(5000);
    const after = await call<Webhook>('GET', `/v1/webhooks/${hook.id}`);
    expect(after.body).toMatchObject({ status: 'active', consecutive_failures: 0 });
  });

  it('keeps a delivery log and redelivers an event with the same id', async () => {
    const { body: hook } = await create({ url: `${receiver.origin}/log`, secret: SECRET });
    const first = await call<Delivery>('POST', `/v1/webhooks/${hook.id}/test`);
    const again = await call<Delivery>('POST', `/v1/webhooks/${hook.id}/deliveries/${first.body.id}/redeliver`);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ event_id: first.body.event_id, redelivery_of: first.body.id, status: 'succeeded', payload: first.body.payload });
    expect(again.body.id).not.toBe(first.body.id);
    const sent = receiver.requests.filter((r) => r.headers['x-webhook-id'] === first.body.event_id);
    expect(sent).toHaveLength(2);
    expect(sent[0]!.body.equals(sent[1]!.body)).toBe(true);
    const log = await call<{ data: Delivery[]; has_more: boolean; next_cursor: string | null }>('GET', `/v1/webhooks/${hook.id}/deliveries`);
    expect(log.body.data.map((d) => d.id)).toEqual([again.body.id, first.body.id]);
    const page = await call<{ data: Delivery[]; next_cursor: string | null }>('GET', `/v1/webhooks/${hook.id}/deliveries?limit=1`);
    expect(page.body.data.map((d) => d.id)).toEqual([again.body.id]);
    const next = await call<{ data: Delivery[]; next_cursor: string | null }>(
      'GET',
      `/v1/webhooks/${hook.id}/deliveries?limit=1&cursor=${page.body.next_cursor}`,
    );
    expect(next.body.data.map((d) => d.id)).toEqual([first.body.id]);
    expect(next.body.next_cursor).toBeNull();
    const one = await call<Delivery>('GET', `/v1/webhooks/${hook.id}/deliveries/${first.body.id}`);
    expect(one.body).toEqual(first.body);
    expect((await call('GET', `/v1/webhooks/${hook.id}/deliveries/dlv_unknown`)).status).toBe(404);
    expect((await call('GET', `/v1/webhooks/${hook.id}/deliveries?cursor=zzz`)).status).toBe(422);
  });

  it('documents the same Node snippet in the README and in /llms-full.txt', async () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(nodeSnippet(readme)).toBe(nodeSnippet(WEBHOOK_SIGNATURE_GUIDE));
    const full = await (await fetch(`${suite.gw.url}/llms-full.txt`)).text();
    expect(full).toContain('## Webhook signatures');
    expect(full).toContain(nodeSnippet(WEBHOOK_SIGNATURE_GUIDE).trim());
  });
});

describe('the private-network guard on webhooks', () => {
  const strict = useTestGateway({ ALLOW_PRIVATE_NETWORK: 'false' });

  const createOn = (url: string) =>
    fetch(`${strict.gw.url}/v1/webhooks`, {
      method: 'POST',
      headers: bearer(strict.key, { 'content-type': 'application/json' }),
      body: JSON.stringify({ url }),
    });

  it('refuses literal private and metadata addresses at creation', async () => {
    for (const url of [`https://127.0.0.1:${receiver.port}/h`, `https://[::1]:${receiver.port}/h`, 'https://169.254.169.254/latest', 'https://10.0.0.1/h']) {
      const response = await createOn(url);
      expect(response.status, url).toBe(400);
      expect(((await response.json()) as ErrorBody).error).toMatchObject({ code: 'url_not_allowed', param: 'url' });
    }
  });

  it('refuses to deliver to a name that resolves to loopback', async () => {
    const created = (await (await createOn(`${receiver.origin}/private`)).json()) as Webhook;
    const before = receiver.requests.length;
    const response = await fetch(`${strict.gw.url}/v1/webhooks/${created.id}/test`, { method: 'POST', headers: bearer(strict.key) });
    const delivery = (await response.json()) as Delivery;
    expect(delivery.status).toBe('failed');
    expect(delivery.attempts[0]!.response_status).toBeNull();
    expect(delivery.attempts[0]!.error).toMatch(/private, loopback or link-local/);
    expect(receiver.requests.length).toBe(before);
  });
});
