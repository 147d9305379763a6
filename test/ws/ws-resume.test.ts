// Resumable sessions (docs/streaming.md "Resuming a session"): the TCP connection is cut in the
// middle of a turn (the client's socket destroyed: no close frame, the server sees 1006), the
// client reconnects with the resume token and the last byte offset the server acknowledged,
// resends from there, and the session goes on as if nothing happened: one job record,
// continuous timestamps, no turn twice, the transcript of an uninterrupted run. Real gateways on
// port 0, real `ws` clients, the shipped Amharic model on two committed ALFFA held-out utterances.
import type { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editDistance, scoringForm } from '../../src/engines/scoring/character-error-rate.js';
import { fixturePath } from '../helpers/fixtures.js';
import { callJson, useTestGateway } from '../helpers/suite-gateway.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { nativeFixture, oddSplits, silence, speech16k } from './ws-audio.js';
import { chunks, connect, connectReady, sleep, wavPcm, wsUrl, type Message, type StreamClient } from './ws-client.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const CHUNK = 8_000;
const QUERY = { turn_detection: 'server_vad', language: 'am' };

/** Two ALFFA utterances with pauses: turn 1, then turn 2 (where the connection is cut). */
function twoUtterances(): { pcm: Buffer; cutAt: number } {
  const first = wavPcm(fixturePath('heldout/alffa_spk_heldout-tr_10779_tr02102.wav')).pcm;
  const second = wavPcm(fixturePath('heldout/alffa_spk_heldout-tr_10780_tr02103.wav')).pcm;
  const pcm = Buffer.concat([first, silence(1_500), second, silence(1_000)]);
  // One second into the second utterance, on a chunk boundary.
  const cutAt = Math.floor((first.length + silence(1_500).length + 32_000) / CHUNK) * CHUNK;
  return { pcm, cutAt };
}

/** Cuts the TCP connection under the client: no close frame, the server sees an abnormal close. */
function cut(client: StreamClient): void {
  (client.socket as unknown as { _socket: Socket })._socket.destroy();
}

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

/** A session's job record once `completed`, or as it stands after about 10 s of polling. */
async function completedJob(gw: TestGateway, key: string, jobId: string) {
  const fetchJob = async () =>
    (
      await callJson<{ status: string; duration_seconds: number | null; metadata: Record<string, unknown> }>(
        gw.url,
        'GET',
        `/v1/transcriptions/${jobId}`,
        undefined,
        key,
      )
    ).body;
  let job = await fetchJob();
  for (let i = 0; i < 200 && job.status !== 'completed'; i++) {
    await sleep(50);
    job = await fetchJob();
  }
  return job;
}

function sendAll(client: StreamClient, bytes: Buffer): void {
  for (const part of chunks(bytes, CHUNK)) client.send(part);
}

const seqOf = (m: Message): number => (m as { seq?: number }).seq ?? 0;
const cer = (hypothesis: string, reference: string): number => {
  const [h, r] = [scoringForm(hypothesis, 'am'), scoringForm(reference, 'am')];
  return editDistance(h, r) / Math.max(1, r.length);
};

