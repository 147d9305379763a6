// Errors of the WebSocket surface: the `error` message (spec envelope, registry type and
// code), the close reason (at most 123 bytes), and any thrown value mapped to a registry code.
// Never a stack trace or a server path: unknown errors become `model_error`.
import { ApiError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY, type ErrorCode } from '../platform/errors/error-registry.js';
import type { ErrorMessage } from './ws-messages.js';

export function errorMessage(error: ApiError, closeCode: number | null): ErrorMessage {
  const def = ERROR_REGISTRY[error.code];
  return {
    type: 'error',
    error: {
      type: def.type,
      code: error.code,
      message: error.message,
      ...(error.param !== undefined ? { param: error.param } : {}),
      ...(error.retryAfter !== undefined ? { retry_after: Math.ceil(error.retryAfter) } : {}),
    },
    close_code: closeCode,
  };
}

/** `code: message`, cut to the 123 bytes a close frame's reason may hold. */
export function closeReason(error: ApiError): string {
  let reason = `${error.code}: ${error.message}`;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

/** A recognition failure as an ApiError: registry codes kept, anything else `model_error`. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_REGISTRY, code)) {
    return new ApiError(code as ErrorCode, { message: (error as Error).message });
  }
  return new ApiError('model_error');
}
