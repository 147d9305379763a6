import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Value } from '@sinclair/typebox/value';
import { OpusEncoder } from '@discordjs/opus';
import { describe, expect, it } from 'vitest';
import { runFfmpeg } from '../helpers/audio-files.js';
import { ServerMessageSchema } from '../../src/streaming/ws-messages.js';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { nativeFixture, oddSplits, opusFrames, speech16k, twoTurns, upsample3 } from './ws-audio.js';
import { wavOf } from '../helpers/fixtures.js';
import { chunks, connect, connectReady, joinedText, paced, wsUrl, type StreamClient } from './ws-client.js';

const suite = useTestGateway({}, { scopes: ['write'] });

/** Every message the server sent matches the documented union. */
function expectValidMessages(client: StreamClient): void {
  for (const message of client.messages) {
    const errors = [...Value.Errors(ServerMessageSchema, message)].map((e) => `${e.path} ${e.message}`);
    expect(errors, JSON.stringify(message).slice(0, 300)).toEqual([]);
  }
}

async function endAndClose(client: StreamClient) {
  client.send('END');
  const final = await client.waitFor('transcription', (m) => m.is_final, 30_000);
  const closed = await client.closed;
  expect(closed.code).toBe(1000);
  expectValidMessages(client);
  return final;
}

