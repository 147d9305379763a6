import type { Segment } from '../platform/db/job-records.js';

export interface EngineProgress {
  readonly doneSegments: number;
  /** Estimated from the audio duration; grows if the estimate was short. */
  readonly totalSegments: number;
  readonly stage: 'decoding' | 'detecting_language' | 'transcribing';
}

export interface EngineRequest {
  /** A local file holding the audio in any supported container. */
  readonly audioPath: string;
  /** `am`, `om`, `ti` or `auto`. */
  readonly language: string;
  /** A model name valid for the language, or null for the language's default. */
  readonly model: string | null;
  readonly signal: AbortSignal;
  readonly onProgress: (progress: EngineProgress) => void;
  /** Called once the language is known (detected for `auto`) and the model chosen. */
  readonly onLanguage?: (language: string, model: string) => void;
}

export interface EngineResult {
  readonly language: string;
  readonly model: string;
  readonly durationSeconds: number;
  readonly segments: Segment[];
}

/**
 * Turns stored audio into segments: decoding, cutting at pauses, batched inference, CTC
 * decoding. Errors it throws carry a registry code (`invalid_audio_format`, `model_error`, ...).
 */
export interface TranscriptionEngine {
  transcribe(request: EngineRequest): Promise<EngineResult>;
}

/** The spec's model rules 1-4, answered by the model registry. */
export interface ModelResolver {
  /**
   * Returns the language and model a request runs with (model null for `auto`), or throws
   * ApiError INVALID_FIELD (model with auto), UNSUPPORTED_MODEL or UNSUPPORTED_LANGUAGE.
   */
  resolve(language: string, model: string | undefined): { language: string; model: string | null };
}

/** Recognises an audio container from its first bytes; null when it is not a supported one. */
export type AudioSniffer = (head: Buffer) => string | null;
