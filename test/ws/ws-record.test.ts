// Record and replay (issue 18 item 4): record=true needs the key's `record` scope; a recorded
// session's client messages are stored in order with their times and the query (without the
// token), served through GET /v1/transcriptions/{id}/recording, and bench/replay.ts sends them
// again (4x faster, two copies at once) to the same server with the same turn texts.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replay } from '../../bench/replay.js';
import { parseRecording } from '../../src/streaming/session-recording.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { twoTurns } from './ws-audio.js';
import { chunks, connect, paced, wsUrl } from './ws-client.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));

let gw: TestGateway;
let plainKey: string;
let recordKey: string;

beforeAll(async () => {
  gw = await startTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am' });
  plainKey = await gw.key({ scopes: ['write', 'read'] });
  recordKey = await gw.key({ scopes: ['write', 'read', 'record'] });
}, 120_000);
afterAll(async () => gw?.close());

/** Polls GET /v1/transcriptions/{id} until the session's job is no longer processing. */
async function finished(jobId: string, key: string): Promise<Record<string, unknown>> {
  for (let i = 0; i < 200; i++) {
    const job = (await (await fetch(`${gw.url}/v1/transcriptions/${jobId}`, { headers: bearer(key) })).json()) as Record<string, unknown>;
    if (job['status'] !== 'processing') return job;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`job ${jobId} still processing`);
}

describe('record=true', () => {
  it('is refused (insufficient_scope, 4003) for a key without the record scope, before any session starts', async () => {
    const client = connect(wsUrl(gw.url, { record: 'true' }), bearer(plainKey));
    const error = await client.waitFor('error');
    expect(error.error.code).toBe('insufficient_scope');
    expect((await client.closed).code).toBe(4003);
    expect(client.ofType('ready')).toHaveLength(0);
  });

  it('refuses a value that is not a boolean', async () => {
    const client = connect(wsUrl(gw.url, { record: 'maybe' }), bearer(recordKey));
    expect((await client.waitFor('error')).error.code).toBe('invalid_field_value');
    expect((await client.closed).code).toBe(1008);
  });

  it('stores the exact message timeline; the recording downloads and replays at 4x with the same turns', async () => {
    const query = { turn_detection: 'server_vad', language: 'am', record: 'true' };
    const client = connect(wsUrl(gw.url, query), bearer(recordKey));
    const ready = await client.waitFor('ready');
    const sentParts = chunks(twoTurns().pcm, 3200);
    client.send('PING');
    await paced(client, sentParts, 50);
    client.send('END');
    await client.waitFor('transcription', (m) => m.is_final, 60_000);
    expect((await client.closed).code).toBe(1000);
    const committed = [
      ...client.ofType('turn_detected').map((m) => m.text),
      ...client
        .ofType('transcription')
        .filter((m) => m.is_final && m.text !== '')
        .map((m) => m.text),
    ];
    expect(committed.length).toBeGreaterThanOrEqual(2);

    const job = await finished(ready.job_id, recordKey);
    expect(job['status']).toBe('completed');

    // Another account's key cannot fetch it; the owner is redirected to a signed URL.
    const stranger = await gw.key({ account: 'other-account', scopes: ['read'] });
    expect((await fetch(`${gw.url}/v1/transcriptions/${ready.job_id}/recording`, { headers: bearer(stranger), redirect: 'manual' })).status).toBe(404);
    const redirect = await fetch(`${gw.url}/v1/transcriptions/${ready.job_id}/recording`, { headers: bearer(recordKey), redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location')!;
    const file = await fetch(new URL(location, gw.url));
    expect(file.status).toBe(200);
    const recording = parseRecording(await file.text());

    expect(recording.header.job_id).toBe(ready.job_id);
    expect(recording.header.query).toEqual(query);
    const expected = [{ text: 'PING' }, ...sentParts.map((part) => ({ audio: part.toString('base64') })), { text: 'END' }];
    expect(recording.messages.map(({ t: _t, ...m }) => m)).toEqual(expected);
    const times = recording.messages.map((m) => m.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // Paced 50 ms apart: the timeline spans about that (arrival times, not send times).
    expect(times.at(-1)! - times[0]!).toBeGreaterThan(sentParts.length * 50 * 0.8);
    expect(recording.end).toMatchObject({ messages: expected.length, truncated: false });

    const report = await replay({ url: gw.url, key: recordKey, recording, copies: 2, speed: 4 });
    expect(report.copies.flatMap((c) => c.errors)).toEqual([]);
    for (const copy of report.copies) {
      expect(copy.closeCode).toBe(1000);
      expect(copy.sent).toBe(expected.length);
      expect(copy.turns).toEqual(committed);
      expect(copy.turnLatencyMs.p50).not.toBeNull();
    }
    // Replayed sessions are sessions of their own (recorded again, being record=true).
    expect(new Set(report.copies.map((c) => c.jobId)).size).toBe(2);
    expect(report.copies.map((c) => c.jobId)).not.toContain(ready.job_id);
  }, 180_000);

  it('has no recording for a session without record=true', async () => {
    const client = connect(wsUrl(gw.url, { turn_detection: 'server_vad' }), bearer(recordKey));
    const ready = await client.waitFor('ready');
    client.send('END');
    await client.closed;
    await finished(ready.job_id, recordKey);
    const response = await fetch(`${gw.url}/v1/transcriptions/${ready.job_id}/recording`, { headers: bearer(recordKey), redirect: 'manual' });
    expect(response.status).toBe(404);
  });
});