describe('audio formats', () => {
  it('pcm_s16le with server_vad: one turn_detected per turn, in order, with stream-time segments', async () => {
    const { pcm, turnEndsMs } = twoTurns();
    const client = connect(wsUrl(suite.gw.url, { turn_detection: 'server_vad' }), bearer(suite.key));
    const ready = await client.waitFor('ready');
    expect(ready).toMatchObject({ format: 'pcm_s16le', sample_rate: 16000, turn_detection: 'server_vad', vad_type: 'energy' });
    expect(ready.job_id).toMatch(/^tr_/);
    expect(ready.session_id).toMatch(/^ws_/);
    await paced(client, chunks(pcm, 3200 * 2), 0);
    await client.waitFor('chunk_received');
    const second = await client.waitFor('turn_detected', (m) => m.turn_id === 2);
    const turns = client.ofType('turn_detected');
    expect(turns.map((t) => t.turn_id)).toEqual([1, 2]);
    for (const [i, turn] of turns.entries()) {
      // The turn ends near the end of its speech (padding after the speech: 500 ms in all, issue 11), and starts before it.
      expect(Math.abs(turn.end_ms - turnEndsMs[i]!)).toBeLessThan(600);
      expect(turn.start_ms).toBeLessThan(turn.end_ms - 2000);
      for (const segment of turn.segments) {
        expect(segment.start_ms).toBeGreaterThanOrEqual(turn.start_ms);
        expect(segment.end_ms).toBeLessThanOrEqual(turn.end_ms);
        expect(segment.duration_ms).toBe(segment.end_ms - segment.start_ms);
      }
      expect(turn.latency_ms).toBeGreaterThanOrEqual(0);
    }
    expect(second.start_ms).toBeGreaterThanOrEqual(turns[0]!.end_ms);
    const ids = turns.flatMap((t) => t.segments.map((s) => s.id));
    expect(ids).toEqual(ids.map((_, i) => i));
    const final = await endAndClose(client);
    expect(final.full_text).toBe(joinedText(turns));
  }, 60_000);

  it('pcm_s16le_48k: the 48 kHz stream lands on the same 16 kHz timeline', async () => {
    const { pcm, turnEndsMs } = twoTurns();
    const client = connect(wsUrl(suite.gw.url, { format: 'pcm_s16le_48k', turn_detection: 'server_vad' }), bearer(suite.key));
    expect(await client.waitFor('ready')).toMatchObject({ format: 'pcm_s16le_48k', sample_rate: 48000 });
    await paced(client, chunks(upsample3(pcm), 9600 * 2), 0);
    await client.waitFor('turn_detected', (m) => m.turn_id === 2);
    const turns = client.ofType('turn_detected');
    expect(turns).toHaveLength(2);
    for (const [i, turn] of turns.entries()) expect(Math.abs(turn.end_ms - turnEndsMs[i]!)).toBeLessThan(600);
    await client.waitFor('chunk_received', (m) => m.total_bytes === pcm.length * 3);
    await endAndClose(client);
  }, 60_000);

  it('wav: a WAV stream split at odd byte boundaries, transcribed on TRANSCRIBE', async () => {
    const pcm = speech16k();
    const client = await connectReady(wsUrl(suite.gw.url, { format: 'wav' }), bearer(suite.key));
    await paced(client, oddSplits(wavOf(pcm)), 0);
    client.send('TRANSCRIBE');
    const t = await client.waitFor('transcription');
    expect(t.is_final).toBe(false);
    expect(t.start_ms).toBe(0);
    expect(Math.abs(t.end_ms - 8136)).toBeLessThanOrEqual(1);
    expect(t.text.length).toBeGreaterThan(0);
    expect(t.segments).toHaveLength(1);
    const final = await endAndClose(client);
    expect(final.start_ms).toBe(t.end_ms);
    expect(final.full_text).toBe(t.text);
  }, 60_000);

  it('opus_raw_16k: one 20 ms Opus frame per message, turns transcribed automatically', async () => {
    const { pcm, turnEndsMs } = twoTurns();
    const frames = opusFrames(pcm);
    const client = connect(wsUrl(suite.gw.url, { format: 'opus_raw_16k' }), bearer(suite.key));
    expect(await client.waitFor('ready')).toMatchObject({ format: 'opus_raw_16k', sample_rate: 16000, turn_detection: 'server_vad' });
    // 10-frame bursts every 200 ms (50 messages/s, real time): half the 100 messages/s limit, so
    // an event-loop stall of up to a second that bunches bursts into one server window stays under it.
    for (let i = 0; i < frames.length; i += 10) await paced(client, frames.slice(i, i + 10), 0).then(() => new Promise((r) => setTimeout(r, 200)));
    await client.waitFor('transcription', (m) => m.turn_id === 2);
    const automatic = client.ofType('transcription').filter((m) => !m.is_final);
    expect(automatic.map((m) => m.turn_id)).toEqual([1, 2]);
    for (const [i, t] of automatic.entries()) expect(Math.abs(t.end_ms - turnEndsMs[i]!)).toBeLessThan(600);
    expect(client.ofType('turn_detected')).toHaveLength(0);
    expect(client.ofType('error')).toHaveLength(0);
    await endAndClose(client);
  }, 60_000);

  it('opus_raw_16k with server_vad: each turn gives turn_detected and its automatic transcription', async () => {
    const frames = opusFrames(twoTurns().pcm);
    const client = await connectReady(wsUrl(suite.gw.url, { format: 'opus_raw_16k', turn_detection: 'server_vad' }), bearer(suite.key));
    // 50-frame bursts a second: a stall that lands two bursts in one server window (fixed one-second
    // windows from the first message) still counts 100 messages, the limit (80 a burst failed a CI run).
    for (let i = 0; i < frames.length; i += 50) await paced(client, frames.slice(i, i + 50), 0).then(() => new Promise((r) => setTimeout(r, 1010)));
    await client.waitFor('transcription', (m) => m.turn_id === 2);
    const turns = client.ofType('turn_detected');
    const automatic = client.ofType('transcription').filter((m) => !m.is_final);
    expect(turns.map((t) => t.turn_id)).toEqual([1, 2]);
    expect(automatic.map((t) => [t.turn_id, t.text, t.end_ms])).toEqual(turns.map((t) => [t.turn_id, t.text, t.end_ms]));
    const final = await endAndClose(client);
    expect(final.full_text).toBe(joinedText(turns));
  }, 60_000);

  it('opus_raw_16k refuses a message that is not one 20 ms frame, and goes on', async () => {
    const frames = opusFrames(speech16k().subarray(0, 32_000));
    const client = await connectReady(wsUrl(suite.gw.url, { format: 'opus_raw_16k' }), bearer(suite.key));
    // A 40 ms packet: valid Opus, but not the one 20 ms frame per message the format requires.
    client.send(new OpusEncoder(16_000, 1).encode(speech16k().subarray(0, 640 * 2)));
    const error = await client.waitFor('error');
    expect(error.close_code).toBeNull();
    expect(error.error.code).toBe('invalid_audio_data');
    for (const f of frames) client.send(f);
    await client.waitFor('chunk_received', (m) => m.stream_ms >= 900);
    await endAndClose(client);
  }, 30_000);

  it('webm_opus: a MediaRecorder recording streamed in chunks split at odd byte boundaries', async () => {
    const webm = nativeFixture('speech-48k-opus.webm');
    const client = connect(wsUrl(suite.gw.url, { format: 'webm_opus' }), bearer(suite.key));
    expect(await client.waitFor('ready')).toMatchObject({ format: 'webm_opus', sample_rate: 48000 });
    await paced(client, oddSplits(webm, 3), 0);
    await client.waitFor('chunk_received', (m) => m.total_bytes === webm.length);
    expect(client.ofType('error')).toHaveLength(0);
    client.send('TRANSCRIBE');
    const t = await client.waitFor('transcription');
    expect(t.end_ms).toBeGreaterThan(8000);
    expect(t.text.length).toBeGreaterThan(0);
    await endAndClose(client);
  }, 60_000);

  it('webm_opus made with ffmpeg from the speech fixture, with server_vad and silero', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ws-webm-'));
    try {
      const { pcm } = twoTurns();
      const wav = join(dir, 'in.wav');
      const out = join(dir, 'out.webm');
      await import('node:fs/promises').then((fs) => fs.writeFile(wav, wavOf(pcm)));
      runFfmpeg(['-i', wav, '-ar', '48000', '-c:a', 'libopus', '-b:a', '32k', out]);
      const client = connect(wsUrl(suite.gw.url, { format: 'webm_opus', turn_detection: 'server_vad', vad_type: 'silero' }), bearer(suite.key));
      expect(await client.waitFor('ready')).toMatchObject({ vad_type: 'silero' });
      await paced(client, oddSplits(readFileSync(out), 11), 0);
      await client.waitFor('turn_detected', (m) => m.turn_id === 2, 30_000);
      expect(client.ofType('turn_detected').map((t) => t.turn_id)).toEqual([1, 2]);
      await endAndClose(client);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('garbage in every format gets error messages (or is taken as PCM), never a crash', async () => {
    let seed = 99;
    const random = (n: number): Buffer => {
      const b = Buffer.alloc(n);
      for (let i = 0; i < n; i++) {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        b[i] = seed & 0xff;
      }
      return b;
    };
    for (const format of ['pcm_s16le', 'pcm_s16le_48k', 'wav', 'webm_opus', 'opus_raw_16k']) {
      const client = await connectReady(wsUrl(suite.gw.url, { format, turn_detection: 'server_vad' }), bearer(suite.key));
      for (let i = 0; i < 20; i++) client.send(random(1 + ((i * 977) % 4000)));
      client.send('PING');
      await client.waitFor('pong');
      if (format === 'wav' || format === 'webm_opus' || format === 'opus_raw_16k') {
        expect(client.ofType('error').length, format).toBeGreaterThan(0);
        for (const e of client.ofType('error')) expect(e).toMatchObject({ close_code: null, error: { code: 'invalid_audio_data' } });
      }
      // A broken container is reported once, not per message.
      if (format === 'wav' || format === 'webm_opus') expect(client.ofType('error')).toHaveLength(1);
      await endAndClose(client);
    }
  }, 60_000);

  it('FORMAT switches formats mid-session', async () => {
    const pcm = speech16k().subarray(0, 32_000 * 2);
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    client.send(pcm);
    client.send('FORMAT:pcm_s16le_48k');
    expect(await client.waitFor('format_changed')).toMatchObject({ format: 'pcm_s16le_48k', sample_rate: 48000 });
    client.send(upsample3(pcm));
    client.send('TRANSCRIBE');
    const t = await client.waitFor('transcription');
    expect(Math.abs(t.end_ms - 4000)).toBeLessThan(20);
    await endAndClose(client);
  }, 30_000);
});
