import type { DecodingPlan } from '../decoding/decoding-plan.js';
import type { CtcHypothesis } from '../decoding/ctc-types.js';
import type { LoadedCtcModel } from '../models/model-loader.js';
import { forOutput } from '../text/text-normalizer.js';
import { type OutputWord, outputWords } from './output-words.js';
import { calibratedConfidence, confidenceFeatures } from './confidence-calibration.js';
import { greedyPlanner, type DecodingPlanner } from '../inference/decoding-planner.js';
import { InferenceBusyError, ModelRunError } from '../inference/inference-errors.js';
import type { InferencePool, InferencePriority } from '../inference/inference-pool.js';
import { poolSpecFor } from '../inference/model-specs.js';

/** A word of the output text with its time (ms) and confidence (output-words.ts). */
export type TimedWord = OutputWord;

export interface Recognition {
  readonly text: string;
  /**
   * 0..1; null when nothing was recognised. With the model's confidence calibration (its manifest's
   * `confidence_calibration`) the expected share of letters right (confidence-calibration.ts);
   * without one, `rawConfidence`.
   */
  readonly confidence: number | null;
  /** Mean token probability (0..1), as decoded; null when nothing was recognised. */
  readonly rawConfidence: number | null;
  /** Whether `confidence` is calibrated (the model has a confidence calibration and something was recognised). */
  readonly calibrated: boolean;
  /** The decoded piece's raw scores the calibration reads (CONFIDENCE_FEATURES order); null when nothing was recognised. */
  readonly confidenceFeatures: readonly number[] | null;
  /** The words of `text` with times from the CTC frames their tokens span, offset by `startMs` (output-words.ts). */
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
  /** Terms to boost in the beam search (checked: checkKeyterms); a greedy model then decodes with a beam (decoding-plan.ts). */
  readonly keyterms?: readonly string[] | null;
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
    return this.recognitionOf(result.decoded.hypothesis, result.decoded.frames, samples.length, options.startMs ?? 0, {
      workerMs: result.workerMs,
      batchSize: result.batchSize,
      queueWaitMs: result.queueWaitMs,
    });
  }

  /**
   * A decoded hypothesis over `frames` output frames of `sampleCount` samples starting at
   * `startMs`, as `recognize` answers it: the text normalised for output, its timed words and its
   * (calibrated) confidence. A live stream's finished turn comes through here too.
   */
  recognitionOf(hypothesis: CtcHypothesis, frames: number, sampleCount: number, startMs: number, inference: InferenceCost): Recognition {
    // Output normalisation (src/engines/asr/text/text-normalizer.ts forOutput): NFC, whitespace, the
    // language's canonical punctuation (no space before a mark); case and numerals as decoded.
    const language = this.model.language;
    const trueCase = this.model.manifest.output.casing === 'true_case';
    const text = forOutput(hypothesis.text, language, { trueCase });
    // The words of the output text itself (so they join back to it), timed by the decoded path's tokens.
    // Capped at the audio's end (never past the segment the caller makes of it: its end rounds up from here).
    const endMs = startMs + Math.floor(sampleCount / SAMPLES_PER_MS);
    const words = outputWords(text, hypothesis.tokens, this.model.vocabulary, { frameMs: this.frameMs, startMs, endMs });
    const rawConfidence = hypothesis.tokens.length > 0 ? round4(hypothesis.confidence) : null;
    const features = confidenceFeatures(hypothesis, frames, this.frameMs);
    const calibration = this.model.calibration ?? null;
    const calibrated = features !== null && calibration !== null;
    return {
      text,
      confidence: calibrated ? calibratedConfidence(calibration, features) : rawConfidence,
      rawConfidence,
      calibrated,
      confidenceFeatures: features,
      words,
      hypothesis,
      frames,
      inference,
    };
  }
}

export const round4 = (v: number): number => Math.round(v * 10_000) / 10_000;

/** Runs on the pool, waiting out `service_unavailable` answers with backoff up to `busyRetryMs`. */
export async function runWithRetry(
  pool: InferencePool,
  model: string,
  input: { data: Float32Array; length: number },
  options: { priority?: InferencePriority; signal?: AbortSignal; busyRetryMs?: number; keyterms?: readonly string[] | null },
): ReturnType<InferencePool['run']> {
  const deadline = Date.now() + (options.busyRetryMs ?? 60_000);
  let backoff = 25;
  for (;;) {
    try {
      return await pool.run(model, input, { priority: options.priority ?? 'batch', signal: options.signal, keyterms: options.keyterms ?? null });
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
