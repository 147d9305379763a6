// Memory bounds of the streaming endpoint (docs/streaming.md "Limits"): the audio speed limit
// (decoded audio against wall time), the bound on the audio the whole process holds, a long
// buffer cut in bounded pieces at TRANSCRIBE and END.
// Real gateways on loopback with small limits, so each case takes a few seconds.
import { describe, expect, it } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { silence, speech16k } from './ws-audio.js';
import { chunks, connect, connectReady, joinedText, sleep, wsUrl, type StreamClient } from './ws-client.js';

const BYTES_PER_SECOND = 32_000;

/** Speech repeated to `seconds` of 16 kHz PCM. */
function speechFor(seconds: number): Buffer {
  const speech = speech16k();
  const parts: Buffer[] = [];
  for (let left = seconds * BYTES_PER_SECOND; left > 0; left -= speech.length) parts.push(speech.subarray(0, Math.min(left, speech.length)));
  return Buffer.concat(parts);
}

function closeError(client: StreamClient) {
  return client.ofType('error').find((e) => e.close_code !== null);
}

describe('audio speed and the memory of many fast senders', () => {
  const suite = useTestGateway({ WS_MAX_CONNECTIONS_PER_KEY: '10' }, { scopes: ['write'] });

  it('sessions sending 31x real time get 4029 audio_rate_exceeded, memory stays bounded, a real-time session is unaffected', async () => {
    const url = wsUrl(suite.gw.url);
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage().rss);
    }, 25);
    try {
      const steady = await connectReady(url, bearer(suite.key));
      const flooders = await Promise.all(Array.from({ length: 6 }, () => connectReady(url, bearer(suite.key))));
      // 100 KB every 100 ms: 1 MB/s, just under WS_MAX_BYTES_PER_SECOND, 31x real time (manual mode: all of it is buffered).
      const flood = chunks(speechFor(8), 100_000);
      const started = Date.now();
      const speech = chunks(speechFor(4), 3_200);
      let sent = 0;
      while (Date.now() - started < 4_500) {
        const tick = Math.floor((Date.now() - started) / 100);
        for (const client of flooders) client.send(flood[tick % flood.length]!);
        if (sent < speech.length) steady.send(speech[sent++]!);
        await sleep(100);
      }
      for (const client of flooders) {
        const closed = await client.closed;
        expect(closed.code).toBe(4029);
        expect(closeError(client)?.error.code).toBe('audio_rate_exceeded');
      }
      // The default burst is 60 s of audio ahead: at 31x the bucket runs dry after about 2 s.
      steady.send('END');
      const final = await steady.waitFor('transcription', (m) => m.is_final, 20_000);
      expect((await steady.closed).code).toBe(1000);
      expect(sent).toBeGreaterThan(20);
      expect(final.end_ms).toBe(sent * 100);
      expect(steady.ofType('error')).toHaveLength(0);
    } finally {
      clearInterval(sampler);
    }
    // 6 sessions at 1 MB/s for 4.5 s would buffer 27 MB of 16-bit audio (108 MB as float pieces) without the limit.
    expect(peak - baseline).toBeLessThan(150 * 1024 * 1024);
  }, 40_000);
});

describe('the audio the whole process holds', () => {
  // 2.2 MB: the ring of 45 s of audio (storage grows to 64 s: 2.05 MB) is near it, 100 s is over it.
  const suite = useTestGateway(
    { WS_MAX_PROCESS_BUFFER_BYTES: '2.2MB', WS_AUDIO_BURST_SECONDS: '600', WS_MAX_BYTES_PER_SECOND: '100MB', WS_MAX_MESSAGE_BYTES: '100KB' },
    { scopes: ['write'] },
  );

  it('past the bound the session holding the most closes 1009 buffer_limit_exceeded', async () => {
    const url = wsUrl(suite.gw.url);
    const small = await connectReady(url, bearer(suite.key));
    const large = await connectReady(url, bearer(suite.key));
    for (const part of chunks(speechFor(100), 64_000)) large.send(part);
    expect((await large.closed).code).toBe(1009);
    const error = closeError(large);
    expect(error?.error.code).toBe('buffer_limit_exceeded');
    expect(error?.error.message).toMatch(/holds the most/);
    // The small session goes on.
    small.send(speechFor(1));
    small.send('END');
    await small.waitFor('transcription', (m) => m.is_final);
    expect((await small.closed).code).toBe(1000);
  }, 30_000);

  it('near the bound new sessions are refused with 1013 and retry_after; once the audio is freed they are admitted', async () => {
    const url = wsUrl(suite.gw.url);
    const holder = await connectReady(url, bearer(suite.key));
    for (const part of chunks(speechFor(45), 64_000)) holder.send(part);
    await holder.waitFor('chunk_received', (m) => m.total_bytes >= 45 * BYTES_PER_SECOND);
    await sleep(100);
    const refused = connect(url, bearer(suite.key));
    expect((await refused.closed).code).toBe(1013);
    const error = closeError(refused);
    expect(error?.error.code).toBe('server_overloaded');
    expect(error?.error.message).toMatch(/audio/);
    expect(error?.error['retry_after']).toBeGreaterThan(0);
    // CLEAR gives the ring's storage back.
    holder.send('CLEAR');
    await sleep(200);
    const admitted = await connectReady(url, bearer(suite.key));
    admitted.send('END');
    holder.send('END');
    expect((await admitted.closed).code).toBe(1000);
    expect((await holder.closed).code).toBe(1000);
  }, 30_000);
});

describe('long buffers are decoded in bounded pieces', () => {
  const suite = useTestGateway({ WS_MAX_TURN_MS: '1000' }, { scopes: ['write'] });

  it('END on 5 s of buffered audio: five pieces of at most the longest turn, the last one final', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    client.send(Buffer.concat([speechFor(4.5), silence(500)]));
    client.send('END');
    await client.waitFor('transcription', (m) => m.is_final);
    expect((await client.closed).code).toBe(1000);
    const pieces = client.ofType('transcription');
    expect(pieces.map((m) => [m.start_ms, m.end_ms])).toEqual([
      [0, 1000],
      [1000, 2000],
      [2000, 3000],
      [3000, 4000],
      [4000, 5000],
    ]);
    expect(pieces.map((m) => m.is_final)).toEqual([false, false, false, false, true]);
    expect(pieces.at(-1)!.full_text).toBe(joinedText(pieces));
  }, 30_000);

  it('TRANSCRIBE of 3.5 s: four equal pieces, and the session goes on', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    client.send(speechFor(3.5));
    client.send('TRANSCRIBE');
    await client.waitFor('transcription', (m) => m.end_ms === 3500);
    expect(client.ofType('transcription').map((m) => [m.start_ms, m.end_ms, m.is_final])).toEqual([
      [0, 875, false],
      [875, 1750, false],
      [1750, 2625, false],
      [2625, 3500, false],
    ]);
    client.send(speechFor(0.5));
    client.send('END');
    const final = await client.waitFor('transcription', (m) => m.is_final);
    expect([final.start_ms, final.end_ms]).toEqual([3500, 4000]);
    expect((await client.closed).code).toBe(1000);
  }, 30_000);
});
