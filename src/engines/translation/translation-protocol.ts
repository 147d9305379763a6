/** Messages between the translation engine (main thread) and its worker thread. */
import type { TranslationLanguage, TranslationMode } from './translation-engine.js';
import type { TranslationManifest } from './translation-manifest.js';

export interface TranslationWorkerSettings {
  readonly manifest: TranslationManifest;
  readonly intraOpThreads: number;
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
  | { readonly type: 'result'; readonly id: number; readonly outputs: readonly string[]; readonly rows: number; readonly workerMs: number }
  | { readonly type: 'failed'; readonly id: number; readonly message: string }
  | { readonly type: 'closed' };
