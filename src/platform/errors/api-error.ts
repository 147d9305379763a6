import { ENGINE_ERROR_CODES, ERROR_REGISTRY, type EngineErrorKind, type ErrorCode } from './error-registry.js';

/** One validation problem, in the job API's `{loc, msg, type}` shape. */
export interface ValidationIssue {
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly type: string;
}

export interface ApiErrorOptions {
  readonly message?: string;
  readonly param?: string;
  /** Seconds; rendered as `retry_after` and the Retry-After header. */
  readonly retryAfter?: number;
  readonly issues?: readonly ValidationIssue[];
  /** Replaces the job API's default `detail` string. */
  readonly detail?: string;
  readonly cause?: unknown;
}

/** An error a client sees. Its code decides status, type and close code via the registry. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly param: string | undefined;
  readonly retryAfter: number | undefined;
  readonly issues: readonly ValidationIssue[] | undefined;
  readonly detail: string | undefined;

  constructor(code: ErrorCode, options: ApiErrorOptions = {}) {
    super(options.message ?? ERROR_REGISTRY[code].message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.code = code;
    this.param = options.param;
    this.retryAfter = options.retryAfter;
    this.issues = options.issues;
    this.detail = options.detail;
  }

  get status(): number {
    return ERROR_REGISTRY[this.code].status;
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError;
}

/** What an engine error (src/engines/runtime/engine-error.ts) carries; platform reads it by shape, never importing the engines. */
export interface EngineErrorShape extends Error {
  readonly engineError: EngineErrorKind;
  readonly param?: string | undefined;
  readonly retryAfterSeconds?: number | undefined;
}

export function isEngineError(value: unknown): value is EngineErrorShape {
  const kind = (value as { engineError?: unknown } | null)?.engineError;
  return value instanceof Error && typeof kind === 'string' && Object.hasOwn(ENGINE_ERROR_CODES, kind);
}

/**
 * The client-facing error of a thrown value: an ApiError as it is, an engine error through
 * ENGINE_ERROR_CODES (its message and param kept), anything else null (the caller decides:
 * usually `internal_error` or `model_error`, never the raw message).
 */
export function asApiError(error: unknown): ApiError | null {
  if (isApiError(error)) return error;
  if (!isEngineError(error)) return null;
  return new ApiError(ENGINE_ERROR_CODES[error.engineError], {
    message: error.message,
    ...(error.param !== undefined ? { param: error.param } : {}),
    ...(error.retryAfterSeconds !== undefined ? { retryAfter: error.retryAfterSeconds } : {}),
    cause: error,
  });
}
