import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../src/webhooks/webhook-signature.js';
import { callJson, useTestGateway } from '../helpers/suite-gateway.js';
import { until } from '../helpers/polling.js';
import { serveFixture, startTestServer, type RecordedRequest, type TestServer } from '../helpers/tls-servers.js';

type Delivery = {
  id: string;
  event_id: string;
  event: string;
  status: string;
  attempt_count: number;
  max_attempts: number;
  next_attempt_at: string | null;
  attempts: { number: number; at: string; response_status: number | null; error: string | null }[];
  payload: EventBody;
};
type EventBody = { id: string; event: string; webhook_id: string; timestamp: string; data: Record<string, unknown> };
type Webhook = { id: string; status: string; consecutive_failures: number; disabled_at: string | null };

const SECRET = 'whsec_job_events_0123456789abcdef';

let receiver: TestServer;
let host: TestServer;

beforeAll(async () => {
  receiver = await startTestServer({ tls: true });
  host = await startTestServer({ tls: true });
  host.respond = (req, res) => {
    const name = /^\/([\w.-]+)$/.exec(req.url.split('?')[0]!)?.[1];
    if (name?.startsWith('hello-am')) serveFixture(res, name, undefined, 'application/octet-stream');
    else res.writeHead(404).end();
  };
});
afterAll(async () => {
  await receiver?.close();
  await host?.close();
});
// Registered after the servers' hooks: started after them and closed before them.
// Retries 1 s and then 2 s after a failure; the fourth consecutive failed attempt disables a webhook.
const suite = useTestGateway({ RATE_LIMIT_PER_MINUTE: '10000', WEBHOOK_RETRY_SCHEDULE: '1,2', WEBHOOK_DISABLE_AFTER_FAILURES: '4' });
beforeEach(() => {
  receiver.respond = (_req, res) => res.writeHead(204).end();
});

const call = <T>(method: string, path: string, body?: unknown, apiKey = suite.key) => callJson<T>(suite.gw.url, method, path, body, apiKey);

/** A webhook on its own receiver path, in its own account, so tests do not see each other's events. */
async function hook(events: string[], path: string): Promise<{ id: string; apiKey: string }> {
  const apiKey = await suite.gw.key({ account: `acct-${path}` });
  const created = await call<{ id: string }>('POST', '/v1/webhooks', { url: `${receiver.origin}/${path}`, events, secret: SECRET }, apiKey);
  expect(created.status).toBe(201);
  return { id: created.body.id, apiKey };
}

const at = (path: string): RecordedRequest[] => receiver.requests.filter((r) => r.url === `/${path}`);
const bodyOf = (r: RecordedRequest): EventBody => JSON.parse(r.body.toString()) as EventBody;

const submitJob = (apiKey: string, audioUrl: string) => call<{ id: string }>('POST', '/v1/transcriptions', { audio_url: audioUrl, language: 'am' }, apiKey);

describe('job events', () => {
  it('delivers job.completed for a single job, signed, without a transcript', async () => {
    const { apiKey } = await hook(['job.completed', 'job.failed'], 'completed');
    const job = await submitJob(apiKey, `${host.origin}/hello-am.mp3`);
    expect(job.status).toBe(202);
    const request = await until(() => at('completed')[0]);
    const event = bodyOf(request);
    expect(event).toMatchObject({
      event: 'job.completed',
      data: { id: job.body.id, object: 'transcription', status: 'completed', url: `/v1/transcriptions/${job.body.id}` },
    });
    expect(event.id).toMatch(/^evt_/);
    expect(event.data).not.toHaveProperty('text');
    expect(request.headers['x-webhook-id']).toBe(event.id);
    expect(request.headers['x-webhook-event']).toBe('job.completed');
    expect(verifySignature(String(request.headers['x-webhook-signature']), request.body, SECRET)).toBe(true);
    await new Promise((r) => setTimeout(r, 300));
    expect(at('completed')).toHaveLength(1);
  });

  it('delivers job.failed with the error, and only the subscribed events', async () => {
    const { apiKey } = await hook(['job.failed'], 'failed-only');
    const good = await submitJob(apiKey, `${host.origin}/hello-am.wav`);
    const bad = await submitJob(apiKey, `${host.origin}/missing.mp3`);
    const request = await until(() => at('failed-only')[0]);
    expect(bodyOf(request)).toMatchObject({
      event: 'job.failed',
      data: { id: bad.body.id, status: 'failed', error: { type: 'invalid_request_error', code: 'audio_download_failed' } },
    });
    await until(async () =>
      (await call<{ status: string }>('GET', `/v1/transcriptions/${good.body.id}`, undefined, apiKey)).body.status === 'completed' ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(at('failed-only').map((r) => bodyOf(r).event)).toEqual(['job.failed']);
  });

  it('raises job.progress and job.completed for a batch parent, none for its children', async () => {
    const { apiKey } = await hook(['*'], 'batch');
    const created = await call<{ id: string }>(
      'POST',
      '/v1/transcriptions/batch',
      { audio_urls: [`${host.origin}/hello-am.mp3`, `${host.origin}/missing.wav`] },
      apiKey,
    );
    expect(created.status).toBe(202);
    const completed = await until(() => at('batch').find((r) => bodyOf(r).event === 'job.completed'));
    expect(bodyOf(completed).data).toMatchObject({ id: created.body.id, status: 'completed', batch: { total_count: 2, completed_count: 1, failed_count: 1 } });
    const events = at('batch').map(bodyOf);
    expect(events.every((e) => e.data['id'] === created.body.id)).toBe(true);
    const progress = events.filter((e) => e.event === 'job.progress');
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0]!.data).toMatchObject({ status: 'processing', progress: { total_segments: 2 } });
  });
});

