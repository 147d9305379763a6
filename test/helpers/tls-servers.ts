import { readFileSync, statSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT } from './spawn-dist.js';

export const TLS_DIR = join(REPO_ROOT, 'test', 'fixtures', 'tls');
export const MEDIA_DIR = join(REPO_ROOT, 'test', 'fixtures', 'media');

export interface RecordedRequest {
  readonly at: number;
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

export type Responder = (req: RecordedRequest, res: ServerResponse) => void;

export interface TestServer {
  readonly port: number;
  /** https://localhost:<port> (or http://127.0.0.1:<port>) */
  readonly origin: string;
  readonly requests: RecordedRequest[];
  respond: Responder;
  /** Resolves with the `count`-th recorded request (1-based), waiting up to `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

/**
 * A real HTTP or HTTPS server (certificate from the test CA, valid for localhost and
 * 127.0.0.1) that records every request with its raw body and answers through `respond`.
 */
export async function startTestServer(options: { tls: boolean; respond?: Responder }): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const waiters: (() => void)[] = [];
  const sockets = new Set<Socket>();
  const state = { respond: options.respond ?? ((_req: RecordedRequest, res: ServerResponse) => res.writeHead(200).end('ok')) };
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const recorded: RecordedRequest = { at: Date.now(), method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(recorded);
      for (const wake of waiters.splice(0)) wake();
      state.respond(recorded, res);
    });
  };
  const server: Server = options.tls
    ? createHttpsServer({ key: readFileSync(join(TLS_DIR, 'server-key.pem')), cert: readFileSync(join(TLS_DIR, 'server.pem')) }, handler)
    : createHttpServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: options.tls ? `https://localhost:${port}` : `http://127.0.0.1:${port}`,
    requests,
    get respond() {
      return state.respond;
    },
    set respond(value: Responder) {
      state.respond = value;
    },
    waitFor: (count, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`only ${requests.length} of ${count} requests arrived in ${timeoutMs} ms`)), timeoutMs);
        const check = (): void => {
          if (requests.length >= count) {
            clearTimeout(deadline);
            resolve(requests[count - 1]!);
          } else waiters.push(check);
        };
        check();
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Serves a fixture from test/fixtures/media with Range support (206/416), like a static file host. */
export function serveFixture(res: ServerResponse, name: string, range: string | undefined, contentType: string, method = 'GET'): void {
  const path = join(MEDIA_DIR, name);
  const size = statSync(path).size;
  const bytes = readFileSync(path);
  const match = range ? /^bytes=(\d*)-(\d*)$/.exec(range) : null;
  if (match && !(match[1] === '' && match[2] === '')) {
    const start = match[1] === '' ? Math.max(0, size - Number(match[2])) : Number(match[1]);
    const end = match[1] === '' || match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
    if (start >= size) {
      res.writeHead(416, { 'content-range': `bytes */${size}` }).end();
      return;
    }
    res.writeHead(206, {
      'content-type': contentType,
      'content-length': end - start + 1,
      'content-range': `bytes ${start}-${end}/${size}`,
      'accept-ranges': 'bytes',
    });
    res.end(method === 'HEAD' ? undefined : bytes.subarray(start, end + 1));
    return;
  }
  res.writeHead(200, { 'content-type': contentType, 'content-length': size, 'accept-ranges': 'bytes' });
  res.end(method === 'HEAD' ? undefined : bytes);
}
