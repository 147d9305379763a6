// The upgrade completes inside uWS's upgrade callback, admission after it (ws-endpoint.ts,
// upgrade rules). Upgrading from an async continuation through HttpResponse.cork made uWS v20.30
// close the new socket right after `ready` whenever it misread a close flag in the socket's
// memory (uNetworking/uWebSockets#1929); a request with `Connection: close` sets that flag, so
// it failed every time. It needs admission to wait for real I/O (here the connection slots in
// Redis): an admission that settles within the upgrade callback's microtasks upgraded while uWS
// still held the cork, which was safe. Raw TCP: `ws` always sends `Connection: Upgrade`.
import { connect as tcpConnect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_REGISTRY } from '../../src/platform/errors/error-registry.js';
import { REDIS_URL, skipWithout, testRedisPrefix } from '../helpers/distributed-servers.js';
import { untilTrue } from '../helpers/polling.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { speech16k } from './ws-audio.js';

const skip = await skipWithout('redis');
const redis = testRedisPrefix('ws-upgrade');
const suite = useTestGateway(
  { RATE_LIMIT_BACKEND: 'redis', REDIS_URL, REDIS_KEY_PREFIX: redis.prefix, WS_MAX_CONNECTIONS_PER_KEY: '100' },
  { scopes: ['write'] },
);
afterAll(() => redis.clean());

/** A masked client frame (RFC 6455 5.2): FIN, `opcode`, payload under 64 KiB. */
function clientFrame(opcode: number, payload: Buffer): Buffer {
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const length = payload.length < 126 ? Buffer.from([0x80 | payload.length]) : Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([0x80 | opcode]), length, mask, masked]);
}

/** A raw WebSocket client: the 101 and the server's unfragmented frames, as they arrive. */
class RawClient {
  readonly texts: string[] = [];
  closeCode: number | null = null;
  ended = false;
  #buffer = Buffer.alloc(0);
  #handshake = '';
  readonly socket: Socket;

  constructor(port: number, headers: Record<string, string>) {
    this.socket = tcpConnect(port, '127.0.0.1');
    const lines = [
      'GET /v1/ws/transcribe HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Version: 13',
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('end', () => {
      this.ended = true;
    });
    this.socket.on('error', () => {
      this.ended = true;
    });
  }

  /** Resolves once the server answered the handshake. */
  handshake(): Promise<void> {
    return untilTrue(() => this.#handshake.includes('\r\n\r\n'), 20_000, 1, 'no handshake answer');
  }

  get status(): string {
    return this.#handshake.split('\r\n')[0] ?? '';
  }

  private read(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    if (!this.#handshake.includes('\r\n\r\n')) {
      const end = this.#buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      this.#handshake = this.#buffer.subarray(0, end + 4).toString('latin1');
      this.#buffer = this.#buffer.subarray(end + 4);
    }
    while (this.#buffer.length >= 2) {
      const opcode = this.#buffer[0]! & 0x0f;
      let length = this.#buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.#buffer.length < 4) return;
        length = this.#buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.#buffer.length < 10) return;
        length = Number(this.#buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.#buffer.length < offset + length) return;
      const payload = this.#buffer.subarray(offset, offset + length);
      this.#buffer = this.#buffer.subarray(offset + length);
      if (opcode === 1) this.texts.push(payload.toString('utf8'));
      if (opcode === 8) this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
    }
  }

  send(opcode: number, payload: Buffer): void {
    this.socket.write(clientFrame(opcode, payload));
  }

  types(): string[] {
    return this.texts.map((t) => (JSON.parse(t) as { type: string }).type);
  }

  /** Resolves once a `type` message arrived; throws at once when the connection ends first. */
  waitFor(type: string): Promise<void> {
    return untilTrue(
      () => {
        if (this.types().includes(type)) return true;
        if (this.ended || this.closeCode !== null)
          throw new Error(`closed (${this.closeCode ?? 'no close frame'}) before '${type}'; got ${this.types().join(', ')}`);
        return false;
      },
      20_000,
      10,
      `no '${type}' within 20 s`,
    );
  }
}

describe.skipIf(skip)('the WebSocket upgrade (admission through Redis)', () => {
  it('sessions upgraded with Connection: close stay open after ready (the old path closed 36 of 60)', async () => {
    for (let i = 0; i < 12; i++) {
      const client = new RawClient(suite.gw.gateway.port, { Connection: 'close', Authorization: `Bearer ${suite.key}` });
      try {
        await client.waitFor('ready');
        await new Promise((r) => setTimeout(r, 100));
        expect({ session: i, ended: client.ended, closeCode: client.closeCode }).toEqual({ session: i, ended: false, closeCode: null });
      } finally {
        client.socket.destroy();
      }
    }
  });

  it('a session upgraded with Connection: close carries audio and commands', async () => {
    const client = new RawClient(suite.gw.gateway.port, { Connection: 'close', Authorization: `Bearer ${suite.key}` });
    try {
      await client.waitFor('ready');
      expect(client.status).toBe('HTTP/1.1 101 Switching Protocols');
      // the socket outlives the moment after `ready` (uWS closed it there) and carries the session on
      await new Promise((r) => setTimeout(r, 200));
      client.send(2, speech16k().subarray(0, 32_000));
      await client.waitFor('chunk_received');
      client.send(1, Buffer.from('END'));
      await client.waitFor('transcription');
    } finally {
      client.socket.destroy();
    }
  });

  it('audio and commands sent between the 101 and ready (admission still running) reach the session in order', async () => {
    const client = new RawClient(suite.gw.gateway.port, { Connection: 'Upgrade', Authorization: `Bearer ${suite.key}` });
    try {
      // as soon as the handshake is answered (a client may not send before it: RFC 6455 4.1)
      await client.handshake();
      client.send(2, speech16k().subarray(0, 32_000));
      client.send(1, Buffer.from('TRANSCRIBE'));
      await client.waitFor('transcription');
      const types = client.types();
      expect(types[0]).toBe('ready');
      expect(types.indexOf('chunk_received')).toBeGreaterThan(0);
      expect(types.indexOf('chunk_received')).toBeLessThan(types.indexOf('transcription'));
      const transcription = JSON.parse(client.texts[types.indexOf('transcription')]!) as { end_ms: number };
      expect(transcription.end_ms).toBe(1000);
    } finally {
      client.socket.destroy();
    }
  });

  it('a refused key still gets the error and close code after the upgrade, whatever it sent before', async () => {
    const client = new RawClient(suite.gw.gateway.port, { Connection: 'Upgrade', Authorization: 'Bearer sk_not_a_key' });
    try {
      await client.handshake();
      client.send(2, speech16k().subarray(0, 3_200));
      await untilTrue(() => client.closeCode !== null, 20_000, 10, 'no close frame');
      expect(client.types()).toEqual(['error']);
      expect(client.closeCode).toBe(ERROR_REGISTRY.invalid_api_key.wsClose);
    } finally {
      client.socket.destroy();
    }
  });
});
