// Runs Silero VAD v5 on a batch of windows from different streams in one onnxruntime call.
// Used inside the VAD worker thread (silero-worker.ts) and directly by bench/silero-batch.ts.
import ort from 'onnxruntime-node';
import { cpuSessionOptions } from '../runtime/onnx-session-options.js';
import { SILERO_INPUT, SILERO_SAMPLE_RATE, SILERO_STATE, sileroModelPath } from './silero-model.js';

export interface SileroSessionOptions {
  modelPath?: string;
  /** onnxruntime intra-op threads (default 1: one VAD worker uses one core). */
  threads?: number;
}

export class SileroSession {
  readonly #session: ort.InferenceSession;
  readonly #sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(SILERO_SAMPLE_RATE)]), []);

  private constructor(session: ort.InferenceSession) {
    this.#session = session;
  }

  static async create(options: SileroSessionOptions = {}): Promise<SileroSession> {
    const threads = options.threads ?? 1;
    const session = await ort.InferenceSession.create(options.modelPath ?? sileroModelPath(), cpuSessionOptions({ intraOpThreads: threads }));
    return new SileroSession(session);
  }

  get inputNames(): readonly string[] {
    return this.#session.inputNames;
  }

  get outputNames(): readonly string[] {
    return this.#session.outputNames;
  }

  /**
   * Runs `batch` windows. `input` holds batch rows of SILERO_INPUT samples (context + window);
   * `state` is [2, batch, 128] and is overwritten with the new state. Returns the speech
   * probability of each row.
   */
  async run(batch: number, input: Float32Array, state: Float32Array): Promise<Float32Array> {
    if (input.length < batch * SILERO_INPUT || state.length < 2 * batch * SILERO_STATE) {
      throw new RangeError('input or state shorter than the batch needs');
    }
    const out = await this.#session.run({
      input: new ort.Tensor('float32', input.subarray(0, batch * SILERO_INPUT), [batch, SILERO_INPUT]),
      state: new ort.Tensor('float32', state.subarray(0, 2 * batch * SILERO_STATE), [2, batch, SILERO_STATE]),
      sr: this.#sr,
    });
    state.set(out.stateN!.data as Float32Array);
    return out.output!.data as Float32Array;
  }

  async release(): Promise<void> {
    await this.#session.release();
  }
}
