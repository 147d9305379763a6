// The inference pool's public types: what `run` takes and answers, its options, metrics hooks
// and reports (inference-pool.ts).
import type { InferencePriority } from './batch-scheduler.js';
import type { DecodedRow, ExecutionDevice, LoadReport } from './inference-protocol.js';
import type { SlotLogger } from './worker-slot.js';

export interface InferenceInput {
  /**
   * 16 kHz mono PCM, [length] samples (the worker prepares the model input). Read when the request's batch is assembled,
   * which can be any time before the promise settles: keep it unchanged until then. The pool
   * keeps no reference afterwards.
   */
  readonly data: Float32Array;
  /** Valid time steps (samples or frames). */
  readonly length: number;
}

export interface InferenceResult {
  /**
   * This request's row of the model output, [rowDims] row-major. A view into the batch's output
   * buffer (transferred from the worker, not copied): the buffer is freed when every row of the
   * batch is dropped, so copy out of it if you keep a small part for long.
   */
  readonly output: Float32Array;
  /** Output dims without the batch axis, e.g. [frames, vocab] (frames are padded to the batch). */
  readonly dims: readonly number[];
  /** The model's output length for this row, when it has an output-lengths output. */
  readonly outLength: number | null;
  /** This row decoded by the worker, for a model registered with `decode`; null otherwise. */
  readonly decoded: DecodedRow | null;
  readonly batchSize: number;
  readonly queueWaitMs: number;
  readonly runMs: number;
  /** The worker's whole time on the batch: input preparation, the run and decoding. */
  readonly workerMs: number;
  readonly provider: ExecutionDevice;
}

export interface RunOptions {
  readonly priority?: InferencePriority;
  readonly signal?: AbortSignal;
  /** A CTC model's row is decoded boosting these terms (already checked: checkKeyterms); absent or empty: none. */
  readonly keyterms?: readonly string[] | null;
}

export interface BatchEvent {
  readonly model: string;
  readonly size: number;
  readonly priority: InferencePriority;
  /** Per request: ms between `run()` and the batch being sent to a worker. */
  readonly queueWaitMs: readonly number[];
  readonly runMs: number;
  readonly provider: ExecutionDevice;
  readonly ok: boolean;
}

/** Metrics hooks; see `createInferenceMetrics` for the Prometheus implementation. */
export interface InferenceObserver {
  onBatch?(event: BatchEvent): void;
  onRejected?(event: { model: string; reason: 'busy' | 'closed' }): void;
  onLoad?(event: LoadReport & { worker: number }): void;
  queueDepth?(read: () => number): void;
}

export type PoolLogger = SlotLogger;

export interface InferencePoolOptions {
  /** Worker threads; 0 or absent: 1 on CUDA, else half the cores (1 to 4). */
  readonly workers?: number;
  /** onnxruntime intra-op threads per worker; default cores / workers (at least 1). */
  readonly intraOpThreads?: number;
  /**
   * Workers (and their onnxruntime threads) run at this nice value with SCHED_BATCH on Linux, so
   * that waking one never preempts the event loop and the event loop wins the CPU when both are
   * runnable. Default 10; null keeps the process's priority.
   */
  readonly workerNice?: number | null;
  readonly device?: ExecutionDevice;
  readonly cudaDeviceId?: number;
  /** Requests per batch. Default 8. */
  readonly maxBatchSize?: number;
  /** How long a `batch` request may wait for others to fill its batch. Default 10 ms. */
  readonly maxWaitMs?: number;
  /** Same for `interactive` requests. Default 2 ms. */
  readonly interactiveMaxWaitMs?: number;
  /** Requests waiting (not running) before `run` answers InferenceBusyError. Default 512. */
  readonly maxQueued?: number;
  /** Cap on a padded batch's float count (batch x time x features). Default 8 x 30 s of 16 kHz audio. */
  readonly maxBatchElements?: number;
  readonly observer?: InferenceObserver;
  readonly logger?: PoolLogger;
}

export interface DeviceReport {
  readonly requested: ExecutionDevice;
  /** Provider of the open sessions: `cpu`, `cuda`, `cuda+cpu` when mixed, `none` before any model is open. */
  readonly active: string;
  readonly workers: number;
  readonly intraOpThreads: number;
  /** Why CUDA was asked for and not used; null otherwise. */
  readonly fallback: string | null;
}

export interface PoolStats {
  readonly queued: number;
  readonly running: number;
  readonly completedRequests: number;
  readonly failedRequests: number;
  readonly rejectedBusy: number;
  readonly batches: number;
  /** batch size -> number of batches of that size */
  readonly batchSizes: Readonly<Record<number, number>>;
  readonly totalQueueWaitMs: number;
  readonly totalRunMs: number;
  /** Worker time around the runs: input preparation (features) and decoding. */
  readonly totalPrepareMs: number;
  readonly totalDecodeMs: number;
  /** Live streams (issue 30): open now, steps answered, step batches, and the workers' time on them by part. */
  readonly streams: {
    readonly open: number;
    readonly steps: number;
    readonly batches: number;
    readonly featuresMs: number;
    readonly modelMs: number;
    readonly decodeMs: number;
    /** The workers' whole time on step batches (the parts and what lies between them). */
    readonly workerMs: number;
  };
}
