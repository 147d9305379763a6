// Client commands, partial results and the job record of a session.
import { describe, expect, it } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { speech16k, silence, twoTurns } from './ws-audio.js';
import { twoTurnsWithPartials } from './ws-scenarios.js';
import { chunks, connect, connectReady, joinedText, paced, sleep, wsUrl } from './ws-client.js';

const suite = useTestGateway({ WS_PARTIAL_INTERVAL_MS: '200' }, { scopes: ['write'] });
/** A session with the default query, once ready. */
const readySession = () => connectReady(wsUrl(suite.gw.url), bearer(suite.key));
/** A ready session sent the first 2 s (64,000 bytes) of the speech fixture; the fixture with it. */
async function sessionAfterTwoSeconds() {
  const pcm = speech16k();
  const client = await readySession();
  client.send(pcm.subarray(0, 64_000));
  return { pcm, client };
}

describe('commands', () => {
  it('PING is answered with pong; unknown commands get an error and the session goes on', async () => {
    const client = await readySession();
    client.send('PING');
    expect((await client.waitFor('pong')).server_time).toMatch(/Z$/);
    client.send('ping ');
    await client.waitFor('pong', (m) => m !== client.ofType('pong')[0]);
    client.send('HELLO');
    const error = await client.waitFor('error');
    expect(error).toMatchObject({ close_code: null, error: { code: 'invalid_command', type: 'invalid_request_error' } });
    client.send('FORMAT:mp3');
    const formatError = await client.waitFor('error', (m) => m.error.code === 'invalid_field_value');
    expect(formatError.error.param).toBe('format');
    client.send('PING');
    await client.waitFor('pong', () => client.ofType('pong').length === 3);
    client.send('END');
    expect((await client.closed).code).toBe(1000);
  });

  it('TRANSCRIBE transcribes the buffer and keeps the connection; the next one starts where it ended', async () => {
    const { pcm, client } = await sessionAfterTwoSeconds();
    client.send('TRANSCRIBE');
    const first = await client.waitFor('transcription');
    expect(first).toMatchObject({ is_final: false, start_ms: 0, end_ms: 2000, turn_id: null });
    client.send(pcm.subarray(64_000, 128_000));
    client.send('TRANSCRIBE');
    const second = await client.waitFor('transcription', (m) => m.start_ms === 2000);
    expect(second.end_ms).toBe(4000);
    client.send('END');
    const final = await client.waitFor('transcription', (m) => m.is_final);
    expect(final.start_ms).toBe(4000);
    expect(final.text).toBe('');
    expect(final.full_text).toBe(joinedText([first, second]));
    const stats = await client.waitFor('session_stats');
    expect(stats).toMatchObject({ audio_ms: 4000, transcriptions: 3, dropped_audio_ms: 0 });
    expect(stats.latency_ms.count).toBe(3);
    expect((await client.closed).code).toBe(1000);
  });

  it('CLEAR discards the buffer without transcribing; stream time continues', async () => {
    const { pcm, client } = await sessionAfterTwoSeconds();
    client.send('CLEAR');
    client.send(pcm.subarray(64_000, 96_000));
    client.send('TRANSCRIBE');
    const t = await client.waitFor('transcription');
    expect(t).toMatchObject({ start_ms: 2000, end_ms: 3000 });
    client.send('CLEAR');
    client.send('END');
    const final = await client.waitFor('transcription', (m) => m.is_final);
    expect(final).toMatchObject({ start_ms: 3000, end_ms: 3000, text: '' });
    await client.closed;
  });

  it('END on an empty session still sends a final transcription and closes 1000', async () => {
    const client = await readySession();
    client.send('END');
    expect(await client.waitFor('transcription')).toMatchObject({ is_final: true, text: '', segments: [], full_text: '' });
    expect((await client.closed).code).toBe(1000);
  });

  it('messages after END are ignored', async () => {
    const client = await readySession();
    client.send('END');
    client.send('PING');
    await client.closed;
    expect(client.ofType('pong')).toHaveLength(0);
  });
});

