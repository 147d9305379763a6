// A client that never reads what the server sends (docs/streaming.md "Limits": unread server
// messages past WS_MAX_UNSENT_BYTES close the session with 1008 `slow_consumer`) is closed on
// its own: the process stays up, another session and REST go on. The offender pauses its
// socket, so unread pongs pile up server-side, and sends legal PINGs in small bursts at up to
// half the message-rate limit. The kernel's socket buffers take a few MB before any of it
// stays unsent, so the rate is high and the unsent limit small: the breach comes within
// seconds. The limit is above the sender's 64 KB high-water mark, as by default, so the close
// frame fits behind what uWS holds (uWS drops a send, the close frame too, past its limit).
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { connectReady, sleep, wsUrl, type StreamClient } from './ws-client.js';

const MESSAGES_PER_SECOND = 50_000;
/** PINGs sent together, at most 25 bursts a second: half the rate limit. */
const BURST = 1_000;
const BURST_INTERVAL_MS = 40;
const MAX_UNSENT_BYTES = 256 * 1024;
/** A pong is about 60 bytes of JSON. */
const PONG_BYTES = 60;

// The offender's job is polled before every burst (below), so REST's per-key limit is raised.
const suite = useTestGateway(
  { WS_MAX_MESSAGES_PER_SECOND: String(MESSAGES_PER_SECOND), WS_MAX_UNSENT_BYTES: String(MAX_UNSENT_BYTES), RATE_LIMIT_PER_MINUTE: '100000' },
  { scopes: ['write'] },
);

async function jobOf(client: StreamClient): Promise<Record<string, unknown>> {
  const response = await fetch(`${suite.gw.url}/v1/transcriptions/${client.ofType('ready')[0]!.job_id}`, { headers: bearer(suite.key) });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

async function pingAnswered(client: StreamClient, withinMs = 5_000): Promise<void> {
  const answered = client.ofType('pong').length + 1;
  client.send('PING');
  await client.waitFor('pong', () => client.ofType('pong').length === answered, withinMs);
}

const socketOf = (client: StreamClient): Socket => (client.socket as unknown as { _socket: Socket })._socket;

describe('a client that never reads', () => {
  it('is closed with 1008 slow_consumer; the server, another session and REST go on', async () => {
    const url = wsUrl(suite.gw.url);
    const steady = await connectReady(url, bearer(suite.key));
    const offender = await connectReady(url, bearer(suite.key));
    socketOf(offender).pause();

    let pongsAsked = 0;
    let job = await jobOf(offender);
    for (let burst = 1; burst <= 500 && job['status'] === 'processing'; burst++) {
      for (let i = 0; i < BURST; i++) offender.send('PING');
      pongsAsked += BURST;
      // The other session is answered at once all along (a server stuck on the offender is not).
      await pingAnswered(steady, 2_000);
      await sleep(BURST_INTERVAL_MS);
      // Polled before every burst, so the offender starts reading again soon after the close
      // (uWS keeps a closing socket's last bytes for 0-4 s only: below).
      job = await jobOf(offender);
    }
    expect(job).toMatchObject({ status: 'failed', error: { code: 'slow_consumer' } });
    // It asked for several times the limit of unread pongs.
    expect(pongsAsked * PONG_BYTES).toBeGreaterThan(3 * MAX_UNSENT_BYTES);

    // Reading again, the offender finds the close frame behind the messages it left unread, if it
    // gets there in time: after ws.end uWS closes the socket at its next 4 s timer tick past the
    // ping-timeout margin (4 s with idleTimeout 0), so 0-4 s later, and drops what it still holds,
    // the close frame too (then the client sees 1006; that the server closed with 1008
    // slow_consumer is checked exactly in src/streaming/ws-sender.test.ts, and here by the job).
    // To get there sooner, the pile of pongs is only counted, not parsed and checked against the
    // schema one by one as StreamClient does (tens of thousands took seconds on a loaded machine).
    let messagesRead = offender.messages.length;
    offender.socket.removeAllListeners('message');
    offender.socket.on('message', () => {
      messagesRead++;
    });
    socketOf(offender).resume();
    const closed = await offender.closed;
    expect([1008, 1006], JSON.stringify(closed)).toContain(closed.code);
    if (closed.code === 1008) expect(closed.reason).toBe('slow_consumer');
    // What the server held past the limit was dropped, not kept for the reader.
    expect(messagesRead).toBeLessThan(pongsAsked);

    // The other session still answers, and ends normally.
    await pingAnswered(steady);
    steady.send('END');
    expect((await steady.closed).code).toBe(1000);
  }, 60_000);
});
