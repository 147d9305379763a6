// The translation engine's façade: the one module other layers import for text translation.
// Inside: the model folder manifest, the SentencePiece tokenizer, seq2seq decoding with a KV
// cache (greedy and beam, under the decoding guards of degeneration-guard.ts) in its own worker
// thread, the micro-batching sentence queue and the sentence splitter. docs/translation-models.md.
export { OnnxTranslationEngine, type TranslationEngineOptions, type TranslationStats } from './onnx-translation-engine.js';
export { createTranslationMetrics, type TranslationObserver } from './translation-metrics.js';
export { readTranslationManifest, TranslationManifestError, type TranslationManifest } from './translation-manifest.js';
export {
  planTranslationImport,
  TranslationImportError,
  type TranslationExport,
  type TranslationImportPlan,
} from './translation-import.js';
export {
  TRANSLATION_LANGUAGES,
  type TranslateOptions,
  type TranslationEngine,
  type TranslationLanguage,
  type TranslationMode,
} from './translation-engine.js';
export { romanizeEthiopic } from './ethiopic-romanization.js';
export { wordsOf } from './word-transfer.js';