describe('resuming a session cut mid-turn (shipped model)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am' });
  }, 120_000);
  afterAll(async () => gw?.close());

  it('one job, continuous timestamps, no turn twice, the transcript of an uninterrupted run', async () => {
    const { pcm, cutAt } = twoUtterances();
    const totalMs = pcm.length / 32;

    // The same audio, uninterrupted.
    const referenceKey = await gw.key({ scopes: ['write', 'read'], account: 'resume-reference' });
    const plain = await connectReady(wsUrl(gw.url, QUERY), bearer(referenceKey));
    sendAll(plain, pcm);
    plain.send('END');
    const reference = await plain.waitFor('transcription', (m) => m.is_final, 60_000);
    const referenceTurns = plain.ofType('turn_detected');
    expect(referenceTurns.length).toBeGreaterThanOrEqual(2);

    const key = await gw.key({ scopes: ['write', 'read'], account: 'resume-account' });
    const first = await connectReady(wsUrl(gw.url, QUERY), bearer(key));
    const ready = first.ofType('ready')[0]!;
    expect(ready.resume_token).toMatch(/^wsr_/);
    expect(ready.resume_window_seconds).toBe(60);
    // Up to one second into the second utterance; the server acknowledges all of it.
    sendAll(first, pcm.subarray(0, cutAt));
    await first.waitFor('chunk_received', (m) => m.total_bytes === cutAt);
    await first.waitFor('turn_detected', (m) => m.turn_id === 1, 30_000);
    // The cut comes inside turn 2: it has started and is not finished.
    await first.waitFor('speech_started', (m) => m.turn_id === 2);
    expect(first.ofType('turn_detected').map((t) => t.turn_id)).toEqual([1]);
    const acknowledged = cutAt;
    // Half a second more goes out, and the connection is cut under it: the server holds some of it, or all, or none.
    sendAll(first, pcm.subarray(cutAt, cutAt + 16_000));
    cut(first);
    expect((await first.closed).code).toBe(1006);
    await until(() => gw.gateway.streaming!.parkedSessions === 1, 'the session to be parked');

    const seen = first.messages.filter((m) => seqOf(m) > 0);
    const lastSeq = Math.max(0, ...seen.map(seqOf));
    const second = connect(
      wsUrl(gw.url, { resume_token: ready.resume_token as string, resume_from_bytes: String(acknowledged), last_seq: String(lastSeq) }),
      bearer(key),
    );
    const resumed = await second.waitFor('resumed');
    expect(second.messages[0]!.type).toBe('resumed');
    expect(resumed).toMatchObject({ session_id: ready.session_id, job_id: ready.job_id });
    expect(resumed.resume_from_bytes).toBeGreaterThanOrEqual(acknowledged);
    expect(resumed.resume_from_bytes).toBeLessThanOrEqual(cutAt + 16_000);
    expect(resumed.discard_bytes).toBe(resumed.resume_from_bytes - acknowledged);
    // The session clock goes on from the audio it holds.
    expect(Math.abs(resumed.stream_ms - resumed.resume_from_bytes / 32)).toBeLessThanOrEqual(1);
    expect(resumed.detached_ms).toBeGreaterThan(0);
    expect(resumed.missed_messages).toBe(0);
    expect(gw.gateway.streaming!.parkedSessions).toBe(0);

    // Resend from the acknowledged offset: what the server already has is dropped.
    sendAll(second, pcm.subarray(acknowledged));
    second.send('END');
    const final = await second.waitFor('transcription', (m) => m.is_final, 60_000);
    const stats = await second.waitFor('session_stats');
    expect((await second.closed).code).toBe(1000);

    // Turns: each once, numbered on, in order, at the times of the uninterrupted run.
    const turns = [...first.ofType('turn_detected').filter((m) => seqOf(m) <= lastSeq), ...second.ofType('turn_detected')];
    const sequenced = [...seen, ...second.messages.filter((m) => seqOf(m) > 0)].map(seqOf);
    expect(sequenced).toEqual(sequenced.map((_, i) => i + 1));
    expect(turns.map((t) => t.turn_id)).toEqual(referenceTurns.map((t) => t.turn_id));
    let drift = 0;
    for (const [i, turn] of turns.entries()) {
      drift = Math.max(drift, Math.abs(turn.start_ms - referenceTurns[i]!.start_ms), Math.abs(turn.end_ms - referenceTurns[i]!.end_ms));
      const expected = referenceTurns[i]!;
      expect(Math.abs(turn.start_ms - expected.start_ms), `turn ${turn.turn_id} start`).toBeLessThanOrEqual(40);
      expect(Math.abs(turn.end_ms - expected.end_ms), `turn ${turn.turn_id} end`).toBeLessThanOrEqual(40);
      if (i > 0) expect(turn.start_ms).toBeGreaterThanOrEqual(turns[i - 1]!.end_ms);
    }
    // The stream is as long as the audio: nothing lost at the cut, nothing counted twice.
    expect(Math.abs(stats.audio_ms - totalMs)).toBeLessThanOrEqual(20);
    expect(final.end_ms).toBeLessThanOrEqual(Math.ceil(totalMs));
    const error = cer(final.full_text as string, reference.full_text as string);
    expect(error, `${final.full_text} / ${reference.full_text}`).toBeLessThanOrEqual(0.02);

    // One job record for the session, complete, saying it was resumed once.
    const list = await callJson<{ data: Array<{ id: string }> }>(gw.url, 'GET', '/v1/transcriptions?source=websocket', undefined, key);
    expect(list.body.data.map((j) => j.id)).toEqual([ready.job_id]);
    const job = await callJson<{ status: string; text: string; duration_seconds: number; metadata: Record<string, unknown> }>(
      gw.url,
      'GET',
      `/v1/transcriptions/${ready.job_id}`,
      undefined,
      key,
    );
    expect(job.body).toMatchObject({ status: 'completed', text: final.full_text, metadata: { end_reason: 'end', resumes: 1 } });
    expect(job.body.duration_seconds).toBeCloseTo(totalMs / 1000, 1);
    console.log(
      `resume: cut at ${cutAt} B, server held ${resumed.resume_from_bytes} B, discarded ${resumed.discard_bytes} B, ` +
        `detached ${resumed.detached_ms} ms, replayed ${resumed.replayed_messages}; turns ${turns.length}, boundaries within ${drift} ms of the uninterrupted run; CER against the uninterrupted run ${error.toFixed(4)}`,
    );
  }, 180_000);

  it('a turn finished while the session had no connection is delivered after `resumed`, once', async () => {
    const { pcm } = twoUtterances();
    const first = wavPcm(fixturePath('heldout/alffa_spk_heldout-tr_10779_tr02102.wav')).pcm;
    const upTo = Math.floor((first.length + 32_000) / CHUNK) * CHUNK;
    const key = await gw.key({ scopes: ['write', 'read'], account: 'resume-detached' });
    const client = await connectReady(wsUrl(gw.url, QUERY), bearer(key));
    const ready = client.ofType('ready')[0]!;
    // The utterance and a second of silence (its turn ends 500 ms into it), then the cut, before the turn's message can arrive.
    sendAll(client, pcm.subarray(0, upTo));
    await client.waitFor('chunk_received', (m) => m.total_bytes === upTo);
    cut(client);
    await until(() => gw.gateway.streaming!.parkedSessions === 1, 'the session to be parked');
    const lastSeq = Math.max(0, ...client.messages.map(seqOf));
    // Long enough for the turn to be recognised while parked.
    await sleep(1_500);
    const again = connect(wsUrl(gw.url, { resume_token: ready.resume_token as string, last_seq: String(lastSeq) }), bearer(key));
    const resumed = await again.waitFor('resumed');
    expect(resumed.resume_from_bytes).toBe(upTo);
    expect(resumed.discard_bytes).toBe(0);
    sendAll(again, pcm.subarray(upTo));
    again.send('END');
    await again.waitFor('transcription', (m) => m.is_final, 60_000);
    expect((await again.closed).code).toBe(1000);
    const turns = [...client.ofType('turn_detected'), ...again.ofType('turn_detected')];
    expect(turns.map((t) => t.turn_id)).toEqual([1, 2]);
    expect(turns.map(seqOf)).toEqual([1, 2]);
    if (lastSeq === 0) expect(resumed.replayed_messages).toBeGreaterThanOrEqual(1);
  }, 60_000);
});

