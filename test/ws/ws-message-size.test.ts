// Every WebSocket message over WS_MAX_MESSAGE_BYTES ends the session with an `error` message
// and close 1009, however far over the limit it is (up to the read ceiling, the buffer limit).
import { describe, expect, it } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { wsUrl, connectReady } from './ws-client.js';
import { wsReadCeiling } from '../../src/streaming/ws-limits.js';

const suite = useTestGateway({ WS_MAX_MESSAGE_BYTES: '32KB', WS_MAX_BUFFER_BYTES: '8MB', WS_MAX_BYTES_PER_SECOND: '100MB' }, { scopes: ['write'] });

describe('WebSocket message size', () => {
  for (const size of [32_001, 64_001, 200_000, 2_000_000, 8_000_000]) {
    for (const kind of ['binary', 'text'] as const) {
      it(`a ${kind} message of ${size} bytes: error message_too_large naming the limit, then 1009`, async () => {
        const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
        client.send(kind === 'binary' ? Buffer.alloc(size) : 'P'.repeat(size));
        const closed = await client.closed;
        expect(closed.code).toBe(1009);
        expect(closed.reason.startsWith('message_too_large')).toBe(true);
        const error = client.ofType('error').find((e) => e.close_code !== null);
        expect(error?.error.code).toBe('message_too_large');
        expect(error?.close_code).toBe(1009);
        expect(error?.error.message).toContain(`of ${size} bytes exceeds the size limit of 32000 bytes`);
      });
    }
  }

  it('a message at the limit is accepted', async () => {
    const client = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    client.send(Buffer.alloc(32_000));
    client.send('PING');
    await client.waitFor('pong');
    client.send('END');
    expect((await client.closed).code).toBe(1000);
  });

  it('the read ceiling is the buffer limit, at least twice the message limit, at most 256 MiB', () => {
    expect(wsReadCeiling({ wsMaxMessageBytes: 1_000_000, wsMaxBufferBytes: 50_000_000 })).toBe(50_000_000);
    expect(wsReadCeiling({ wsMaxMessageBytes: 1_000_000, wsMaxBufferBytes: 1_000_000 })).toBe(2_000_000);
    expect(wsReadCeiling({ wsMaxMessageBytes: 1_000_000, wsMaxBufferBytes: 1e10 })).toBe(256 * 1024 * 1024);
  });
});
