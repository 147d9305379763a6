export const TRANSLATION_LANGUAGES = ['en', 'am', 'ti'] as const;
export type TranslationLanguage = (typeof TRANSLATION_LANGUAGES)[number];

/** `greedy` serves the text endpoint (latency); `beam` serves file jobs (quality, the model's beam size). */
export type TranslationMode = 'greedy' | 'beam';

export interface TranslateOptions {
  mode?: TranslationMode;
  signal?: AbortSignal;
  /** Who asks (an account id), opaque to the engine: tenants share the engine round-robin and each holds at most its share of the queue. Default: one shared tenant. */
  tenant?: string;
}

/**
 * Translates text between two distinct supported languages. Model work never runs on the event loop.
 * Lifetime: usable from creation until `close()`; calls after `close()` reject.
 */
export interface TranslationEngine {
  readonly name: string;
  /** Languages this engine reads and writes; any distinct pair among them is served. */
  readonly languages: readonly TranslationLanguage[];
  /** One text, split into sentences inside (Ethiopic punctuation kept), translated and joined again. */
  translate(text: string, source: TranslationLanguage, target: TranslationLanguage, options?: TranslateOptions): Promise<string>;
  /** Many independent texts (transcript segments, lines), batched together; results in the same order. */
  translateMany(texts: readonly string[], source: TranslationLanguage, target: TranslationLanguage, options?: TranslateOptions): Promise<string[]>;
  close(): Promise<void>;
}
