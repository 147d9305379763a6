import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import type { SizeLimit } from '../errors/size-limit.js';
import { RequestBodyStream } from './request-body-stream.js';
import type { Uws } from './uws.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/**
 * A response decided before the request body has fully arrived (401, 413, 415, ...) is held
 * back while the rest of the body is read and dropped, so that clients which write the whole
 * body before reading (Node's http and fetch, Python's urllib) get the answer instead of a
 * reset. Past this many body bytes (or a declared Content-Length above it) the answer is sent
 * at once with `Connection: close`.
 */
export const EARLY_ANSWER_DRAIN_BYTES = 64 * 1024 * 1024;

export interface ExchangeOptions {
  readonly trustProxy: boolean;
  /** Hard cap on request body bytes for this route; larger bodies fail with payload_too_large. */
  readonly maxBodyBytes: number;
  /** The limit the 413 names; default `maxBodyBytes`. */
  readonly sizeLimit?: SizeLimit;
}

/**
 * One HTTP request/response on uWebSockets.js.
 *
 * Lifetimes: `req` is valid only inside the synchronous route callback, so everything is read
 * from it in the constructor. `res` is valid until it is ended or aborted; every write after
 * an await goes through `cork`, and nothing is written once `aborted` is set.
 */
export class HttpExchange {
  readonly method: string;
  readonly url: string;
  /** The request path as sent (not percent-decoded). */
  readonly path: string;
  /** The query string as sent, without `?`. */
  readonly rawQuery: string;
  readonly query: URLSearchParams;
  readonly headers: ReadonlyMap<string, string>;
  readonly params: readonly string[];
  readonly requestId: string;
  readonly startedAt = process.hrtime.bigint();
  private abortController: AbortController | null = null;
  private isAborted = false;
  private address: string | null = null;
  private readonly responseHeaders: [string, string][] = [];
  /** The response is decided: nothing else may be sent. */
  private finished = false;
  /** uWS's response is ended (or aborted): `res` must not be touched any more. */
  private resEnded = false;
  private bodyStream: RequestBodyStream | null = null;
  status = 0;

  constructor(
    private readonly res: Uws.HttpResponse,
    req: Uws.HttpRequest,
    paramCount: number,
    options: ExchangeOptions,
  ) {
    this.method = req.getCaseSensitiveMethod().toUpperCase();
    this.path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    this.rawQuery = rawQuery;
    this.url = rawQuery ? `${this.path}?${rawQuery}` : this.path;
    this.query = new URLSearchParams(rawQuery);
    const headers = new Map<string, string>();
    req.forEach((key, value) => headers.set(key, value));
    this.headers = headers;
    const params: string[] = [];
    for (let i = 0; i < paramCount; i++) params.push(safeDecode(req.getParameter(i)));
    this.params = params;
    this.requestId = headers.get('x-request-id')?.slice(0, 128) || randomUUID();
    this.trustProxy = options.trustProxy;
    res.onAborted(() => {
      this.finished = true;
      this.resEnded = true;
      this.isAborted = true;
      this.abortController?.abort(new Error('client aborted the request'));
      this.bodyStream?.destroy(new Error('client aborted the request'));
    });
    if (BODY_METHODS.has(this.method)) {
      // Data that arrives with the headers is delivered right after this callback returns,
      // so the body handler is attached now and buffers into a bounded stream.
      const limit = options.sizeLimit ?? { bytes: options.maxBodyBytes, subject: 'The request body' };
      this.bodyStream = new RequestBodyStream(res, options.maxBodyBytes, limit, () => this.resEnded);
      res.onData((chunk, isLast) => this.bodyStream?.pushChunk(chunk, isLast));
    }
  }

  private readonly trustProxy: boolean;

  get aborted(): boolean {
    return this.isAborted;
  }

  /** Aborts when the client goes away. Created on first use: most requests never need one. */
  get signal(): AbortSignal {
    if (this.abortController === null) {
      this.abortController = new AbortController();
      if (this.isAborted) this.abortController.abort(new Error('client aborted the request'));
    }
    return this.abortController.signal;
  }

  /**
   * The client's address (X-Forwarded-For's first entry behind a trusted proxy). Read from the
   * socket on first use, which must come before the response ends; later reads use the copy.
   */
  get remoteAddress(): string {
    if (this.address === null) {
      this.address = this.resEnded ? '' : clientAddress(this.res, this.headers, this.trustProxy);
    }
    return this.address;
  }

  get responded(): boolean {
    return this.finished;
  }

  header(name: string): string | undefined {
    return this.headers.get(name.toLowerCase());
  }

