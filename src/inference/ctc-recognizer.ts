import { CtcGreedyDecoder } from '../decoding/ctc-greedy-decoder.js';
import type { CtcDecoder, CtcHypothesis } from '../decoding/ctc-types.js';
import type { LoadedCtcModel } from '../models/model-loader.js';
import { forOutput } from '../text/text-normalizer.js';
import { InferenceBusyError, ModelRunError } from './inference-errors.js';
import type { InferencePool, InferencePriority } from './inference-pool.js';
import { poolSpecFor } from './model-specs.js';

/** Builds the decoder a model runs with; SpeechEngine uses manifestDecoderFactory (decoder-factory.ts). */
export type DecoderFactory = (model: LoadedCtcModel) => CtcDecoder;

export const greedyDecoderFactory: DecoderFactory = (model) => new CtcGreedyDecoder(model.vocabulary);

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
 * One CTC model bound to the pool: sends the PCM through the pool (whose worker prepares the
 * waveform or log-mel input), trims the row to its valid frames, decodes, and converts frames to milliseconds
 * with the model's frame stride.
 */
export class CtcRecognizer {
  /** The decoder this model runs with (from the manifest by default). */
  readonly decoder: CtcDecoder;
  readonly frameMs: number;

  constructor(
    private readonly pool: InferencePool,
    readonly model: LoadedCtcModel,
    decoderFactory: DecoderFactory = greedyDecoderFactory,
  ) {
    pool.register(poolSpecFor(model));
    this.decoder = decoderFactory(model);
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
    const vocabSize = this.model.vocabulary.tokens.length;
    const [outFrames, classes] = result.dims;
    if (result.dims.length !== 2 || classes !== vocabSize) {
      throw new ModelRunError(this.model.name, `logits have shape [${result.dims.join(', ')}] per row; expected [frames, ${vocabSize}]`);
    }
    const expected = result.outLength ?? Math.ceil(pcm.length / this.model.manifest.frameStrideSamples);
    const frames = Math.max(0, Math.min(outFrames!, expected));
    // Decoding runs on this (main) thread: greedy is one pass over the frames; beam search
    // (decodeAsync) works in slices of a few ms and yields between them.
    const scores = { data: result.output.subarray(0, frames * vocabSize), frames, vocabSize };
    const hypothesis = this.decoder.decodeAsync ? await this.decoder.decodeAsync(scores, options.signal) : this.decoder.decode(scores);
    const startMs = options.startMs ?? 0;
    // Output normalisation (src/text/text-normalizer.ts forOutput): NFC, whitespace, the
    // language's canonical punctuation (no space before a mark); case and numerals as decoded.
    const language = this.model.language;
    const words = hypothesis.words.map((w) => ({
      text: forOutput(w.text, language),
      start_ms: Math.round(startMs + w.startFrame * this.frameMs),
      end_ms: Math.round(startMs + w.endFrame * this.frameMs),
      confidence: round4(w.confidence),
    }))
      .filter((w) => w.text.length > 0);
    return {
      text: forOutput(hypothesis.text, language),
      confidence: hypothesis.tokens.length > 0 ? round4(hypothesis.confidence) : null,
      words,
      hypothesis,
      frames,
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
