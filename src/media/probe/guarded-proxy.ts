import { randomBytes } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ApiError, isApiError } from '../../platform/errors/api-error.js';
import { OutboundGuard } from '../../platform/net/outbound-guard.js';
import { safeRequest } from '../../platform/net/safe-http.js';

/** Request headers passed on to the remote server (everything else stays behind). */
const FORWARDED_REQUEST_HEADERS = ['range', 'accept', 'accept-encoding', 'icy-metadata', 'if-range'];
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'content-length', 'content-range', 'accept-ranges', 'last-modified', 'etag'];
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'proxy-authorization', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

/** What a proxy saw: the first refusal by the outbound guard and every remote answer. */
export interface ProxyLog {
  refused: ApiError | null;
  readonly statuses: number[];
  readonly errors: string[];
}

/**
 * A short-lived HTTP proxy on 127.0.0.1 through which probe tools (ffprobe, yt-dlp) reach the
 * network, so that the outbound guard applies to every connection they make (they would
 * otherwise resolve and connect on their own, past the private-network rules).
 *
 * - `mediaUrl`: a plain-http URL on the proxy standing for one remote media URL. Requests to
 *   it (GET/HEAD with Range) are fetched with `safeRequest`: Node verifies TLS, follows and
 *   checks redirects; the tool only ever talks plain HTTP to loopback.
 * - As a forward proxy (`proxyUrl`): absolute-form requests and CONNECT tunnels, each target
 *   resolved through the guard's lookup (literal addresses checked directly).
 *
 * Lifetime: one per probe; `close()` ends every open connection.
 */
export class GuardedProxy {
  readonly log: ProxyLog = { refused: null, statuses: [], errors: [] };
  private readonly token = randomBytes(16).toString('hex');
  private readonly sockets = new Set<Socket | Duplex>();
  private port = 0;

  private constructor(
    private readonly server: Server,
    private readonly guard: OutboundGuard,
    private readonly target: URL | null,
    private readonly options: { userAgent: string; timeoutMs: number; signal: AbortSignal },
  ) {}

  static async start(guard: OutboundGuard, target: URL | null, options: { userAgent: string; timeoutMs: number; signal: AbortSignal }): Promise<GuardedProxy> {
    const server = createServer();
    const proxy = new GuardedProxy(server, guard, target, options);
    server.on('request', (req, res) => void proxy.onRequest(req, res));
    server.on('connect', (req: IncomingMessage, socket: Duplex, head: Buffer) => proxy.onConnect(req, socket, head));
    server.on('connection', (socket: Socket) => {
      proxy.sockets.add(socket);
      socket.on('close', () => proxy.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    proxy.port = (server.address() as { port: number }).port;
    return proxy;
  }

  /** The URL a tool opens to read the target media. */
  get mediaUrl(): string {
    return `http://127.0.0.1:${this.port}/${this.token}`;
  }

  /** The forward-proxy address (`--proxy` of yt-dlp). */
  get proxyUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private refuse(error: ApiError): void {
    this.log.refused ??= error;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', this.proxyUrl);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const own = url.hostname === '127.0.0.1' && Number(url.port) === this.port;
    if (own && url.pathname === `/${this.token}` && this.target !== null) {
      await this.relayMedia(req, res, this.target);
    } else if (!own && url.protocol === 'http:') {
      this.forward(req, res, url);
    } else {
      res.writeHead(404).end();
    }
  }

  private async relayMedia(req: IncomingMessage, res: ServerResponse, target: URL): Promise<void> {
    const method = req.method === 'HEAD' ? 'HEAD' : 'GET';
    const headers: Record<string, string> = { 'user-agent': this.options.userAgent };
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstreamAbort = new AbortController();
    const onClientGone = (): void => upstreamAbort.abort();
    res.on('close', onClientGone);
    try {
      const response = await safeRequest(target, this.guard, {
        method,
        headers,
        timeoutMs: this.options.timeoutMs,
        signal: AbortSignal.any([this.options.signal, upstreamAbort.signal]),
      });
      this.log.statuses.push(response.status);
      const out: Record<string, string> = {};
      for (const name of FORWARDED_RESPONSE_HEADERS) {
        const value = response.headers[name];
        if (typeof value === 'string') out[name] = value;
      }
      res.writeHead(response.status, out);
      response.body.on('error', () => res.destroy());
      response.body.pipe(res);
    } catch (error) {
      if (isApiError(error) && error.code === 'url_not_allowed') {
        this.refuse(error);
        if (!res.headersSent) res.writeHead(403).end();
      } else {
        this.log.errors.push((error as Error).message);
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      }
    }
  }

  /** Absolute-form plain-HTTP proxying; redirects are the client's to follow (each one comes back here). */
  private forward(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !this.guard.addressAllowed(host)) {
      this.refuse(
        new ApiError('url_not_allowed', {
          message: `The media URL leads to ${host}, a private or loopback address. ${OutboundGuard.HOW_TO_ALLOW}`,
          param: 'url',
        }),
      );
      res.writeHead(403).end();
      return;
    }
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
    const upstream = httpRequest(url, { method: req.method, headers, agent: false, lookup: this.guard.lookup, timeout: this.options.timeoutMs }, (response) => {
      this.log.statuses.push(response.statusCode ?? 0);
      const out: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
      res.writeHead(response.statusCode ?? 502, out);
      response.pipe(res);
    });
    upstream.on('timeout', () => upstream.destroy(new Error('timed out')));
    upstream.on('error', (error) => {
      if (isApiError(error) && error.code === 'url_not_allowed') this.refuse(error);
      else this.log.errors.push(error.message);
      if (!res.headersSent) res.writeHead(isApiError(error) ? 403 : 502).end();
      else res.destroy();
    });
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  }

  /** CONNECT host:port tunnels (HTTPS through the proxy), guarded at lookup. */
  private onConnect(req: IncomingMessage, client: Duplex, head: Buffer): void {
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => undefined);
    const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(req.url ?? '');
    if (match === null) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const host = match[1]!;
    const port = Number(match[2]);
    if (isIP(host) !== 0 && !this.guard.addressAllowed(host)) {
      this.refuse(
        new ApiError('url_not_allowed', {
          message: `The media URL leads to ${host}, a private or loopback address. ${OutboundGuard.HOW_TO_ALLOW}`,
          param: 'url',
        }),
      );
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect({ host, port, lookup: this.guard.lookup, timeout: this.options.timeoutMs });
    this.sockets.add(upstream);
    upstream.on('close', () => this.sockets.delete(upstream));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      upstream.setTimeout(0);
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('timeout', () => upstream.destroy(new Error('connect timed out')));
    upstream.on('error', (error) => {
      if (connected) {
        client.destroy();
      } else if (isApiError(error) && error.code === 'url_not_allowed') {
        this.refuse(error);
        client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      } else {
        this.log.errors.push(error.message);
        client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      }
    });
  }
}
