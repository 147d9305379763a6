// Errors of the WebSocket surface: the `error` message (spec envelope, registry type and
// code), the close reason (at most 123 bytes), audio that cannot be read, and any thrown value
// mapped to a registry code.
// Never a stack trace or a server path: unknown errors become `model_error`.
import { ApiError, asApiError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY } from '../platform/errors/error-registry.js';
import type { StreamFormat } from '../engines/signal/signal.js';
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

/** `invalid_audio_data` for audio in `format` that could not be read (the session goes on). */
export function audioDataError(problem: string, format: StreamFormat): ApiError {
  return new ApiError('invalid_audio_data', { message: `${capitalize(problem)} (format ${format}).` });
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}

/** A recognition failure as an ApiError: ApiErrors kept, engine errors mapped by the registry, anything else `model_error`. */
export function toApiError(error: unknown): ApiError {
  return asApiError(error) ?? new ApiError('model_error');
}
