/**
 * Errors of the inference pool. Each carries a code of the gateway's error registry, which
 * the HTTP layer maps to the envelope (all three are 500 `server_error`; the job runner writes
 * them into a failed job's `error`).
 */

/** The pool's queue is full: retry later (registry code `service_unavailable`). */
export class InferenceBusyError extends Error {
  readonly code = 'service_unavailable' as const;
  constructor(readonly queued: number) {
    super(`The speech recognition queue is full (${queued} requests waiting). Retry with exponential backoff.`);
    this.name = 'InferenceBusyError';
  }
}

/** The pool is shutting down or closed (registry code `service_unavailable`). */
export class InferenceClosedError extends Error {
  readonly code = 'service_unavailable' as const;
  constructor() {
    super('The speech recognition service is shutting down.');
    this.name = 'InferenceClosedError';
  }
}

/** The model failed to load or to run, or its worker died (registry code `model_error`). */
export class ModelRunError extends Error {
  readonly code = 'model_error' as const;
  constructor(
    readonly model: string,
    message: string,
  ) {
    super(`Model ${model}: ${message}`);
    this.name = 'ModelRunError';
  }
}
