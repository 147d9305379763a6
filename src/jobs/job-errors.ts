import { asApiError, isEngineError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY } from '../platform/errors/error-registry.js';
import { redactServerPaths } from '../platform/errors/path-redaction.js';
import { sizeLimitMessage } from '../platform/errors/size-limit.js';
import type { JobError } from '../platform/db/job-records.js';

/** The `error` object a failed job carries: the registry's type and code, and a message. */
export function jobErrorFrom(error: unknown): JobError {
  const limit = (error as { limit?: unknown } | null)?.limit;
  if (isEngineError(error) && error.engineError === 'audio_too_large' && typeof limit === 'number') {
    // The one size rule (see size-limit.ts) also holds for audio refused by the engine.
    return { type: ERROR_REGISTRY.payload_too_large.type, code: 'payload_too_large', message: sizeLimitMessage('The audio', limit) };
  }
  const apiError = asApiError(error);
  if (apiError !== null) {
    return {
      type: ERROR_REGISTRY[apiError.code].type,
      code: apiError.code,
      message: redactServerPaths(apiError.message || ERROR_REGISTRY[apiError.code].message),
    };
  }
  return { type: 'server_error', code: 'internal_error', message: 'The job failed because of an internal error.' };
}
