/** Messages between the translation engine (main thread) and its worker thread. */
import type { GuardAction } from './guarded-decoding.js';
import type { TranslationLanguage, TranslationMode } from './translation-engine.js';
import type { TranslationManifest } from './translation-manifest.js';

export interface TranslationWorkerSettings {
  readonly manifest: TranslationManifest;
  readonly intraOpThreads: number;
  /** TRANSLATION_DECODING_GUARDS: decode with the degeneration guards and their fallbacks (guarded-decoding.ts). */
  readonly decodingGuards: boolean;
}

export interface TranslationItem {
  /** One sentence. */
  readonly text: string;
  readonly source: TranslationLanguage;
  readonly target: TranslationLanguage;
}

export type ToTranslationWorker =
  | { readonly type: 'translate'; readonly id: number; readonly mode: TranslationMode; readonly items: readonly TranslationItem[] }
  | { readonly type: 'close' };

export type FromTranslationWorker =
  | { readonly type: 'ready'; readonly layers: number }
  | { readonly type: 'load-failed'; readonly message: string }
  | {
      readonly type: 'result';
      readonly id: number;
      readonly outputs: readonly string[];
      /** Items (indices into the batch) with a row no guarded decoding could translate soundly: their outputs are ''. */
      readonly untranslatable: readonly number[];
      /** Rows per guard action (guards on; empty when off). */
      readonly guardActions: Readonly<Partial<Record<GuardAction, number>>>;
      readonly rows: number;
      readonly workerMs: number;
    }
  | { readonly type: 'failed'; readonly id: number; readonly message: string }
  | { readonly type: 'closed' };