describe('resume refusals, expiry and takeover (fixture models)', () => {
  let gw: TestGateway;
  let key: string;
  beforeAll(async () => {
    gw = await startTestGateway({ WS_RESUME_WINDOW_SECONDS: '1', METRICS_ENABLED: 'true' });
    key = await gw.key({ scopes: ['write', 'read'], account: 'resume-a' });
  }, 60_000);
  afterAll(async () => gw?.close());

  async function parkedSession(sendBytes: number): Promise<{ ready: Message & { type: 'ready' }; client: StreamClient }> {
    const client = await connectReady(wsUrl(gw.url), bearer(key));
    const ready = client.ofType('ready')[0]!;
    client.send(speech16k().subarray(0, sendBytes));
    await client.waitFor('chunk_received', (m) => m.total_bytes === sendBytes);
    const before = gw.gateway.streaming!.parkedSessions;
    cut(client);
    await until(() => gw.gateway.streaming!.parkedSessions === before + 1, 'the session to be parked');
    return { ready, client };
  }

  it("another key's token is refused (4003) and leaves the session resumable by its own key", async () => {
    const { ready } = await parkedSession(32_000);
    const otherKey = await gw.key({ scopes: ['write'], account: 'resume-b' });
    const intruder = connect(wsUrl(gw.url, { resume_token: ready.resume_token as string }), bearer(otherKey));
    const refusal = await intruder.waitFor('error');
    expect(refusal).toMatchObject({ error: { code: 'resume_token_forbidden', type: 'permission_error' }, close_code: 4003 });
    expect((await intruder.closed).code).toBe(4003);

    const owner = connect(wsUrl(gw.url, { resume_token: ready.resume_token as string }), bearer(key));
    expect(await owner.waitFor('resumed')).toMatchObject({ session_id: ready.session_id, resume_from_bytes: 32_000, discard_bytes: 0, stream_ms: 1_000 });
    owner.send('END');
    expect((await owner.closed).code).toBe(1000);
  });

  it('an offset beyond what the server holds is refused (1008) and the session stays resumable', async () => {
    const { ready } = await parkedSession(32_000);
    const ahead = connect(wsUrl(gw.url, { resume_token: ready.resume_token as string, resume_from_bytes: '40000' }), bearer(key));
    expect(await ahead.waitFor('error')).toMatchObject({ error: { code: 'resume_offset_unavailable', param: 'resume_from_bytes' }, close_code: 1008 });
    expect((await ahead.closed).code).toBe(1008);
    const again = connect(wsUrl(gw.url, { resume_token: ready.resume_token as string, resume_from_bytes: '0' }), bearer(key));
    expect(await again.waitFor('resumed')).toMatchObject({ resume_from_bytes: 32_000, discard_bytes: 32_000 });
    // All of it already held: resent and dropped, then 0.5 s of new audio.
    again.send(speech16k().subarray(0, 48_000));
    await again.waitFor('chunk_received', (m) => m.total_bytes === 48_000);
    again.send('END');
    expect((await again.waitFor('session_stats')).audio_ms).toBe(1_500);
    expect((await again.closed).code).toBe(1000);
  });

  it('after the window the session is finished as a client that left, and its token is unknown (4004)', async () => {
    const { ready } = await parkedSession(64_000);
    await until(() => gw.gateway.streaming!.parkedSessions === 0, 'the window to pass', 5_000);
    const late = connect(wsUrl(gw.url, { resume_token: ready.resume_token as string }), bearer(key));
    expect(await late.waitFor('error')).toMatchObject({ error: { code: 'resume_token_invalid', type: 'not_found_error' }, close_code: 4004 });
    expect((await late.closed).code).toBe(4004);
    expect(await completedJob(gw, key, ready.job_id)).toMatchObject({
      status: 'completed',
      duration_seconds: 2,
      metadata: { end_reason: 'client_disconnected', resumes: 0 },
    });
  });

  it('a resume while the old connection still looks open takes the session over (the old one gets 4009)', async () => {
    const old = await connectReady(wsUrl(gw.url), bearer(key));
    const ready = old.ofType('ready')[0]!;
    old.send(speech16k().subarray(0, 16_000));
    await old.waitFor('chunk_received', (m) => m.total_bytes === 16_000);
    const fresh = connect(wsUrl(gw.url, { resume_token: ready.resume_token as string }), bearer(key));
    expect(await fresh.waitFor('resumed')).toMatchObject({ session_id: ready.session_id, resume_from_bytes: 16_000, detached_ms: 0 });
    expect(await old.waitFor('error')).toMatchObject({ error: { code: 'session_resumed_elsewhere', type: 'conflict_error' }, close_code: 4009 });
    expect((await old.closed).code).toBe(4009);
    fresh.send(speech16k().subarray(16_000, 32_000));
    fresh.send('END');
    expect((await fresh.waitFor('session_stats')).audio_ms).toBe(1_000);
    expect((await fresh.closed).code).toBe(1000);
  });

  it('webm_opus resumes at an odd byte inside the container: the same audio and text as an uninterrupted stream', async () => {
    const webm = nativeFixture('speech-48k-opus.webm');
    const parts = oddSplits(webm, 3);
    const run = async (cutAfter: number | null): Promise<{ audioMs: number; text: string; errors: number }> => {
      const client = await connectReady(wsUrl(gw.url, { format: 'webm_opus' }), bearer(key));
      const head = cutAfter === null ? parts : parts.slice(0, cutAfter);
      for (const part of head) client.send(part);
      let last = client;
      if (cutAfter !== null) {
        const acked = head.reduce((n, part) => n + part.length, 0);
        await client.waitFor('chunk_received', (m) => m.total_bytes === acked);
        // Two more parts go out as the connection is cut.
        for (const part of parts.slice(cutAfter, cutAfter + 2)) client.send(part);
        cut(client);
        await until(() => gw.gateway.streaming!.parkedSessions === 1, 'the session to be parked');
        last = connect(wsUrl(gw.url, { resume_token: client.ofType('ready')[0]!.resume_token as string, resume_from_bytes: String(acked) }), bearer(key));
        const resumed = await last.waitFor('resumed');
        expect(resumed.discard_bytes).toBe(resumed.resume_from_bytes - acked);
        for (const part of parts.slice(cutAfter)) last.send(part);
      }
      last.send('END');
      const final = await last.waitFor('transcription', (m) => m.is_final);
      const stats = await last.waitFor('session_stats');
      return { audioMs: stats.audio_ms, text: final.full_text as string, errors: [...client.ofType('error'), ...last.ofType('error')].length };
    };
    const plain = await run(null);
    const resumed = await run(Math.floor(parts.length / 2));
    expect(resumed).toEqual(plain);
    expect(plain.errors).toBe(0);
    expect(plain.audioMs).toBeGreaterThan(1_000);
  });

  it('an unknown token is refused with 4004', async () => {
    const stranger = connect(wsUrl(gw.url, { resume_token: `wsr_${'x'.repeat(43)}` }), bearer(key));
    expect(await stranger.waitFor('error')).toMatchObject({ error: { code: 'resume_token_invalid' }, close_code: 4004 });
  });

  it('/metrics counts the parks, resumes, takeovers and expiries of the tests above', async () => {
    const metrics = await (await fetch(gw.metricsUrl!)).text();
    const count = (event: string): number =>
      Number(new RegExp(`^gateway_ws_resume_events_total\\{event="${event}"[^}]*\\} (\\d+)`, 'm').exec(metrics)?.[1] ?? 0);
    expect([count('parked'), count('resumed'), count('taken_over'), count('expired')]).toEqual([4, 3, 1, 1]);
  });
});

