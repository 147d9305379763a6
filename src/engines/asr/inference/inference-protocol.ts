/** Messages between the pool (main thread) and its inference workers. */

import type { RowDecoding } from '../decoding/decoding-plan.js';
import type { CtcHypothesis } from '../decoding/ctc-types.js';
import type { ModelInput } from '../models/model-manifest.js';
import type { FeatureStatistics } from '../../signal/features/running-normalizer.js';
import type { StreamStepRequest, StreamStepResult, StreamStepTimes } from './live-streams.js';

export type { StreamStepRequest, StreamStepResult } from './live-streams.js';

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
  /**
   * CTC models: the worker decodes each row's valid frames after the run and sends the
   * hypotheses back with the logits, so decoding never runs on the main thread. Null: logits only.
   */
  readonly decode: RowDecoding | null;
  /**
   * Live streams (issue 30): the model folder's streaming step graph and the feature statistics
   * its running normalisation starts from; null when the folder has none (partials then
   * re-run the open turn).
   */
  readonly streaming: StreamingSpec | null;
}

export interface StreamingSpec {
  readonly onnxPath: string;
  readonly statistics: FeatureStatistics;
}

/** One row decoded in the worker. */
export interface DecodedRow {
  readonly hypothesis: CtcHypothesis;
  /** Valid output frames decoded. */
  readonly frames: number;
}

export interface WorkerSettings {
  readonly index: number;
  readonly device: ExecutionDevice;
  readonly cudaDeviceId: number;
  readonly intraOpThreads: number;
}

/**
 * Order on the port is the contract: a model's spec reaches a worker (`register` or `load`)
 * before the first `run` that names it, and the worker keeps it for its lifetime.
 */
export type ToWorker =
  | { readonly type: 'register'; readonly model: PoolModelSpec }
  | { readonly type: 'load'; readonly model: PoolModelSpec }
  | {
      readonly type: 'run';
      readonly batchId: number;
      /** A model registered with this worker. */
      readonly model: string;
      /** PCM rows, [rows, samples] zero-padded. Transferred: the worker owns it from here on. */
      readonly input: Float32Array;
      readonly dims: readonly [number, number];
      /** Valid samples per row; null for a model without a lengths input (then one row). */
      readonly lengths: BigInt64Array | null;
      /** Per row, the request's keyterms (decoded with keyterm boosting) or null; null when no row has any. */
      readonly keyterms?: readonly (readonly string[] | null)[] | null;
    }
  | {
      readonly type: 'stream-steps';
      readonly batchId: number;
      readonly model: string;
      /** One step per stream; each `pcm` is transferred. */
      readonly steps: readonly StreamStepRequest[];
    }
  /** Streams that ended (no answer); ids are never reused. */
  | { readonly type: 'stream-close'; readonly model: string; readonly streamIds: readonly number[] }
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
      /** Per row, when the model's spec has `decode`; null otherwise. */
      readonly decoded: readonly DecodedRow[] | null;
      /** Model run time (onnxruntime) of the batch. */
      readonly runMs: number;
      /** Input preparation and decoding time of the batch, around the run. */
      readonly prepareMs: number;
      readonly decodeMs: number;
      readonly load: LoadReport | null;
    }
  | {
      readonly type: 'stream-result';
      readonly batchId: number;
      readonly results: readonly StreamStepResult[];
      /** Features, graph runs and decoding of the whole step batch. */
      readonly workerMs: number;
      readonly times: StreamStepTimes;
      readonly load: LoadReport | null;
    }
  | { readonly type: 'failed'; readonly batchId: number; readonly message: string; readonly load: LoadReport | null }
  /** Something the pool should log (an LM that no longer loads, say). */
  | { readonly type: 'warning'; readonly model: string; readonly message: string }
  | { readonly type: 'closed' };
