import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ApiError, isApiError } from '../errors/api-error.js';
import type { OutboundGuard } from './outbound-guard.js';

/** Cause of the error a request gets when its own timeout passes (see isRequestTimeout). */
const REQUEST_TIMEOUT = Symbol('request timeout');
const timedOut = (): ApiError => new ApiError('upstream_error', { message: 'The remote server did not answer in time.', cause: REQUEST_TIMEOUT });

/** True for the error of a request whose time limit passed before the answer's headers came. */
export function isRequestTimeout(error: unknown): boolean {
  return error instanceof ApiError && error.cause === REQUEST_TIMEOUT;
}

export interface SafeRequestOptions {
  readonly method?: 'GET' | 'HEAD' | 'POST' | 'PUT';
  readonly headers?: OutgoingHttpHeaders;
  readonly body?: string | Buffer;
  /** Whole exchange, from connect to the end of the response headers. */
  readonly timeoutMs: number;
  readonly maxRedirects?: number;
  /** false: a 3xx is returned to the caller as is (webhook deliveries never follow redirects). */
  readonly followRedirects?: boolean;
  /** Schemes the caller accepts, e.g. ['https:'] for webhooks. */
  readonly allowedProtocols?: readonly string[];
  readonly signal?: AbortSignal;
}

export interface SafeResponse {
  readonly url: URL;
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  /** The body stream; the caller must consume or destroy it. */
  readonly body: IncomingMessage;
}

/**
 * An outbound HTTP(S) request that follows redirects itself and checks every hop: the scheme,
 * literal IP hosts, and (through the guard's lookup) the resolved address of every connection.
 */
export async function safeRequest(input: string | URL, guard: OutboundGuard, options: SafeRequestOptions): Promise<SafeResponse> {
  const protocols = options.allowedProtocols ?? ['http:', 'https:'];
  const maxRedirects = options.maxRedirects ?? 5;
  let url = parseUrl(input);
  let method = options.method ?? 'GET';
  let body = options.body;
  const deadline = Date.now() + options.timeoutMs;
  for (let hop = 0; ; hop++) {
    if (!protocols.includes(url.protocol)) {
      throw new ApiError('invalid_url', { message: `URL scheme ${url.protocol} is not allowed here (${protocols.join(', ')}).`, param: 'url' });
    }
    guard.assertHostAllowed(url);
    const response = await requestOnce(url, guard, method, options.headers ?? {}, body, deadline - Date.now(), options.signal);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (options.followRedirects !== false && status >= 300 && status < 400 && status !== 304 && location !== undefined) {
      response.resume();
      if (hop >= maxRedirects) throw new ApiError('upstream_error', { message: `Too many redirects (more than ${maxRedirects}).`, param: 'url' });
      url = parseUrl(new URL(location, url));
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = 'GET';
        body = undefined;
      }
      continue;
    }
    return { url, status, headers: response.headers, body: response };
  }
}

function parseUrl(input: string | URL): URL {
  try {
    return input instanceof URL ? input : new URL(input);
  } catch {
    throw new ApiError('invalid_url', { message: `"${String(input)}" is not a valid URL.`, param: 'url' });
  }
}

function requestOnce(
  url: URL,
  guard: OutboundGuard,
  method: string,
  headers: OutgoingHttpHeaders,
  body: string | Buffer | undefined,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  if (timeoutMs <= 0) return Promise.reject(timedOut());
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // agent: false — a fresh connection per request, so every connection is resolved through this
    // guard (a pooled keep-alive socket could have been opened under another guard's rules).
    const req = send(url, { method, headers, agent: false, lookup: guard.lookup, timeout: timeoutMs, ...(signal ? { signal } : {}) }, resolve);
    const timer = setTimeout(() => req.destroy(timedOut()), timeoutMs);
    req.on('response', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(timedOut()));
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(isApiError(error) ? error : new ApiError('upstream_error', { message: `Request to ${url.host} failed: ${error.message}`, cause: error }));
    });
    if (body !== undefined) req.end(body);
    else req.end();
  });
}
