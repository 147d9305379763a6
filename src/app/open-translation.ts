import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../platform/config/config.js';
import type { Registry } from 'prom-client';
import { createTranslationMetrics, OnnxTranslationEngine, type TranslationEngine } from '../engines/translation/translation.js';

/**
 * Opens the translation engine named by TRANSLATION_MODEL (a folder under MODELS_DIR), loaded
 * and warm before the gateway listens. Translation is optional: when it is switched off, the
 * folder is missing or the model does not load, the reason is logged, the gateway starts
 * without it and `POST /translate/v1` answers 500 `service_unavailable`. The translation metrics are
 * registered either way.
 */
export async function openTranslation(config: GatewayConfig, logger: Logger, metrics: Registry | null): Promise<TranslationEngine | null> {
  // Registered whether or not a model loads, so dashboards read zeros rather than no data.
  const observer = metrics ? createTranslationMetrics(metrics) : undefined;
  const name = config.translation.model;
  if (name === null) {
    logger.info('translation is off (TRANSLATION_MODEL=off)');
    return null;
  }
  const folder = join(config.modelsDir, name);
  if (!existsSync(folder)) {
    logger.warn({ folder }, 'translation model folder not found: text translation is unavailable');
    return null;
  }
  try {
    const started = performance.now();
    const engine = await OnnxTranslationEngine.open(folder, {
      maxBatch: config.translation.maxBatch,
      maxWaitMs: config.translation.maxWaitMs,
      maxQueued: config.translation.maxQueued,
      maxQueuedPerTenant: config.translation.maxQueuedPerAccount,
      maxRequestSentences: config.translation.maxRequestSentences,
      decodingGuards: config.translation.decodingGuards,
      wordTransfer: config.translation.transfer,
      workerNice: config.inferenceWorkerNice,
      logger,
      observer,
    });
    logger.info(
      {
        model: engine.name,
        languages: engine.languages,
        decodingGuards: config.translation.decodingGuards,
        transferDirections: engine.wordTransferDirections,
        loadMs: Math.round(performance.now() - started),
      },
      'translation model loaded',
    );
    return engine;
  } catch (error) {
    logger.error({ folder, err: error }, 'translation model did not load: text translation is unavailable');
    return null;
  }
}
