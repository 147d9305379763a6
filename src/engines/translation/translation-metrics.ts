import { Counter, Histogram, type Registry } from 'prom-client';
import { deferredGauge } from '../../platform/metrics/shared-metrics.js';
import type { TranslationMode } from './translation-engine.js';

/** What the translation engine reports (onnx-translation-engine.ts). */
export interface TranslationObserver {
  onBatch?(event: { readonly mode: TranslationMode; readonly sentences: number; readonly workerMs: number; readonly ok: boolean }): void;
  onRefused?(event: { readonly mode: TranslationMode; readonly sentences: number }): void;
  queueDepth?(read: () => number): void;
}

/**
 * Prometheus metrics of the translation engine, registered on `registry`:
 *  - `translation_batch_size` histogram (label mode): sentences per batch
 *  - `translation_batch_seconds` histogram (label mode): worker time of a batch (tokenising, model runs, decoding)
 *  - `translation_sentences_total` counter (labels mode, outcome: ok | error | refused)
 *  - `translation_queue_depth` gauge: sentences waiting for the worker
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
    help: 'Sentences translated, failed or refused (queue full)',
    labelNames: ['mode', 'outcome'],
    registers,
  });
  const queueDepth = deferredGauge(registry, 'translation_queue_depth', 'Sentences waiting for the translation worker');
  return {
    onBatch(event) {
      if (event.ok) {
        batchSize.observe({ mode: event.mode }, event.sentences);
        batchTime.observe({ mode: event.mode }, event.workerMs / 1000);
      }
      sentences.inc({ mode: event.mode, outcome: event.ok ? 'ok' : 'error' }, event.sentences);
    },
    onRefused(event) {
      sentences.inc({ mode: event.mode, outcome: 'refused' }, event.sentences);
    },
    queueDepth,
  };
}
