// A text frame that is not UTF-8 is a protocol violation (issue 34 item 7). uWebSockets.js checks
// text frames itself and drops such a connection without a close frame (the client sees 1006),
// so the 1007 close the session would send cannot reach the client; what the gateway controls
// holds: the session is not parked for resume as a network cut would be, and its job ends
// failed with invalid_frame_payload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../helpers/polling.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { connect, wsUrl } from './ws-client.js';

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway();
  key = await gw.key({ scopes: ['write', 'read'] });
}, 120_000);
afterAll(async () => gw?.close());

describe('invalid UTF-8 in a text frame', () => {
  it('ends the session at once: not parked for resume, its job failed with invalid_frame_payload', async () => {
    const client = connect(wsUrl(gw.url, { turn_detection: 'server_vad' }), bearer(key));
    const ready = await client.waitFor('ready');
    client.socket.send(Buffer.from([0x50, 0x49, 0xff, 0xfe]), { binary: false });
    expect((await client.closed).code).toBe(1006);
    const job = await until(async () => {
      const body = (await (await fetch(`${gw.url}/v1/transcriptions/${ready.job_id}`, { headers: bearer(key) })).json()) as { status: string };
      return body.status === 'processing' ? undefined : body;
    }, 10_000);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'invalid_frame_payload' } });
    expect(gw.gateway.streaming?.parkedSessions ?? 0).toBe(0);
  });
});