describe('partial results (extension)', () => {
  it('partial messages revise only the open turn and stop once turn_detected commits it', async () => {
    const client = await twoTurnsWithPartials(suite.gw.url, suite.key);
    const partials = client.ofType('partial');
    expect(partials.length).toBeGreaterThanOrEqual(2);
    const order = client.messages.filter((m) => m.type === 'partial' || m.type === 'turn_detected');
    for (const [i, m] of order.entries()) {
      if (m.type !== 'partial') continue;
      // A partial of a turn never follows that turn's turn_detected.
      expect(order.slice(0, i).some((o) => o.type === 'turn_detected' && o.turn_id === m.turn_id)).toBe(false);
      expect(m.text).toBe([m.stable_text, m.unstable_text].filter(Boolean).join(' '));
      expect(m.end_ms).toBeGreaterThan(m.start_ms);
    }
    for (const turn of client.ofType('turn_detected')) {
      const own = partials.filter((p) => p.turn_id === turn.turn_id);
      for (const p of own) expect(p.start_ms).toBe(turn.start_ms);
    }
    client.send('END');
    await client.closed;
  }, 30_000);

  it('no partial messages unless asked for', async () => {
    const { pcm } = twoTurns();
    const client = await connectReady(wsUrl(suite.gw.url, { turn_detection: 'server_vad' }), bearer(suite.key));
    await paced(client, chunks(pcm, 6400), 100);
    await client.waitFor('turn_detected', (m) => m.turn_id === 2);
    expect(client.ofType('partial')).toHaveLength(0);
    client.send('END');
    await client.closed;
  }, 30_000);
});

describe('job record', () => {
  it('each session is a websocket job holding the final text and segments', async () => {
    const { pcm } = twoTurns();
    const client = connect(wsUrl(suite.gw.url, { turn_detection: 'server_vad' }), bearer(suite.key));
    const ready = await client.waitFor('ready');
    const during = await fetch(`${suite.gw.url}/v1/transcriptions/${ready.job_id}`, { headers: bearer(suite.key) });
    expect(during.status).toBe(200);
    expect(((await during.json()) as { status: string }).status).toBe('processing');
    client.send(pcm);
    await client.waitFor('turn_detected', (m) => m.turn_id === 2);
    client.send('END');
    const final = await client.waitFor('transcription', (m) => m.is_final);
    await client.closed;
    const turns = client.ofType('turn_detected');
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) {
      job = (await (await fetch(`${suite.gw.url}/v1/transcriptions/${ready.job_id}`, { headers: bearer(suite.key) })).json()) as Record<string, unknown>;
      if (job['status'] === 'completed') break;
      await sleep(100);
    }
    expect(job).toMatchObject({ id: ready.job_id, object: 'transcription', status: 'completed', language: 'am', text: final.full_text });
    expect(job['segments']).toEqual(turns.flatMap((t) => t.segments));
    expect(job['duration_seconds']).toBeCloseTo(pcm.length / 32_000, 1);
    const list = (await (await fetch(`${suite.gw.url}/v1/transcriptions?source=websocket`, { headers: bearer(suite.key) })).json()) as {
      data: { id: string }[];
    };
    expect(list.data.map((j) => j.id)).toContain(ready.job_id);
    const files = (await (await fetch(`${suite.gw.url}/v1/transcriptions?source=batch`, { headers: bearer(suite.key) })).json()) as { data: { id: string }[] };
    expect(files.data.map((j) => j.id)).not.toContain(ready.job_id);
  }, 30_000);

  it('a client that leaves without END still gets its untranscribed audio into the record', async () => {
    const client = connect(wsUrl(suite.gw.url), bearer(suite.key));
    const ready = await client.waitFor('ready');
    client.send(Buffer.concat([speech16k().subarray(0, 64_000), silence(100)]));
    await client.waitFor('chunk_received');
    client.close();
    await client.closed;
    let job: Record<string, unknown> = {};
    for (let i = 0; i < 50; i++) {
      job = (await (await fetch(`${suite.gw.url}/v1/transcriptions/${ready.job_id}`, { headers: bearer(suite.key) })).json()) as Record<string, unknown>;
      if (job['status'] === 'completed') break;
      await sleep(100);
    }
    expect(job['status']).toBe('completed');
    expect((job['segments'] as unknown[]).length).toBe(1);
    expect(job['duration_seconds']).toBeCloseTo(2.1, 2);
  }, 30_000);
});
