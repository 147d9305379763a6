// Errors of the inference pool, as engine errors (runtime/engine-error.ts): `unavailable` for a
// full queue or a closing pool, `model_failed` for a model that cannot load or run.
import { EngineError } from '../../runtime/engine-error.js';

/** The pool's queue is full: retry later. */
export class InferenceBusyError extends EngineError {
  constructor(readonly queued: number) {
    super('unavailable', `The speech recognition queue is full (${queued} requests waiting). Retry with exponential backoff.`);
    this.name = 'InferenceBusyError';
  }
}

/** The pool is shutting down or closed. */
export class InferenceClosedError extends EngineError {
  constructor() {
    super('unavailable', 'The speech recognition service is shutting down.');
    this.name = 'InferenceClosedError';
  }
}

/** The model failed to load or to run, or its worker died. */
export class ModelRunError extends EngineError {
  constructor(
    readonly model: string,
    message: string,
  ) {
    super('model_failed', `Model ${model}: ${message}`);
    this.name = 'ModelRunError';
  }
}

/** A live stream's state is gone (its worker restarted, or it was never opened there): restart it from the turn's start. */
export class StreamLostError extends EngineError {
  constructor(readonly streamId: number) {
    super('unavailable', 'The live recognition stream was lost; it restarts from the start of the turn.');
    this.name = 'StreamLostError';
  }
}
