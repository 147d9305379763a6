import type { InferenceCost, TimedWord } from './ctc-recognizer.js';
import type { SpeechEngine } from '../speech-engine.js';

export interface StreamRecognition {
  readonly text: string;
  /** Mean token probability (0..1); null when nothing was recognised. */
  readonly confidence: number | null;
  /** Word times in stream milliseconds (offset by `startMs`). */
  readonly words: readonly TimedWord[];
  /** The pool's run time, batch size and queue wait for this piece (capacity estimation). */
  readonly inference?: InferenceCost;
}

export interface StreamRecognizeOptions {
  readonly model: string;
  /** Stream time of the first sample, ms. */
  readonly startMs: number;
  readonly signal?: AbortSignal;
}

/**
 * Recognition of one piece of a live stream (a turn, a TRANSCRIBE buffer, a partial) on the
 * shared inference pool at `interactive` priority: pieces of every stream and REST job are
 * batched together, so many streams share each model run. The pcm array is read by the pool
 * until the promise settles: the caller must not change it before then.
 */
export interface StreamingRecognizer {
  recognize(pcm: Float32Array, options: StreamRecognizeOptions): Promise<StreamRecognition>;
  /** For `language=auto`: the language and its default model, from the first piece of speech. */
  detect(pcm: Float32Array, signal?: AbortSignal): Promise<{ language: string; model: string }>;
  /** Overload: how long interactive batches wait to fill (null: the configured wait). */
  setBatchWait?(ms: number | null): void;
}

/** How long a live piece waits out a full pool queue before the session gets `service_unavailable`. */
const STREAM_BUSY_RETRY_MS = 5_000;

export function streamingRecognizer(engine: SpeechEngine): StreamingRecognizer {
  return {
    async recognize(pcm, options) {
      const result = await engine.recognizerFor(options.model).recognize(pcm, {
        startMs: options.startMs,
        priority: 'interactive',
        busyRetryMs: STREAM_BUSY_RETRY_MS,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return { text: result.text, confidence: result.confidence, words: result.words, inference: result.inference };
    },
    setBatchWait: (ms) => engine.setInteractiveBatchWait(ms),
    async detect(pcm, signal) {
      const detection = await engine.detectLanguage(pcm, signal);
      const choice = engine.models.resolve(detection.language, null);
      if (choice.model === null) throw new Error(`no default model for detected language ${detection.language}`);
      return { language: choice.language, model: choice.model };
    },
  };
}
