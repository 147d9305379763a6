import type { Static, TSchema } from '@sinclair/typebox';
import type { Logger } from 'pino';
import type { Principal, Scope } from '../auth/principal.js';
import type { ErrorSurface } from '../errors/error-rendering.js';
import type { SizeLimit } from '../errors/size-limit.js';
import type { HttpExchange } from './http-exchange.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a route finds its caller:
 * - `bearer`: `Authorization: Bearer <key>` (unified API)
 * - `x-api-key`: `X-API-Key: <key>` (job API)
 * - `form-key`: the form field `key` (text translation)
 * - `signed`: the URL carries its own signature (checked by the handler)
 * - `none`: public
 */
export type AuthMode = 'none' | 'bearer' | 'x-api-key' | 'form-key' | 'signed';

export type BodySpec<B extends TSchema = TSchema> =
  | { readonly kind: 'json'; readonly schema: B }
  | { readonly kind: 'form'; readonly schema: B }
  /** Streamed; the handler reads it with readMultipart. `schema` documents the fields. */
  | { readonly kind: 'multipart'; readonly schema: TSchema }
  /** JSON or multipart; the handler sees which through `ctx.bodyKind`. */
  | { readonly kind: 'json-or-multipart'; readonly json: B; readonly multipart: TSchema }
  /** Raw bytes streamed to the handler (e.g. a signed upload PUT). */
  | { readonly kind: 'raw'; readonly description: string };

export interface ResponseSpec {
  readonly description: string;
  readonly schema?: TSchema;
  /** Defaults to application/json when a schema is given. */
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
  /** Plain-text content types the same status may answer with instead (the handler sends those itself). */
  readonly alsoText?: readonly string[];
}

export interface Reply {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export interface RequestContext<P = Record<string, string>, Q = Record<string, unknown>, B = unknown> {
  readonly exchange: HttpExchange;
  readonly params: P;
  readonly query: Q;
  /** Parsed and validated body for json/form (and json-or-multipart when JSON was sent). */
  readonly body: B;
  readonly bodyKind: 'none' | 'json' | 'form' | 'multipart' | 'raw';
  /** Non-null on every route whose auth is bearer, x-api-key or form-key. */
  readonly principal: Principal | null;
  readonly log: Logger;
  readonly signal: AbortSignal;
}

export interface RouteDefinition<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema> {
  readonly method: HttpMethod;
  /** OpenAPI style path: `/v1/transcriptions/{job_id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly surface: ErrorSurface;
  readonly auth: AuthMode;
  readonly scope?: Scope;
  /** Left out of /openapi.json, /llms.txt and the root listing. */
  readonly hidden?: boolean;
  /**
   * Counted against the caller's request rate limit; default true, `'report'` for signed URLs.
   * `'report'`: never counted nor refused, but the response carries the caller's X-RateLimit-*
   * figures (per client address), as every response does.
   */
  readonly rateLimited?: boolean | 'report';
  readonly params?: P;
  readonly query?: Q;
  readonly body?: BodySpec<B>;
  /** Request body cap for this route; defaults to the JSON body limit. */
  readonly maxBodyBytes?: number;
  /**
   * The configured limit a 413 names (and the OpenAPI document states) for a body over
   * `maxBodyBytes`; multipart framing may take a body past it up to that cap. Default: the cap.
   */
  readonly sizeLimit?: SizeLimit;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  readonly handler: (ctx: RequestContext<Static<P>, Static<Q>, Static<B>>) => Promise<Reply | void>;
}

/** Identity function that keeps the generic parameters for handler typing. */
export function defineRoute<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema>(
  route: RouteDefinition<P, Q, B>,
): RouteDefinition {
  return route as unknown as RouteDefinition;
}
