import type { TimedWord } from './ctc-recognizer.js';
import type { SpeechEngine } from '../speech-engine.js';
import type { Segment } from '../../platform/db/job-records.js';
import { transcribeAll } from './transcriber.js';

export interface StreamRecognition {
  readonly text: string;
  /** Mean token probability (0..1); null when nothing was recognised. */
  readonly confidence: number | null;
  /** Word times in stream milliseconds (offset by `startMs`). */
  readonly words: readonly TimedWord[];
}

/** A whole piece decoded the way REST decodes a file: its segments (stream times) and their text. */
export interface StreamTranscription {
  /** The segments' texts joined with spaces, as a REST job's `text`. */
  readonly text: string;
  /** Mean of the segments' confidences; null when nothing was recognised. */
  readonly confidence: number | null;
  /** Segments in stream milliseconds (offset by `startMs`); ids from 0 within the piece. */
  readonly segments: readonly Segment[];
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
  /** One model run over the whole piece (partials: fast, no segmentation). */
  recognize(pcm: Float32Array, options: StreamRecognizeOptions): Promise<StreamRecognition>;
  /**
   * The piece decoded exactly as REST decodes a file with the same audio (pause segmenter,
   * then one model run per segment), so a turn's text equals the REST text for that audio.
   */
  transcribe(pcm: Float32Array, options: StreamRecognizeOptions): Promise<StreamTranscription>;
  /** For `language=auto`: the language and its default model, from the first piece of speech. */
  detect(pcm: Float32Array, signal?: AbortSignal): Promise<{ language: string; model: string }>;
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
      return { text: result.text, confidence: result.confidence, words: result.words };
    },
    async transcribe(pcm, options) {
      const { segments } = await transcribeAll(once(pcm), {
        recognizer: engine.recognizerFor(options.model),
        priority: 'interactive',
        busyRetryMs: STREAM_BUSY_RETRY_MS,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const shifted = segments.map((segment) => ({ ...segment, start_ms: segment.start_ms + options.startMs, end_ms: segment.end_ms + options.startMs }));
      const scored = shifted.filter((segment) => segment.confidence !== null);
      return {
        text: shifted.map((segment) => segment.text).join(' '),
        confidence: scored.length === 0 ? null : scored.reduce((sum, segment) => sum + segment.confidence!, 0) / scored.length,
        segments: shifted,
      };
    },
    async detect(pcm, signal) {
      const detection = await engine.detectLanguage(pcm, signal);
      const choice = engine.models.resolve(detection.language, null);
      if (choice.model === null) throw new Error(`no default model for detected language ${detection.language}`);
      return { language: choice.language, model: choice.model };
    },
  };
}

async function* once(pcm: Float32Array): AsyncGenerator<Float32Array> {
  yield pcm;
}
