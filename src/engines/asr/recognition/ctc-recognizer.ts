import type { DecodingPlan } from '../decoding/decoding-plan.js';
import type { CtcHypothesis } from '../decoding/ctc-types.js';
import type { LoadedCtcModel } from '../models/model-loader.js';
import { forOutput } from '../text/text-normalizer.js';
import { greedyPlanner, type DecodingPlanner } from '../inference/decoding-planner.js';
import { InferenceBusyError, ModelRunError } from '../inference/inference-errors.js';
import type { InferencePool, InferencePriority } from '../inference/inference-pool.js';
import { poolSpecFor } from '../inference/model-specs.js';

export interface TimedWord {
  readonly text: string;
  readonly start_ms: number;
  readonly end_ms: number;
  readonly confidence: number;
}

export interface Recognition {
  readonly text: string;
  /** Mean token probability (0..1); null when nothing was recognised. */
  readonly confidence: number | null;
  /** Words with times from the CTC frames they span, offset by `startMs`. */
  readonly words: readonly TimedWord[];
  readonly hypothesis: CtcHypothesis;
  /** Valid output frames decoded. */
  readonly frames: number;
  /** The pool's figures for this request: its batch's worker time and size, and its queue wait. */
  readonly inference: InferenceCost;
}

export interface InferenceCost {
  /** The worker's time on the whole batch (features, model run, decoding). */
  readonly workerMs: number;
  readonly batchSize: number;
  readonly queueWaitMs: number;
}

export interface RecognizeOptions {
  /** Time of the first sample, for word times. Default 0. */
  readonly startMs?: number;
  readonly priority?: InferencePriority;
  readonly signal?: AbortSignal;
  /** How long to keep retrying while the pool answers busy. Default 60 s. */
  readonly busyRetryMs?: number;
}

/** Inputs shorter than this are zero-padded: convolution front ends need a minimum receptive field. */
const MIN_SAMPLES = 1600;
const SAMPLES_PER_MS = 16;

/**
 * One CTC model bound to the pool: sends the PCM through the pool, whose worker prepares the
 * waveform or log-mel input, runs the model and decodes the row's valid frames with this
 * model's decoding plan; here the frames become milliseconds (the model's frame stride) and the
 * text is normalised for output. Nothing per frame runs on the calling (main) thread.
 */
export class CtcRecognizer {
  /** How this model decodes (greedy by default; `Speech` plans from the manifest). */
  readonly decoding: DecodingPlan;
  readonly frameMs: number;

  constructor(
    private readonly pool: InferencePool,
    readonly model: LoadedCtcModel,
    planner: DecodingPlanner = greedyPlanner,
  ) {
    this.decoding = planner(model);
    pool.register(poolSpecFor(model, this.decoding));
    this.frameMs = model.manifest.frameStrideSamples / SAMPLES_PER_MS;
  }

  /**
   * `samples`: 16 kHz mono PCM, read by the pool until the promise settles (the inference worker
   * prepares the model's input from it): keep it unchanged until then.
   */
  async recognize(samples: Float32Array, options: RecognizeOptions = {}): Promise<Recognition> {
    let pcm = samples;
    if (pcm.length < MIN_SAMPLES) {
      pcm = new Float32Array(MIN_SAMPLES);
      pcm.set(samples);
    }
    const result = await runWithRetry(this.pool, this.model.name, { data: pcm, length: pcm.length }, options);
    // The worker checked the logits' shape against the vocabulary before decoding.
    if (result.decoded === null) throw new ModelRunError(this.model.name, 'the inference pool sent no decoding for this CTC model');
    const { hypothesis, frames } = result.decoded;
    const startMs = options.startMs ?? 0;
    // Output normalisation (src/engines/asr/text/text-normalizer.ts forOutput): NFC, whitespace, the
    // language's canonical punctuation (no space before a mark); case and numerals as decoded.
    const language = this.model.language;
    const trueCase = this.model.manifest.output.casing === 'true_case';
    const words = hypothesis.words
      .map((w, i) => ({
        text: forOutput(w.text, language, { trueCase, sentenceStart: i === 0 }),
        start_ms: Math.round(startMs + w.startFrame * this.frameMs),
        end_ms: Math.round(startMs + w.endFrame * this.frameMs),
        confidence: round4(w.confidence),
      }))
      .filter((w) => w.text.length > 0);
    return {
      text: forOutput(hypothesis.text, language, { trueCase }),
      confidence: hypothesis.tokens.length > 0 ? round4(hypothesis.confidence) : null,
      words,
      hypothesis,
      frames,
      inference: { workerMs: result.workerMs, batchSize: result.batchSize, queueWaitMs: result.queueWaitMs },
    };
  }
}

export const round4 = (v: number): number => Math.round(v * 10_000) / 10_000;

/** Runs on the pool, waiting out `service_unavailable` answers with backoff up to `busyRetryMs`. */
export async function runWithRetry(
  pool: InferencePool,
  model: string,
  input: { data: Float32Array; length: number },
  options: { priority?: InferencePriority; signal?: AbortSignal; busyRetryMs?: number },
): ReturnType<InferencePool['run']> {
  const deadline = Date.now() + (options.busyRetryMs ?? 60_000);
  let backoff = 25;
  for (;;) {
    try {
      return await pool.run(model, input, { priority: options.priority ?? 'batch', signal: options.signal });
    } catch (error) {
      if (!(error instanceof InferenceBusyError) || Date.now() + backoff > deadline) throw error;
      await sleep(backoff, options.signal);
      backoff = Math.min(backoff * 2, 1000);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
