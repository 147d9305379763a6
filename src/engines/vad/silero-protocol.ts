// Messages between SileroVad (main thread) and its worker (silero-worker.ts).

export interface SileroInitMessage {
  type: 'init';
  modelPath?: string;
  threads: number;
  maxBatch: number;
}

/**
 * `windows` holds streams.length rows of 512 samples; its buffer is transferred. The rows are
 * `steps` batches run one after the other (steps[k] rows each, a stream at most once per step),
 * so a stream's later window follows its earlier one.
 */
export interface SileroBatchMessage {
  type: 'batch';
  id: number;
  streams: Int32Array;
  windows: Float32Array;
  steps: Int32Array;
}

/** Drops a stream's recurrent state and context (closed or reset). */
export interface SileroForgetMessage {
  type: 'forget';
  stream: number;
}

/** Ends the worker: after the batches before it, the session is released and the thread exits. */
export interface SileroCloseMessage {
  type: 'close';
}

export type SileroRequest = SileroInitMessage | SileroBatchMessage | SileroForgetMessage | SileroCloseMessage;

export interface SileroReadyMessage {
  type: 'ready';
  inputNames: string[];
  outputNames: string[];
}

export interface SileroResultMessage {
  type: 'result';
  id: number;
  streams: Int32Array;
  probabilities: Float32Array;
  /** onnxruntime calls made (the batch's steps). */
  steps: number;
  /** Milliseconds the onnxruntime calls took inside the worker. */
  runMs: number;
}

export interface SileroErrorMessage {
  type: 'error';
  message: string;
}

export type SileroResponse = SileroReadyMessage | SileroResultMessage | SileroErrorMessage;
