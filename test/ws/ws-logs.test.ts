// Log lines of WebSocket sessions (issue 15): a child logger per session with its ids, one
// open and one close line, refusals with their reason; never audio, keys or tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logging/logger.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { untilTrue } from '../helpers/polling.js';
import { twoTurns } from './ws-audio.js';
import { chunks, connect, paced, wsUrl, connectReady } from './ws-client.js';

type Line = Record<string, unknown> & { msg: string };

const raw: string[] = [];
let gw: TestGateway;
let key: string;
let keyId: string;

beforeAll(async () => {
  const logger = createLogger('info', { write: (line: string) => void raw.push(line) });
  gw = await startTestGateway({ WS_MAX_CONNECTIONS_PER_KEY: '1' }, { logger });
  const created = await gw.gateway.keys.create({ account: 'test-account', scopes: ['write'] });
  key = created.key;
  keyId = created.record.id;
}, 60_000);
afterAll(async () => gw?.close());

const lines = (): Line[] => raw.map((text) => JSON.parse(text) as Line);
const withMsg = (msg: string): Line[] => lines().filter((line) => line.msg === msg);

const until = (check: () => boolean, ms = 10_000): Promise<void> => untilTrue(check, ms, 20, 'timed out waiting for log lines');

describe('WebSocket session logs', () => {
  it('a session logs one open and one close line on its own child logger', async () => {
    const client = connect(wsUrl(gw.url, { turn_detection: 'server_vad', language: 'am', format: 'pcm_s16le' }), bearer(key));
    const ready = await client.waitFor('ready');
    const { pcm } = twoTurns();
    await paced(client, chunks(pcm, 16_000), 5);
    await client.waitFor('turn_detected', () => client.ofType('turn_detected').length >= 2);
    client.send('END');
    expect((await client.closed).code).toBe(1000);
    await until(() => withMsg('WebSocket session closed').some((line) => line.sessionId === ready.session_id));

    const mine = lines().filter((line) => line.sessionId === ready.session_id);
    const opened = mine.filter((line) => line.msg === 'WebSocket session opened');
    const closed = mine.filter((line) => line.msg === 'WebSocket session closed');
    expect(opened).toHaveLength(1);
    expect(closed).toHaveLength(1);
    for (const line of [opened[0]!, closed[0]!]) {
      expect(line).toMatchObject({ sessionId: ready.session_id, jobId: ready.job_id, format: 'pcm_s16le', language: 'am' });
      expect(line.keyId).toBe(keyId);
    }
    expect(opened[0]).toMatchObject({ vadType: 'energy', turnDetection: 'server_vad' });
    const stats = client.ofType('session_stats')[0]!;
    expect(closed[0]).toMatchObject({ code: 1000, reason: 'end', status: 'completed', turns: stats.turns });
    expect(closed[0]!.turns).toBeGreaterThanOrEqual(2);
    expect(closed[0]!.audioSeconds).toBeCloseTo(pcm.length / 32_000, 2);
    expect(closed[0]!.durationMs).toBeGreaterThan(0);
  });

  it('refusals are logged with their reason: authentication, bad parameters, limits', async () => {
    const before = raw.length;
    const refusedBy = async (url: string, headers: Record<string, string>): Promise<void> => {
      await connect(url, headers).closed;
    };
    await refusedBy(wsUrl(gw.url), {});
    await refusedBy(wsUrl(gw.url), bearer('sk_not_a_real_key'));
    await refusedBy(wsUrl(gw.url, { format: 'mp3' }), bearer(key));
    const holder = await connectReady(wsUrl(gw.url), bearer(key));
    await refusedBy(wsUrl(gw.url), bearer(key));
    holder.send('END');
    await holder.closed;

    const refusals = raw
      .slice(before)
      .map((text) => JSON.parse(text) as Line)
      .filter((line) => line.msg === 'WebSocket session refused');
    expect(refusals.map((line) => [line.code, line.closeCode])).toEqual([
      ['missing_api_key', 4001],
      ['invalid_api_key', 4003],
      ['invalid_field_value', 1008],
      ['connection_limit_exceeded', 4029],
    ]);
    expect(refusals[0]!.keyId).toBeNull();
    expect(refusals[2]!.keyId).toBe(keyId);
    expect(refusals[2]!.param).toBe('format');
    for (const line of refusals) expect(typeof line.reason).toBe('string');
  });

  it('no line carries an API key, a session token or audio', async () => {
    const token = ((await (await fetch(`${gw.url}/v1/ws/tokens`, { method: 'POST', headers: bearer(key) })).json()) as { token: string }).token;
    const client = await connectReady(wsUrl(gw.url, { token }));
    client.send('END');
    await client.closed;
    const text = raw.join('');
    expect(text).not.toContain(key);
    expect(text).not.toContain(token);
    expect(text).not.toContain('sk_not_a_real_key');
    // Audio would show as long runs of numbers or base64; every line stays small.
    for (const line of raw) expect(line.length).toBeLessThan(2_000);
  });
});
