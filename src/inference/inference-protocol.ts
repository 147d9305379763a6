/** Messages between the pool (main thread) and its inference workers. */

import type { ModelInput } from '../models/model-manifest.js';

export type ExecutionDevice = 'cpu' | 'cuda';

/** What a worker needs to open and feed one ONNX model. */
export interface PoolModelSpec {
  readonly name: string;
  readonly onnxPath: string;
  readonly inputName: string;
  /** int64 [batch] valid time steps per row; null when the model takes none (then batches hold one row). */
  readonly lengthsName: string | null;
  readonly outputName: string;
  /** Optional int64 [batch] output lengths. */
  readonly outLengthsName: string | null;
  /**
   * The model's input as its manifest describes it. Callers send 16 kHz mono PCM rows; the
   * worker turns each row into this input (log-mel features, normalised waveform) before the
   * run, so that feature extraction stays off the main thread. Rows are padded in the prepared
   * form, as the model expects.
   */
  readonly prepare: ModelInput;
  /** Cap on rows per batch for this model (below the pool's own); null for none. */
  readonly maxBatchSize: number | null;
}

export interface WorkerSettings {
  readonly index: number;
  readonly device: ExecutionDevice;
  readonly cudaDeviceId: number;
  readonly intraOpThreads: number;
}

export type ToWorker =
  | { readonly type: 'load'; readonly model: PoolModelSpec }
  | {
      readonly type: 'run';
      readonly batchId: number;
      readonly model: PoolModelSpec;
      /** PCM rows, [rows, samples] zero-padded. Transferred: the worker owns it from here on. */
      readonly input: Float32Array;
      readonly dims: readonly [number, number];
      /** Valid samples per row; null for a model without a lengths input (then one row). */
      readonly lengths: BigInt64Array | null;
    }
  | { readonly type: 'close' };

export interface LoadReport {
  readonly model: string;
  readonly provider: ExecutionDevice;
  /** Why CUDA was not used when it was asked for; null otherwise. */
  readonly fallback: string | null;
  readonly loadMs: number;
}

export type FromWorker =
  | { readonly type: 'ready' }
  | ({ readonly type: 'loaded' } & LoadReport)
  | { readonly type: 'load-failed'; readonly model: string; readonly message: string }
  | {
      readonly type: 'result';
      readonly batchId: number;
      /** Transferred: [batch, ...rowDims] row-major. */
      readonly output: Float32Array;
      readonly outputDims: readonly number[];
      readonly outLengths: readonly number[] | null;
      readonly runMs: number;
      readonly load: LoadReport | null;
    }
  | { readonly type: 'failed'; readonly batchId: number; readonly message: string; readonly load: LoadReport | null }
  | { readonly type: 'closed' };
