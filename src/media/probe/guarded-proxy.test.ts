import { request as httpRequest } from 'node:http';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundGuard } from '../../platform/net/outbound-guard.js';
import { startTestServer, type TestServer } from '../../../test/helpers/tls-servers.js';
import { GuardedProxy } from './guarded-proxy.js';

/** CONNECT through the proxy; resolves with the proxy's status line and the open socket. */
function connectThrough(proxy: GuardedProxy, target: string): Promise<{ status: number; socket: import('node:net').Socket }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(proxy.proxyUrl, { method: 'CONNECT', path: target });
    req.on('connect', (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
    req.on('error', reject);
    req.end();
  });
}

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ tls: true, respond: (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('through the tunnel') });
});
afterAll(async () => server.close());

const options = { userAgent: 'test', timeoutMs: 5000, signal: new AbortController().signal };

describe('GuardedProxy as a forward proxy (the path yt-dlp takes)', () => {
  it('refuses CONNECT to loopback literals and to names that resolve to loopback', async () => {
    const proxy = await GuardedProxy.start(new OutboundGuard(false), null, options);
    try {
      for (const target of [`127.0.0.1:${server.port}`, `[::1]:${server.port}`, `localhost:${server.port}`, '169.254.169.254:443']) {
        const { status, socket } = await connectThrough(proxy, target);
        socket.destroy();
        expect(status, target).toBe(403);
      }
      expect(proxy.log.refused?.code).toBe('url_not_allowed');
      expect(server.requests.length).toBe(0);
    } finally {
      await proxy.close();
    }
  });

  it('tunnels to permitted addresses (TLS end to end, verified by the client)', async () => {
    const proxy = await GuardedProxy.start(new OutboundGuard(false, ['127.0.0.1/32']), null, options);
    try {
      const { status, socket } = await connectThrough(proxy, `127.0.0.1:${server.port}`);
      expect(status).toBe(200);
      const body = await new Promise<string>((resolve, reject) => {
        const tls = tlsConnect({ socket, servername: 'localhost' }, () => {
          tls.write(`GET /x HTTP/1.1\r\nHost: localhost:${server.port}\r\nConnection: close\r\n\r\n`);
        });
        let text = '';
        tls.on('data', (c: Buffer) => (text += c.toString()));
        tls.on('end', () => resolve(text));
        tls.on('error', reject);
      });
      expect(body).toContain('200 OK');
      expect(body).toContain('through the tunnel');
      expect(proxy.log.refused).toBeNull();
    } finally {
      await proxy.close();
    }
  });

  it('refuses absolute-form plain HTTP to private addresses', async () => {
    const proxy = await GuardedProxy.start(new OutboundGuard(false), null, options);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(proxy.proxyUrl, { path: 'http://10.1.2.3/secret', headers: { host: '10.1.2.3' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(403);
      expect(proxy.log.refused?.code).toBe('url_not_allowed');
    } finally {
      await proxy.close();
    }
  });
});
