// The spec's WebSocket limits and their close codes, on gateways with small limits so each
// breach happens within a second or two.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { speech16k } from './ws-audio.js';
import { chunks, sleep, wsUrl, type StreamClient, connectReady } from './ws-client.js';

const suite = useTestGateway(
  {
    WS_MAX_MESSAGES_PER_SECOND: '20',
    WS_MAX_BYTES_PER_SECOND: '200KB',
    WS_MAX_MESSAGE_BYTES: '32KB',
    WS_MAX_BUFFER_BYTES: '64KB',
  },
  { scopes: ['write'] },
);

async function closedWith(client: StreamClient, code: number, errorCode: string) {
  const closed = await client.closed;
  expect(closed.code).toBe(code);
  const error = client.ofType('error').find((e) => e.close_code !== null);
  expect(error?.error.code).toBe(errorCode);
  expect(error?.close_code).toBe(code);
  expect(closed.reason.startsWith(errorCode)).toBe(true);
}

async function jobOf(client: StreamClient): Promise<Record<string, unknown>> {
  const id = client.ofType('ready')[0]!.job_id;
  let job: Record<string, unknown> = {};
  for (let i = 0; i < 50; i++) {
    job = (await (await fetch(`${suite.gw.url}/v1/transcriptions/${id}`, { headers: bearer(suite.key) })).json()) as Record<string, unknown>;
    if (job['status'] !== 'processing') break;
    await sleep(100);
  }
  return job;
}

describe('per-connection limits', () => {
  it('more messages per second than allowed: 4029 message_rate_exceeded', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    for (let i = 0; i < 25; i++) client.send('PING');
    await closedWith(client, 4029, 'message_rate_exceeded');
    expect(client.ofType('pong')).toHaveLength(20);
    const job = await jobOf(client);
    expect(job['status']).toBe('failed');
    expect(job['error']).toMatchObject({ code: 'message_rate_exceeded' });
  });

  it('messages at the allowed rate are fine', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    for (let second = 0; second < 3; second++) {
      for (let i = 0; i < 15; i++) client.send('PING');
      await sleep(1050);
    }
    client.send('END');
    expect((await client.closed).code).toBe(1000);
    expect(client.ofType('pong')).toHaveLength(45);
  });

  it('more audio bytes per second than allowed: 4029 audio_rate_exceeded', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    // CLEAR after each chunk keeps the buffer small: only the byte rate is exceeded.
    for (const part of chunks(speech16k().subarray(0, 240_000), 30_000)) {
      client.send(part);
      client.send('CLEAR');
    }
    await closedWith(client, 4029, 'audio_rate_exceeded');
  });

  it('a message over the size limit: 1009 message_too_large', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    client.send(Buffer.alloc(40_000));
    await closedWith(client, 1009, 'message_too_large');
  });

  it('a message near twice the size limit (up to the buffer limit): 1009 message_too_large too', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    client.send(Buffer.alloc(63_000));
    await closedWith(client, 1009, 'message_too_large');
  });

  it('more buffered audio than the buffer limit: 1009 buffer_limit_exceeded', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    // 64 KB is 2 s of 16 kHz audio; manual mode keeps everything until TRANSCRIBE.
    for (const part of chunks(speech16k().subarray(0, 96_000), 16_000)) client.send(part);
    await closedWith(client, 1009, 'buffer_limit_exceeded');
  });

  it('TRANSCRIBE frees the buffer: a long session under the buffer limit goes on', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    const pcm = speech16k();
    for (let i = 0; i < 3; i++) {
      client.send(pcm.subarray(0, 32_000));
      client.send(pcm.subarray(32_000, 64_000));
      client.send('TRANSCRIBE');
      await client.waitFor('transcription', () => client.ofType('transcription').length === i + 1);
      await sleep(600);
    }
    client.send('END');
    expect((await client.closed).code).toBe(1000);
  });
});

describe('timeouts', () => {
  let short: TestGateway;
  let shortKey: string;
  beforeAll(async () => {
    short = await startTestGateway({ WS_IDLE_TIMEOUT_SECONDS: '1', WS_MAX_SESSION_SECONDS: '3' });
    shortKey = await short.key({ scopes: ['write'] });
  }, 60_000);
  afterAll(async () => short?.close());

  it('an idle session gets its final transcription and closes with 1000 (idle_timeout)', async () => {
    const client = await connectReady(wsUrl(short.url), bearer(shortKey));
    client.send(speech16k().subarray(0, 32_000));
    const started = Date.now();
    const final = await client.waitFor('transcription', (m) => m.is_final, 10_000);
    expect(final.end_ms).toBe(1000);
    const closed = await client.closed;
    expect(closed).toMatchObject({ code: 1000, reason: 'idle_timeout' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a session reaching its maximum duration is finished and closed with 1000', async () => {
    const client = await connectReady(wsUrl(short.url), bearer(shortKey));
    const started = Date.now();
    // Active client (PING every 300 ms), so only the duration limit applies.
    const timer = setInterval(() => client.send('PING'), 300);
    const closed = await client.closed;
    clearInterval(timer);
    expect(closed).toMatchObject({ code: 1000, reason: 'session_duration_exceeded' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(client.ofType('transcription').filter((m) => m.is_final)).toHaveLength(1);
  });
});
