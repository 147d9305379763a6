import { isApiError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY, isErrorCode } from '../platform/errors/error-registry.js';
import type { JobError } from '../platform/db/job-records.js';

/** The `error` object a failed job carries: the registry's type and code, and a message. */
export function jobErrorFrom(error: unknown): JobError {
  if (isApiError(error)) return { type: ERROR_REGISTRY[error.code].type, code: error.code, message: error.message };
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && isErrorCode(code)) {
    return { type: ERROR_REGISTRY[code].type, code, message: (error as Error).message || ERROR_REGISTRY[code].message };
  }
  return { type: 'server_error', code: 'internal_error', message: 'The job failed because of an internal error.' };
}
