import { ERROR_REGISTRY, type ErrorCode } from './error-registry.js';

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