describe('retries', () => {
  it('retries on the configured schedule with the same event and body, then succeeds', async () => {
    const { id, apiKey } = await hook(['job.completed'], 'flaky');
    let calls = 0;
    receiver.respond = (req, res) => {
      if (req.url === '/flaky' && ++calls <= 2) res.writeHead(503).end('try later');
      else res.writeHead(200).end();
    };
    await submitJob(apiKey, `${host.origin}/hello-am.mp3`);
    const third = await until(() => at('flaky')[2]);
    const [first, second] = at('flaky') as [RecordedRequest, RecordedRequest];
    expect(second.at - first.at).toBeGreaterThanOrEqual(950);
    expect(second.at - first.at).toBeLessThan(2500);
    expect(third.at - second.at).toBeGreaterThanOrEqual(1950);
    expect(third.at - second.at).toBeLessThan(3500);
    expect(new Set([first, second, third].map((r) => r.headers['x-webhook-id'])).size).toBe(1);
    expect(first.body.equals(second.body) && second.body.equals(third.body)).toBe(true);
    expect([first, second, third].map((r) => r.headers['x-webhook-attempt'])).toEqual(['1', '2', '3']);
    for (const r of [first, second, third]) expect(verifySignature(String(r.headers['x-webhook-signature']), r.body, SECRET)).toBe(true);
    const delivery = await until(async () => {
      const log = await call<{ data: Delivery[] }>('GET', `/v1/webhooks/${id}/deliveries`, undefined, apiKey);
      const d = log.body.data[0];
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(delivery).toMatchObject({ attempt_count: 3, max_attempts: 3, next_attempt_at: null });
    expect(delivery.attempts.map((a) => a.response_status)).toEqual([503, 503, 200]);
    const webhook = await call<Webhook>('GET', `/v1/webhooks/${id}`, undefined, apiKey);
    expect(webhook.body).toMatchObject({ status: 'active', consecutive_failures: 0 });
  });

  it('gives up after the last retry, then disables the webhook after the configured consecutive failures', async () => {
    const { id, apiKey } = await hook(['job.completed', 'job.failed'], 'down');
    receiver.respond = (req, res) => res.writeHead(req.url === '/down' ? 500 : 204).end();
    await submitJob(apiKey, `${host.origin}/hello-am.mp3`);
    await until(() => at('down')[2]);
    const exhausted = await until(async () => {
      const log = await call<{ data: Delivery[] }>('GET', `/v1/webhooks/${id}/deliveries`, undefined, apiKey);
      return log.body.data[0]?.status === 'failed' ? log.body.data[0] : undefined;
    });
    expect(exhausted).toMatchObject({ attempt_count: 3, next_attempt_at: null });
    await new Promise((r) => setTimeout(r, 500));
    expect(at('down')).toHaveLength(3);
    expect((await call<Webhook>('GET', `/v1/webhooks/${id}`, undefined, apiKey)).body).toMatchObject({ status: 'active', consecutive_failures: 3 });

    // The fourth consecutive failure disables it; its pending retry fails with it.
    await submitJob(apiKey, `${host.origin}/missing.mp3`);
    const disabled = await until(async () => {
      const w = await call<Webhook>('GET', `/v1/webhooks/${id}`, undefined, apiKey);
      return w.body.status === 'failed' ? w.body : undefined;
    });
    expect(disabled.consecutive_failures).toBe(4);
    expect(disabled.disabled_at).not.toBeNull();
    const log = await call<{ data: Delivery[] }>('GET', `/v1/webhooks/${id}/deliveries`, undefined, apiKey);
    expect(log.body.data[0]).toMatchObject({ event: 'job.failed', status: 'failed', attempt_count: 1 });
    // Its retry (due 1 s after the failure) is not sent.
    await new Promise((r) => setTimeout(r, 1300));
    expect(at('down')).toHaveLength(4);
    // Disabled: new events are not delivered. Re-enabled: they are again, and the count starts afresh.
    const quiet = await submitJob(apiKey, `${host.origin}/hello-am.mp3`);
    await until(async () =>
      (await call<{ status: string }>('GET', `/v1/transcriptions/${quiet.body.id}`, undefined, apiKey)).body.status === 'completed' ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(at('down')).toHaveLength(4);
    receiver.respond = (_req, res) => res.writeHead(200).end();
    const enabled = await call<Webhook>('PATCH', `/v1/webhooks/${id}`, { status: 'active' }, apiKey);
    expect(enabled.body).toMatchObject({ status: 'active', consecutive_failures: 0, disabled_at: null });
    await submitJob(apiKey, `${host.origin}/hello-am.mp3`);
    await until(() => at('down')[4]);
  });

  it('holds pending retries while paused and sends them once active again', async () => {
    const { id, apiKey } = await hook(['job.completed'], 'paused');
    receiver.respond = (req, res) => res.writeHead(req.url === '/paused' ? 500 : 204).end();
    await submitJob(apiKey, `${host.origin}/hello-am.mp3`);
    await until(() => at('paused')[0]);
    await call('PATCH', `/v1/webhooks/${id}`, { status: 'paused' }, apiKey);
    receiver.respond = (_req, res) => res.writeHead(200).end();
    await new Promise((r) => setTimeout(r, 2000));
    expect(at('paused')).toHaveLength(1);
    await call('PATCH', `/v1/webhooks/${id}`, { status: 'active' }, apiKey);
    const retry = await until(() => at('paused')[1]);
    expect(retry.headers['x-webhook-attempt']).toBe('2');
  });
});