  /** Media type of the request body, lower-case, without parameters. */
  get contentType(): string {
    return (this.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  }

  get contentLength(): number | null {
    const raw = this.header('content-length');
    if (raw === undefined || !/^\d+$/.test(raw)) return null;
    return Number(raw);
  }

  /** The request body as a stream. Chunks are copies owned by the stream's reader. */
  body(): Readable {
    if (this.bodyStream === null) return Readable.from([]);
    return this.bodyStream;
  }

  /** True once every byte of the request body has been received (or there is none). */
  get bodyComplete(): boolean {
    return this.bodyStream === null || this.bodyStream.complete;
  }

  setHeader(name: string, value: string): void {
    const lower = name.toLowerCase();
    const existing = this.responseHeaders.findIndex(([n]) => n.toLowerCase() === lower);
    if (existing >= 0) this.responseHeaders.splice(existing, 1);
    this.responseHeaders.push([name, value]);
  }

  /**
   * Ends the response with a body. A no-op once the client is gone. When the request body is
   * still arriving, the answer waits until it has been read and dropped (see
   * EARLY_ANSWER_DRAIN_BYTES), then goes out on a connection that stays open.
   */
  send(status: number, body: string | Buffer | Uint8Array = '', contentType?: string): void {
    if (this.finished) return;
    this.finished = true;
    this.status = status;
    this.whenBodyDrained((closeConnection) => {
      this.writeHead(status, contentType);
      if (status === 204 || status === 304) this.res.endWithoutBody(0, closeConnection);
      else this.res.end(body, closeConnection);
    });
  }

  /**
   * Runs `write` (corked) once the request body is complete, or at once with `close` set when
   * the body is larger than the drain bound. `write` must end the response.
   */
  private whenBodyDrained(write: (closeConnection: boolean) => void): void {
    const finish = (closeConnection: boolean): void => {
      if (this.resEnded) return;
      this.resEnded = true;
      this.res.cork(() => write(closeConnection));
    };
    const stream = this.bodyStream;
    if (stream === null || stream.complete) {
      stream?.discard();
      finish(false);
      return;
    }
    const declared = this.contentLength;
    if (declared !== null && declared > EARLY_ANSWER_DRAIN_BYTES) {
      stream.discard();
      finish(true);
      return;
    }
    stream.drain(EARLY_ANSWER_DRAIN_BYTES, finish);
  }

  sendJson(status: number, value: unknown): void {
    this.send(status, JSON.stringify(value), 'application/json; charset=utf-8');
  }

  redirect(location: string, status = 302): void {
    this.setHeader('Location', location);
    this.send(status);
  }

  /** Headers only (HEAD): reports the length the body would have. */
  sendHead(status: number, contentLength: number, contentType?: string): void {
    if (this.finished) return;
    this.finished = true;
    this.status = status;
    this.whenBodyDrained((closeConnection) => {
      this.writeHead(status, contentType);
      this.res.endWithoutBody(contentLength, closeConnection);
    });
  }

  /**
   * Streams `totalSize` bytes from `source`, honouring backpressure: when uWS cannot take a
   * chunk, the source pauses until `onWritable` drains the remainder.
   */
  async sendStream(status: number, source: Readable, totalSize: number, contentType: string): Promise<void> {
    if (this.finished) {
      source.destroy();
      return;
    }
    this.status = status;
    let headersWritten = false;
    await new Promise<void>((resolve, reject) => {
      const finish = (error?: Error): void => {
        source.destroy();
        this.finished = true;
        this.resEnded = true;
        if (error) reject(error);
        else resolve();
      };
      this.signal.addEventListener('abort', () => finish(), { once: true });
      if (totalSize === 0) {
        this.res.cork(() => {
          this.writeHead(status, contentType);
          this.res.end();
        });
        finish();
        return;
      }
      source.on('error', (error) => {
        if (!this.finished) this.res.close();
        finish(error);
      });
      source.on('data', (chunk: Buffer) => {
        if (this.aborted) return;
        const chunkStart = this.res.getWriteOffset();
        let ok = false;
        let done = false;
        this.res.cork(() => {
          if (!headersWritten) {
            this.writeHead(status, contentType);
            headersWritten = true;
          }
          [ok, done] = this.res.tryEnd(chunk, totalSize);
        });
        if (done) {
          finish();
          return;
        }
        if (!ok) {
          source.pause();
          this.res.onWritable((offset) => {
            if (this.aborted) return true;
            const rest = chunk.subarray(offset - chunkStart);
            let wrote = false;
            let ended = false;
            this.res.cork(() => {
              [wrote, ended] = this.res.tryEnd(rest, totalSize);
            });
            if (ended) finish();
            else if (wrote) source.resume();
            return wrote;
          });
        }
      });
      source.on('end', () => {
        if (!this.finished && !this.aborted) {
          // The source ended short of totalSize: the response cannot be completed honestly.
          this.res.close();
          finish(new Error(`stream ended before ${totalSize} bytes`));
        }
      });
    });
  }

  elapsedMs(): number {
    return Number(process.hrtime.bigint() - this.startedAt) / 1e6;
  }

  private writeHead(status: number, contentType?: string): void {
    this.res.writeStatus(`${status} ${STATUS_CODES[status] ?? ''}`);
    if (contentType !== undefined) this.res.writeHeader('Content-Type', contentType);
    // Every response is what its Content-Type says: browsers must not sniff another type from it.
    this.res.writeHeader('X-Content-Type-Options', 'nosniff');
    this.res.writeHeader('X-Request-Id', this.requestId);
    for (const [name, value] of this.responseHeaders) this.res.writeHeader(name, value);
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

function clientAddress(res: Uws.HttpResponse, headers: ReadonlyMap<string, string>, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = headers.get('x-forwarded-for');
    if (forwarded) return forwarded.split(',')[0]!.trim();
  }
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}