describe('resuming turned off (WS_RESUME_WINDOW_SECONDS=0)', () => {
  const suite = useTestGateway({ WS_RESUME_WINDOW_SECONDS: '0' }, { scopes: ['write', 'read'] });

  it('ready carries no token and a dropped connection finishes the session at once', async () => {
    const { gw, key } = suite;
    const client = await connectReady(wsUrl(gw.url), bearer(key));
    const ready = client.ofType('ready')[0]!;
    expect(ready).toMatchObject({ resume_token: null, resume_window_seconds: 0 });
    client.send(speech16k().subarray(0, 32_000));
    await client.waitFor('chunk_received', (m) => m.total_bytes === 32_000);
    cut(client);
    expect(await completedJob(gw, key, ready.job_id)).toMatchObject({ status: 'completed', metadata: { end_reason: 'client_disconnected', resumes: 0 } });
    expect(gw.gateway.streaming!.parkedSessions).toBe(0);
  });
});

describe('a session that ends while parked', () => {
  const suite = useTestGateway({ WS_RESUME_WINDOW_SECONDS: '30', WS_MAX_SESSION_SECONDS: '2' }, { scopes: ['write', 'read'] });

  it('reaching its duration, is finished and gives its connection slot back', async () => {
    const { gw, key } = suite;
    const client = await connectReady(wsUrl(gw.url), bearer(key));
    const ready = client.ofType('ready')[0]!;
    client.send(speech16k().subarray(0, 32_000));
    await client.waitFor('chunk_received', (m) => m.total_bytes === 32_000);
    cut(client);
    await until(() => gw.gateway.streaming!.parkedSessions === 1, 'the session to be parked');
    await until(() => gw.gateway.streaming!.activeSessions === 0, 'the session to end', 10_000);
    expect(gw.gateway.streaming!.parkedSessions).toBe(0);
    const usage = await callJson<{ websocket_connections: number }>(gw.url, 'GET', '/v1/usage', undefined, key);
    expect(usage.body.websocket_connections).toBe(0);
    expect(await completedJob(gw, key, ready.job_id)).toMatchObject({ status: 'completed', metadata: { end_reason: 'session_duration_exceeded', resumes: 0 } });
    const late = connect(wsUrl(gw.url, { resume_token: ready.resume_token as string }), bearer(key));
    expect((await late.closed).code).toBe(4004);
  });
});
