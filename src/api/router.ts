import type { TSchema } from '@sinclair/typebox';
import type { Logger } from 'pino';
import type { Principal } from '../platform/auth/principal.js';
import { ApiError, asApiError } from '../platform/errors/api-error.js';
import { sizeLimitExceeded } from '../platform/errors/size-limit.js';
import { renderError, type ErrorSurface } from '../platform/errors/error-rendering.js';
import type { HttpMetrics } from '../platform/metrics/http-metrics.js';
import { readFormBody, readJsonBody } from '../platform/http/body-readers.js';
import { HttpExchange } from '../platform/http/http-exchange.js';
import type { HttpMethod, Reply, RequestContext, RouteDefinition } from '../platform/http/route-types.js';
import { responseProblems, validateInput } from '../platform/http/schema-validation.js';
import type { Uws } from '../platform/http/uws.js';

/** Authentication and rate limiting, applied by the router before a handler runs. */
export interface RequestGuard {
  /** Resolves the caller for keyed routes; throws ApiError for a missing or refused key. */
  authenticate(route: RouteDefinition, exchange: HttpExchange, formKey: string | undefined): Promise<Principal | null>;
  /** Counts the request and sets X-RateLimit-* headers; throws rate_limit_exceeded when over. */
  limit(route: RouteDefinition, exchange: HttpExchange, principal: Principal | null): Promise<void>;
}

export interface RouterOptions {
  readonly logger: Logger;
  readonly guard: RequestGuard;
  readonly metrics: HttpMetrics | null;
  readonly trustProxy: boolean;
  readonly maxJsonBodyBytes: number;
  readonly corsAllowedOrigins: readonly string[];
  /** Checks every JSON response against its declared schema (tests turn this on). */
  readonly validateResponses: boolean;
}

interface PathEntry {
  readonly uwsPattern: string;
  readonly paramNames: readonly string[];
  readonly byMethod: Map<string, RouteDefinition>;
}

/** OpenAPI path `/v1/jobs/{job_id}` → uWS pattern `/v1/jobs/:job_id` plus parameter names. */
export function toUwsPattern(path: string): { pattern: string; paramNames: string[] } {
  const paramNames: string[] = [];
  const pattern = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    paramNames.push(name);
    return `:${name}`;
  });
  return { pattern, paramNames };
}

export class Router {
  private readonly paths = new Map<string, PathEntry>();
  private readonly ordered: RouteDefinition[] = [];
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  /** Requests between their first byte and their response. */
  get activeRequests(): number {
    return this.inFlight;
  }

