// The engines composed from the configuration: the one place that builds them and wires them
// together (file transcription diarizes through the diarization engine, with the VAD engine's
// speech spans). Built once at start-up by the composition root (src/app); `close()` stops them
// in order: diarization (its threads end), then recognition (finishes queued inference), then Silero.
import type { Registry } from 'prom-client';
import type { GatewayConfig } from '../platform/config/config.js';
import { Asr, type AsrLogger } from './asr/asr.js';
import { Diarization } from './diarization/diarization.js';
import { Vad } from './vad/vad.js';

export interface Engines {
  readonly asr: Asr;
  readonly vad: Vad;
  readonly diarization: Diarization;
  /** Stops recognition, diarization and the VAD, in that order (after the WebSocket sessions are done). */
  close(): Promise<void>;
}

export interface EnginesLogger extends AsrLogger {
  error(details: object, message: string): void;
}

/**
 * The gateway's engines on the configured models (MODELS_DIR, INFERENCE_*, FFMPEG_PATH,
 * FFPROBE_PATH, the audio size limit, DIARIZATION_*, SEGMENT_TYPE_MODEL, FILE_SPEECH_GATE); a
 * DIARIZATION_EMBEDDING_MODEL that cannot be used stops it (Diarization.open). Translation is opened
 * on its own (its model is optional and loads in the background: src/app/open-translation.ts).
 */
export async function createEngines(config: GatewayConfig, logger: EnginesLogger, metrics: Registry | null = null): Promise<Engines> {
  // DIARIZATION_EMBEDDING_MODEL is checked first: a bad file stops start-up before anything runs.
  const diarization = await Diarization.open({
    speakerModel: config.diarizationModel,
    embeddingModel: config.diarizationEmbeddingModel,
    overlapModel: config.diarizationOverlapModel,
    segmentTypeModel: config.segmentTypeModel,
    timeoutMs: config.diarizationTimeoutMs,
    nice: config.inferenceWorkerNice,
    metrics,
    logger,
  });
  const vad = new Vad(logger);
  const asr = await Asr.create({
    modelsDir: config.modelsDir,
    defaultModels: config.defaultModels,
    device: config.inferenceDevice,
    workers: config.inferenceWorkers,
    ...(config.inferenceIntraOpThreads > 0 ? { intraOpThreads: config.inferenceIntraOpThreads } : {}),
    workerNice: config.inferenceWorkerNice,
    ffmpegPath: config.ffmpegPath,
    ffprobePath: config.ffprobePath,
    maxAudioBytes: config.limits.maxAudioBytes,
    maxAudioSeconds: config.limits.maxAudioSeconds,
    partialModels: config.streaming.partialModels,
    partialTailBeamWidth: config.streaming.partialTailBeamWidth,
    telephoneModels: config.telephoneModels,
    diarization: {
      diarize: diarization.diarizer,
      ...(config.diarizationSpeechDetection === 'silero' ? { speechSpans: (pcm: Float32Array, signal: AbortSignal) => vad.fileSpeechSpans(pcm, signal) } : {}),
      ...(diarization.observer !== null ? { onDiarized: diarization.observer } : {}),
    },
    // FILE_SPEECH_GATE: files decode only what the shared Silero calls speech (an energy check when it is unavailable).
    speechGate:
      config.fileSpeechGate === 'off'
        ? null
        : { speechProbabilities: vad.available().silero ? (pcm: Float32Array, signal: AbortSignal) => vad.speechProbabilities(pcm, signal) : null },
    metrics,
    logger,
  });
  return {
    asr,
    vad,
    diarization,
    async close() {
      try {
        await diarization.close();
        await asr.close();
      } finally {
        await vad.close();
      }
    },
  };
}
