// The one error type every engine throws for what a caller did or must wait for. It names a kind
// of the engines' vocabulary (ENGINE_ERROR_CODES in the error registry), never an HTTP status or
// code: the API, job and WebSocket layers map kinds to the spec's envelope (asApiError).
// Messages are for clients: no server paths, keys or stack traces (a tool's own words go in `detail`).
import type { EngineErrorKind } from '../../platform/errors/error-registry.js';

export type { EngineErrorKind };

export interface EngineErrorOptions {
  /** The request field at fault, when there is one. */
  readonly param?: string;
  /** Seconds until a retry may succeed (kind `overloaded`). */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

export class EngineError extends Error {
  readonly engineError: EngineErrorKind;
  readonly param: string | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(kind: EngineErrorKind, message: string, options: EngineErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EngineError';
    this.engineError = kind;
    this.param = options.param;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