  /** Resolves once no request is in flight, or after `timeoutMs`; returns whether it drained. */
  drain(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private track<T>(work: Promise<T>): void {
    this.inFlight++;
    void work.finally(() => {
      this.inFlight--;
      if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    });
  }

  add(...routes: RouteDefinition[]): this {
    for (const route of routes) {
      const { pattern, paramNames } = toUwsPattern(route.path);
      let entry = this.paths.get(pattern);
      if (entry === undefined) {
        entry = { uwsPattern: pattern, paramNames, byMethod: new Map() };
        this.paths.set(pattern, entry);
      }
      if (entry.byMethod.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`);
      entry.byMethod.set(route.method, route);
      this.ordered.push(route);
    }
    return this;
  }

  get routes(): readonly RouteDefinition[] {
    return this.ordered;
  }

  mount(app: Uws.TemplatedApp, options: RouterOptions): void {
    for (const entry of this.paths.values()) {
      app.any(entry.uwsPattern, (res, req) => {
        const method = req.getCaseSensitiveMethod().toUpperCase();
        const route = entry.byMethod.get(method) ?? (method === 'HEAD' ? entry.byMethod.get('GET') : undefined);
        const exchange = new HttpExchange(res, req, entry.paramNames.length, {
          trustProxy: options.trustProxy,
          maxBodyBytes: route?.maxBodyBytes ?? options.maxJsonBodyBytes,
          ...(route?.sizeLimit === undefined ? {} : { sizeLimit: route.sizeLimit }),
        });
        applyCors(exchange, options.corsAllowedOrigins);
        if (refuseLongUrl(exchange, [...entry.byMethod.values()][0]?.surface ?? 'unified', options)) return;
        if (method === 'OPTIONS') {
          answerPreflight(exchange, [...entry.byMethod.keys()]);
          return;
        }
        if (route === undefined) {
          const surface = [...entry.byMethod.values()][0]?.surface ?? 'unified';
          exchange.setHeader('Allow', [...entry.byMethod.keys()].join(', '));
          sendError(
            exchange,
            surface,
            new ApiError('method_not_allowed', {
              message: `Method ${method} is not allowed on ${exchange.path}. Allowed: ${[...entry.byMethod.keys()].join(', ')}.`,
            }),
            options,
          );
          return;
        }
        this.track(runRoute(route, entry, exchange, options));
      });
    }
    app.any('/*', (res, req) => {
      const exchange = new HttpExchange(res, req, 0, { trustProxy: options.trustProxy, maxBodyBytes: 0 });
      applyCors(exchange, options.corsAllowedOrigins);
      const surface: ErrorSurface = /^\/(transcribe|translate)(\/|$)/.test(exchange.path)
        ? 'job'
        : /^\/v1\/(audio|models)(\/|$)/.test(exchange.path)
          ? 'openai'
          : 'unified';
      if (refuseLongUrl(exchange, surface, options)) return;
      if (exchange.method === 'OPTIONS') {
        exchange.send(204);
        return;
      }
      if (exchange.query.has('sig')) {
        // A signed link whose path was altered (dot segments, extra segments) matches no route:
        // it is refused as a signed link, not reported as a missing endpoint.
        sendError(exchange, surface, new ApiError('invalid_signature'), options);
        return;
      }
      sendError(
        exchange,
        surface,
        new ApiError('resource_not_found', {
          message: `No endpoint ${exchange.method} ${exchange.path}. See GET / for the list of endpoints.`,
        }),
        options,
      );
    });
  }
}

async function runRoute(route: RouteDefinition, entry: PathEntry, exchange: HttpExchange, options: RouterOptions): Promise<void> {
  const log = lazyChild(options.logger, exchange.requestId);
  let principal: Principal | null = null;
  try {
    let body: unknown;
    let bodyKind: RequestContext['bodyKind'] = 'none';
    const params = validateInput<Record<string, string>>(
      route.params ?? EMPTY_OBJECT,
      Object.fromEntries(entry.paramNames.map((name, i) => [name, exchange.params[i]!])),
      'path',
    );
    const readBody = async (): Promise<void> => {
      ({ body, bodyKind } = await parseBody(route, exchange, options.maxJsonBodyBytes));
    };
    if (route.auth === 'form-key') await readBody();
    const formKey = (body as Record<string, unknown> | undefined)?.['key'];
    try {
      principal = await options.guard.authenticate(route, exchange, typeof formKey === 'string' ? formKey : undefined);
    } catch (authError) {
      // Refused credentials count against the caller's address, so guessing keys is rate limited too.
      await options.guard.limit(route, exchange, null);
      throw authError;
    }
    await options.guard.limit(route, exchange, principal);
    const query = validateInput<Record<string, unknown>>(route.query ?? EMPTY_OBJECT, queryObject(exchange.query, route.query), 'query');
    if (route.auth !== 'form-key') await readBody();
    const reply = await route.handler({ exchange, params, query, body, bodyKind, principal, log, signal: exchange.signal });
    if (reply !== undefined) sendReply(route, exchange, reply, options, log);
    else if (!exchange.responded) throw new Error(`handler for ${route.method} ${route.path} sent no response`);
  } catch (error) {
    if (asApiError(error) === null) log.error({ err: error, route: `${route.method} ${route.path}` }, 'request failed');
    sendError(exchange, route.surface, error, options);
  } finally {
    finishRequest(route, exchange, principal, options, log);
  }
}

const EMPTY_OBJECT = { type: 'object' } as unknown as TSchema;

/**
 * The longest request target (path and query) served: longer ones are 414. uWebSockets.js
 * v20.30 itself resets a request whose header block does not arrive in one read (from 100-200 KB
 * on loopback, e.g. a 1 MB query string) before the router sees it (README, "Validation").
 */
export const MAX_URL_BYTES = 8192;

function refuseLongUrl(exchange: HttpExchange, surface: ErrorSurface, options: Pick<RouterOptions, 'logger'>): boolean {
  if (exchange.url.length <= MAX_URL_BYTES) return false;
  sendError(
    exchange,
    surface,
    new ApiError('uri_too_long', {
      message: `The request URL is ${exchange.url.length} bytes; at most ${MAX_URL_BYTES} are accepted. Send large inputs in the request body.`,
    }),
    options,
  );
  return true;
}

async function parseBody(
  route: RouteDefinition,
  exchange: HttpExchange,
  maxJsonBodyBytes: number,
): Promise<{ body: unknown; bodyKind: RequestContext['bodyKind'] }> {
  const spec = route.body;
  if (spec === undefined) return { body: undefined, bodyKind: 'none' };
  const type = exchange.contentType;
  const limit = route.maxBodyBytes ?? maxJsonBodyBytes;
  const expectJson = spec.kind === 'json' || spec.kind === 'json-or-multipart';
  if (expectJson && (type === 'application/json' || type.endsWith('+json'))) {
    const schema = spec.kind === 'json' ? spec.schema : spec.kind === 'json-or-multipart' ? spec.json : EMPTY_OBJECT;
    const raw = await readJsonBody(exchange, Math.min(limit, maxJsonBodyBytes));
    return { body: validateInput(schema, raw, 'body'), bodyKind: 'json' };
  }
  const declared = exchange.contentLength;
  const streamed = ((spec.kind === 'multipart' || spec.kind === 'json-or-multipart') && type === 'multipart/form-data') || spec.kind === 'raw';
  if (streamed && declared !== null && declared > limit) {
    const named = route.sizeLimit ?? { bytes: limit, subject: 'The request body' };
    throw sizeLimitExceeded(named.subject, named.bytes, named.param);
  }
  if ((spec.kind === 'multipart' || spec.kind === 'json-or-multipart') && type === 'multipart/form-data') {
    return { body: undefined, bodyKind: 'multipart' };
  }
  if (spec.kind === 'form' && type === 'application/x-www-form-urlencoded') {
    const raw = await readFormBody(exchange, limit);
    return { body: validateInput(spec.schema, raw, 'body'), bodyKind: 'form' };
  }
  if (spec.kind === 'raw') return { body: undefined, bodyKind: 'raw' };
  const accepted =
    spec.kind === 'json'
      ? 'application/json'
      : spec.kind === 'form'
        ? 'application/x-www-form-urlencoded'
        : spec.kind === 'multipart'
          ? 'multipart/form-data'
          : 'application/json or multipart/form-data';
  throw new ApiError('unsupported_content_type', {
    message: `Content-Type ${type || '(none)'} is not accepted here; send ${accepted}.`,
    param: 'Content-Type',
  });
}

/** Query strings to an object: parameters the schema declares as arrays collect repeats. */
function queryObject(query: URLSearchParams, schema: TSchema | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema as { properties?: Record<string, { type?: string }> } | undefined)?.properties ?? {};
  for (const [name, value] of query) {
    if (properties[name]?.type === 'array') ((out[name] ??= []) as string[]).push(value);
    else if (!(name in out)) out[name] = value;
  }
  return out;
}

function sendReply(route: RouteDefinition, exchange: HttpExchange, reply: Reply, options: RouterOptions, log: Logger): void {
  for (const [name, value] of Object.entries(reply.headers ?? {})) exchange.setHeader(name, value);
  if (reply.body === undefined) {
    exchange.send(reply.status);
    return;
  }
  const spec = route.responses[reply.status];
  if (options.validateResponses) {
    if (spec === undefined) throw new Error(`${route.method} ${route.path} answered undeclared status ${reply.status}`);
    if (spec.schema !== undefined) {
      const problems = responseProblems(spec.schema, reply.body);
      if (problems.length > 0) {
        log.error({ problems, route: route.path }, 'response does not match its schema');
        throw new Error(`response of ${route.method} ${route.path} does not match its schema: ${problems.join('; ')}`);
      }
    }
  }
  if (typeof reply.body === 'string' || Buffer.isBuffer(reply.body)) {
    exchange.send(reply.status, reply.body, spec?.contentType ?? 'text/plain; charset=utf-8');
  } else {
    exchange.sendJson(reply.status, reply.body);
  }
}

export function sendError(
  exchange: HttpExchange,
  surface: ErrorSurface,
  error: unknown,
  options: Pick<RouterOptions, 'logger'> & { readonly metrics?: HttpMetrics | null },
): void {
  if (exchange.responded) return;
  const apiError = asApiError(error) ?? new ApiError('internal_error');
  const rendered = renderError(surface, apiError);
  options.metrics?.error(rendered.status, apiError.code);
  for (const [name, value] of Object.entries(rendered.headers)) exchange.setHeader(name, value);
  exchange.sendJson(rendered.status, rendered.body);
  if (!(error instanceof Error)) options.logger.error({ err: error }, 'non-error thrown');
}

function finishRequest(route: RouteDefinition, exchange: HttpExchange, principal: Principal | null, options: RouterOptions, log: Logger): void {
  const ms = exchange.elapsedMs();
  options.metrics?.observe(route.method, route.path, exchange.status, ms / 1000);
  if (!options.logger.isLevelEnabled('info')) return;
  log.info(
    { method: exchange.method, path: exchange.path, route: route.path, status: exchange.status, ms: Math.round(ms * 10) / 10, keyId: principal?.key.id },
    'request',
  );
}

function applyCors(exchange: HttpExchange, allowed: readonly string[]): void {
  const origin = exchange.header('origin');
  if (origin === undefined) return;
  if (allowed.includes('*') || allowed.includes(origin)) {
    exchange.setHeader('Access-Control-Allow-Origin', origin);
    exchange.setHeader('Vary', 'Origin');
    exchange.setHeader('Access-Control-Expose-Headers', 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After, X-Request-Id, Location');
  }
}

function answerPreflight(exchange: HttpExchange, methods: string[]): void {
  exchange.setHeader('Access-Control-Allow-Methods', [...methods, 'OPTIONS'].join(', '));
  exchange.setHeader('Access-Control-Allow-Headers', 'Authorization, X-API-Key, Content-Type, X-Request-Id');
  exchange.setHeader('Access-Control-Max-Age', '600');
  exchange.send(204);
}

export type { HttpMethod };

/** A per-request logger created only if the request logs something beyond its summary line. */
function lazyChild(logger: Logger, requestId: string): Logger {
  let child: Logger | null = null;
  const get = (): Logger => (child ??= logger.child({ reqId: requestId }));
  return new Proxy({} as Logger, { get: (_target, property) => Reflect.get(get(), property, get()) });
}
