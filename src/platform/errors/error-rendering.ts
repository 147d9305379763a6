import { ApiError } from './api-error.js';
import { ERROR_REGISTRY } from './error-registry.js';
import { redactServerPaths } from './path-redaction.js';

/** Which error envelope a surface speaks: the unified API's, the job API's, or OpenAI's (`/v1/audio/*`, `/v1/models`). */
export type ErrorSurface = 'unified' | 'job' | 'openai';

export interface RenderedError {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;
}

/** Unified API: `{error: {type, code, message, param?, retry_after?}}`. */
export function renderUnifiedError(error: ApiError): RenderedError {
  const def = ERROR_REGISTRY[error.code];
  const body: Record<string, unknown> = { type: def.type, code: error.code, message: redactServerPaths(error.message) };
  if (error.param !== undefined) body['param'] = error.param;
  if (error.retryAfter !== undefined) body['retry_after'] = error.retryAfter;
  return { status: def.status, body: { error: body }, headers: retryHeaders(error) };
}

/** Job API: `{detail: string}`, or `{detail: [{loc, msg, type}]}` for 422 validation errors. */
export function renderJobApiError(error: ApiError): RenderedError {
  const def = ERROR_REGISTRY[error.code];
  if (error.issues !== undefined && error.issues.length > 0) {
    return { status: 422, body: { detail: error.issues }, headers: {} };
  }
  const status = def.jobApi?.status ?? def.status;
  const detail = redactServerPaths(error.detail ?? def.jobApi?.detail ?? error.message);
  return { status, body: { detail }, headers: retryHeaders(error) };
}

/**
 * OpenAI-compatible routes: `{error: {message, type, param, code}}` (param null when none), as
 * OpenAI's API and clients have it. Statuses are the registry's, except that 422 (validation,
 * unsupported language or model) is 400, which OpenAI answers for any invalid request (its
 * clients raise BadRequestError). 429 and 503 carry Retry-After.
 */
export function renderOpenAiError(error: ApiError): RenderedError {
  const def = ERROR_REGISTRY[error.code];
  const status = def.status === 422 ? 400 : def.status;
  const body = { message: redactServerPaths(error.message), type: def.type, param: error.param ?? null, code: error.code };
  return { status, body: { error: body }, headers: retryHeaders(error) };
}

export function renderError(surface: ErrorSurface, error: ApiError): RenderedError {
  if (surface === 'openai') return renderOpenAiError(error);
  return surface === 'job' ? renderJobApiError(error) : renderUnifiedError(error);
}

function retryHeaders(error: ApiError): Record<string, string> {
  return error.retryAfter === undefined ? {} : { 'Retry-After': String(Math.max(0, Math.ceil(error.retryAfter))) };
}

/** Close code and reason for ending a WebSocket session with this error (reason ≤ 123 bytes). */
export function websocketClose(error: ApiError): { code: number; reason: string } {
  const def = ERROR_REGISTRY[error.code];
  const code = def.wsClose ?? 1011;
  let reason = `${error.code}: ${redactServerPaths(error.message)}`;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return { code, reason };
}
