export const TRANSLATION_LANGUAGES = ['en', 'am', 'ti'] as const;
export type TranslationLanguage = (typeof TRANSLATION_LANGUAGES)[number];

/** Translates text between two distinct supported languages. */
export interface TranslationEngine {
  readonly name: string;
  translate(text: string, source: TranslationLanguage, target: TranslationLanguage, signal?: AbortSignal): Promise<string>;
}
