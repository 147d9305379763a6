import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until as pollUntil } from '../helpers/polling.js';
import { createKeyWithCli, REPO_ROOT, startServerProcess, stopProcess, type ServerProcess } from '../helpers/spawn-dist.js';
import { serveFixture, startTestServer, type TestServer } from '../helpers/tls-servers.js';

type Delivery = {
  id: string;
  event_id: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: { response_status: number | null }[];
};

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-webhook-restart-'));
const env = {
  DATA_DIR: dataDir,
  MODELS_DIR: join(REPO_ROOT, 'test', 'fixtures', 'models'),
  INFERENCE_WORKERS: '1',
  ALLOW_PRIVATE_NETWORK: 'true',
  WEBHOOK_RETRY_SCHEDULE: '4',
  SHUTDOWN_GRACE_MS: '2000',
};

let receiver: TestServer;
let host: TestServer;
let key: string;
const running: ChildProcess[] = [];

beforeAll(async () => {
  receiver = await startTestServer({ tls: true });
  host = await startTestServer({ tls: true, respond: (_req, res) => serveFixture(res, 'hello-am.mp3', undefined, 'audio/mpeg') });
  key = await createKeyWithCli('restart', { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
});
afterAll(async () => {
  for (const child of running) if (child.exitCode === null) child.kill('SIGKILL');
  await receiver?.close();
  await host?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<ServerProcess> {
  const server = await startServerProcess(env);
  running.push(server.child);
  return server;
}

const headers = () => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

async function deliveries(url: string, webhookId: string): Promise<Delivery[]> {
  const response = await fetch(`${url}/v1/webhooks/${webhookId}/deliveries`, { headers: headers() });
  return ((await response.json()) as { data: Delivery[] }).data;
}

/** Polls every 50 ms: the deliveries are read over HTTP from a server process. */
const until = <T>(what: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> => pollUntil(what, timeoutMs, 50);

describe('webhook retries across a restart', () => {
  it('keeps a pending retry through a hard kill and sends it from the next process', async () => {
    receiver.respond = (_req, res) => res.writeHead(500).end('down for now');
    const first = await start();
    const webhook = (await (
      await fetch(`${first.url}/v1/webhooks`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ url: `${receiver.origin}/restart`, events: ['job.completed'], secret: 'whsec_restart_0123456789abcdef' }),
      })
    ).json()) as { id: string };
    const job = (await (
      await fetch(`${first.url}/v1/transcriptions`, {
        method: 'POST',
        headers: headers(),
        body: JSON.stringify({ audio_url: `${host.origin}/a.mp3`, language: 'am' }),
      })
    ).json()) as { id: string };
    const attempt1 = await receiver.waitFor(1, 30_000);
    const pending = await until(async () => (await deliveries(first.url, webhook.id)).find((d) => d.status === 'pending' && d.attempt_count === 1));
    expect(pending.next_attempt_at).not.toBeNull();

    // A crash, not a graceful stop: nothing but the database carries the retry over.
    await stopProcess(first.child, 'SIGKILL');
    receiver.respond = (_req, res) => res.writeHead(200).end('thanks');

    const second = await start();
    const attempt2 = await receiver.waitFor(2, 30_000);
    expect(attempt2.at - attempt1.at).toBeGreaterThanOrEqual(3900);
    expect(attempt2.headers['x-webhook-id']).toBe(attempt1.headers['x-webhook-id']);
    expect(attempt2.headers['x-webhook-attempt']).toBe('2');
    expect(attempt2.body.equals(attempt1.body)).toBe(true);
    expect(JSON.parse(attempt2.body.toString())).toMatchObject({ event: 'job.completed', data: { id: job.id } });
    const done = await until(async () => (await deliveries(second.url, webhook.id)).find((d) => d.id === pending.id && d.status === 'succeeded'));
    expect(done.attempts.map((a) => a.response_status)).toEqual([500, 200]);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.requests).toHaveLength(2);

    expect(await stopProcess(second.child, 'SIGTERM')).toBe(0);
  }, 90_000);
});
