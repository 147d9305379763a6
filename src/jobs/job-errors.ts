import { isApiError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY, isErrorCode } from '../platform/errors/error-registry.js';
import { redactServerPaths } from '../platform/errors/path-redaction.js';
import { sizeLimitMessage } from '../platform/errors/size-limit.js';
import type { JobError } from '../platform/db/job-records.js';

/** The `error` object a failed job carries: the registry's type and code, and a message. */
export function jobErrorFrom(error: unknown): JobError {
  if (isApiError(error)) return { type: ERROR_REGISTRY[error.code].type, code: error.code, message: redactServerPaths(error.message) };
  const code = (error as { code?: unknown } | null)?.code;
  const limit = (error as { limit?: unknown } | null)?.limit;
  if (code === 'file_too_large' && typeof limit === 'number') {
    // The one size rule (see size-limit.ts) also holds for audio refused by the engine.
    return { type: ERROR_REGISTRY.payload_too_large.type, code: 'payload_too_large', message: sizeLimitMessage('The audio', limit) };
  }
  if (typeof code === 'string' && isErrorCode(code)) {
    return { type: ERROR_REGISTRY[code].type, code, message: redactServerPaths((error as Error).message || ERROR_REGISTRY[code].message) };
  }
  return { type: 'server_error', code: 'internal_error', message: 'The job failed because of an internal error.' };
}
