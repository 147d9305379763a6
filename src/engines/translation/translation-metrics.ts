import { Counter, Histogram, type Registry } from 'prom-client';
import { deferredGauge } from '../../platform/metrics/shared-metrics.js';
import type { GuardAction } from './guarded-decoding.js';
import type { TranslationMode } from './translation-engine.js';

/** What the translation engine reports (onnx-translation-engine.ts). */
export interface TranslationObserver {
  /** `untranslatable`: sentences of an ok batch that the decoding guards could not translate soundly. */
  onBatch?(event: {
    readonly mode: TranslationMode;
    readonly sentences: number;
    readonly workerMs: number;
    readonly ok: boolean;
    readonly untranslatable?: number;
  }): void;
  onRefused?(event: { readonly mode: TranslationMode; readonly sentences: number }): void;
  queueDepth?(read: () => number): void;
  /** Texts of a direction answered by word-for-word transfer (word-transfer.ts) instead of the network. */
  onWordTransfer?(event: { readonly direction: string; readonly texts: number }): void;
  /** Decoding guards (on): rows of a batch per action (clean, next_beam, redecoded, prefix, untranslatable). */
  onGuard?(event: { readonly mode: TranslationMode; readonly actions: Readonly<Partial<Record<GuardAction, number>>> }): void;
}

/**
 * Prometheus metrics of the translation engine, registered on `registry`:
 *  - `translation_batch_size` histogram (label mode): sentences per batch
 *  - `translation_batch_seconds` histogram (label mode): worker time of a batch (tokenising, model runs, decoding)
 *  - `translation_sentences_total` counter (labels mode, outcome: ok | error | refused | untranslatable)
 *  - `translation_queue_depth` gauge: sentences waiting for the worker
 *  - `translation_guard_rows_total` counter (labels mode, action): model rows decoded under the
 *    degeneration guards, by what the guards did (`clean`, `next_beam`, `redecoded`, `prefix`,
 *    `untranslatable`)
 *  - `translation_word_transfer_texts_total` counter (label direction): texts answered by
 *    word-for-word transfer instead of the network (manifest `word_transfer`)
 * Create once per registry.
 */
export function createTranslationMetrics(registry: Registry): TranslationObserver {
  const registers = [registry];
  const batchSize = new Histogram({
    name: 'translation_batch_size',
    help: 'Sentences per translation batch',
    labelNames: ['mode'],
    buckets: [1, 2, 4, 8, 12, 16, 24, 32, 64],
    registers,
  });
  const batchTime = new Histogram({
    name: 'translation_batch_seconds',
    help: 'Translation worker time of one batch: tokenising, encoder and decoder runs, decoding',
    labelNames: ['mode'],
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers,
  });
  const sentences = new Counter({
    name: 'translation_sentences_total',
    help: 'Sentences translated, failed, refused (queue full) or untranslatable (every guarded output degenerated)',
    labelNames: ['mode', 'outcome'],
    registers,
  });
  const queueDepth = deferredGauge(registry, 'translation_queue_depth', 'Sentences waiting for the translation worker');
  const guardRows = new Counter({
    name: 'translation_guard_rows_total',
    help: 'Model rows decoded under the degeneration guards, by what the guards did (clean, next_beam, redecoded, prefix, untranslatable)',
    labelNames: ['mode', 'action'],
    registers,
  });
  const wordTransferTexts = new Counter({
    name: 'translation_word_transfer_texts_total',
    help: 'Texts answered by word-for-word transfer instead of the network (manifest word_transfer), by direction',
    labelNames: ['direction'],
    registers,
  });
  return {
    onWordTransfer(event) {
      wordTransferTexts.inc({ direction: event.direction }, event.texts);
    },
    onBatch(event) {
      if (event.ok) {
        batchSize.observe({ mode: event.mode }, event.sentences);
        batchTime.observe({ mode: event.mode }, event.workerMs / 1000);
      }
      const untranslatable = event.ok ? (event.untranslatable ?? 0) : 0;
      sentences.inc({ mode: event.mode, outcome: event.ok ? 'ok' : 'error' }, event.sentences - untranslatable);
      if (untranslatable > 0) sentences.inc({ mode: event.mode, outcome: 'untranslatable' }, untranslatable);
    },
    onRefused(event) {
      sentences.inc({ mode: event.mode, outcome: 'refused' }, event.sentences);
    },
    onGuard(event) {
      for (const [action, rows] of Object.entries(event.actions)) if (rows > 0) guardRows.inc({ mode: event.mode, action }, rows);
    },
    queueDepth,
  };
}
