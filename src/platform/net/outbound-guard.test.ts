import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isApiError } from '../errors/api-error.js';
import { isPublicAddress, OutboundGuard } from './outbound-guard.js';
import { safeRequest } from './safe-http.js';

describe('isPublicAddress', () => {
  it.each([
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['224.0.0.1', false],
    ['255.255.255.255', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::127.0.0.1', false],
    ['::7f00:1', false],
    ['[::7f00:1]', false],
    ['::10.0.0.1', false],
    ['::169.254.169.254', false],
    ['::8.8.8.8', true],
    ['::', false],
    ['::1', false],
    ['::ffff:10.0.0.1', false],
    ['64:ff9b::7f00:1', false],
    ['2002:7f00:1::', false],
    ['8.8.8.8', true],
    ['1.1.1.1', true],
    ['2606:4700:4700::1111', true],
    ['::ffff:8.8.8.8', true],
    ['not-an-ip', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('safeRequest', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/redirect-to-loopback') {
        res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` });
        res.end();
      } else if (req.url === '/redirect-to-metadata') {
        res.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      } else if (req.url === '/redirect-loop') {
        res.writeHead(302, { location: '/redirect-loop' });
        res.end();
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('hello');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const refusedCode = async (promise: Promise<unknown>): Promise<string> => {
    try {
      await promise;
      return 'allowed';
    } catch (error) {
      return isApiError(error) ? error.code : `unexpected: ${String(error)}`;
    }
  };

  const strict = new OutboundGuard(false);
  const open = new OutboundGuard(true);

  it('refuses loopback literals, names that resolve to loopback, and metadata addresses', async () => {
    expect(await refusedCode(safeRequest(`http://127.0.0.1:${port}/ok`, strict, { timeoutMs: 2000 }))).toBe('url_not_allowed');
    expect(await refusedCode(safeRequest(`http://[::1]:${port}/ok`, strict, { timeoutMs: 2000 }))).toBe('url_not_allowed');
    expect(await refusedCode(safeRequest(`http://localhost:${port}/ok`, strict, { timeoutMs: 2000 }))).toBe('url_not_allowed');
    expect(await refusedCode(safeRequest('http://169.254.169.254/latest/meta-data/', strict, { timeoutMs: 2000 }))).toBe('url_not_allowed');
  });

  it('checks every redirect hop', async () => {
    // Only this test server's exact address is permitted; its redirects lead elsewhere.
    const onlyTestServer = new OutboundGuard(false, ['127.0.0.1/32']);
    const first = await safeRequest(`http://127.0.0.1:${port}/ok`, onlyTestServer, { timeoutMs: 2000 });
    expect(first.status).toBe(200);
    first.body.resume();
    expect(await refusedCode(safeRequest(`http://127.0.0.1:${port}/redirect-to-metadata`, onlyTestServer, { timeoutMs: 2000 }))).toBe('url_not_allowed');
    // A name is judged by what it resolves to: localhost may resolve to ::1, outside the range.
    const viaName = await refusedCode(safeRequest(`http://[::1]:${port}/ok`, onlyTestServer, { timeoutMs: 2000 }));
    expect(viaName).toBe('url_not_allowed');
  });

  it('follows redirects when private addresses are allowed, and stops loops', async () => {
    const response = await safeRequest(`http://localhost:${port}/redirect-to-loopback`, open, { timeoutMs: 2000 });
    expect(response.status).toBe(200);
    response.body.resume();
    expect(await refusedCode(safeRequest(`http://127.0.0.1:${port}/redirect-loop`, open, { timeoutMs: 2000, maxRedirects: 3 }))).toBe('upstream_error');
  });

  it('refuses schemes the caller did not allow', async () => {
    expect(await refusedCode(safeRequest(`http://127.0.0.1:${port}/ok`, open, { timeoutMs: 2000, allowedProtocols: ['https:'] }))).toBe('invalid_url');
    expect(await refusedCode(safeRequest('file:///etc/passwd', open, { timeoutMs: 2000 }))).toBe('invalid_url');
  });
});
