import { open, stat } from 'node:fs/promises';
import type { Registry } from 'prom-client';
import { AudioTooLargeError, InvalidAudioError } from './audio/audio-errors.js';
import { sniffAudioFormat, type AudioContainer } from './audio/audio-format.js';
import { probeAudio } from './audio/audio-probe.js';
import { resolveMediaTools, type MediaTools } from './audio/ffmpeg-binaries.js';
import type { SegmenterOptions } from './audio/pause-segmenter.js';
import { decodeToPcm, PCM_SAMPLE_RATE } from './audio/pcm-decoder.js';
import type { LoadedModel } from './models/model-loader.js';
import { LANGUAGE_NAMES, ModelRegistry, type ModelChoice, type ModelProblem } from './models/model-registry.js';
import { CtcRecognizer } from './recognition/ctc-recognizer.js';
import { loadLanguageModels, manifestDecodingPlanner, type DecodingPlanner } from './inference/decoding-planner.js';
import { createInferenceMetrics } from './inference/inference-metrics.js';
import { InferencePool, type DeviceReport, type ExecutionDevice, type InferencePoolOptions, type PoolLogger, type PoolModelSpec } from './inference/inference-pool.js';
import { createLanguageDetector, DETECTION_SECONDS, type LanguageDetection, type LanguageDetector } from './recognition/language-detector.js';
import { poolSpecFor } from './inference/model-specs.js';
import { transcribeAll } from './recognition/transcriber.js';
import type { EngineRequest, EngineResult } from './speech-types.js';
import type { SpeechCatalog } from './models/speech-catalog.js';

export interface SpeechEngineOptions {
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
  readonly logger?: PoolLogger;
  /** Batching and queue settings of the pool. */
  readonly pool?: Pick<InferencePoolOptions, 'maxBatchSize' | 'maxWaitMs' | 'interactiveMaxWaitMs' | 'maxQueued' | 'maxBatchElements'>;
  readonly segmenter?: SegmenterOptions;
  /** Pieces of one job in the pool at once. Default 4. */
  readonly maxInFlightPerJob?: number;
  /** Decoding per model; default: from each manifest's `decoding` and `lm` (decoding-planner.ts). */
  readonly decodingPlanner?: DecodingPlanner;
  /** Open the default models and the language-id model in every worker at start. Default true. */
  readonly preload?: boolean;
}

export type { EngineProgress } from './speech-types.js';

export interface TranscriptionResult extends EngineResult {
  readonly detection: LanguageDetection | null;
}

const DEFAULT_MAX_AUDIO_BYTES = 500 * 1024 * 1024;
const SNIFF_HEAD_BYTES = 64;

/**
 * The speech side of the gateway in one object: the model registry, the inference pool, audio
 * decoding, segmentation, CTC decoding and language detection. Its members line up with what
 * the HTTP layer consumes: `catalog` (languages/models/auto), `models.resolve` (the spec's
 * model rules), `sniff` (early format check), `transcribe` (the job runner's engine),
 * `device()` (health), `close()` (shutdown).
 */
export class SpeechEngine {
  readonly catalog: SpeechCatalog;
  readonly models: { resolve(language: string, model?: string | null): ModelChoice };
  private readonly recognizers = new Map<string, CtcRecognizer>();
  private detector: LanguageDetector | null = null;
  private readonly loadProblems: ModelProblem[] = [];

  private constructor(
    readonly registry: ModelRegistry,
    readonly pool: InferencePool,
    readonly tools: MediaTools,
    private readonly options: SpeechEngineOptions,
    private readonly planner: DecodingPlanner,
  ) {
    this.catalog = {
      languages: () => {
        const codes = [...new Set([...Object.keys(LANGUAGE_NAMES), ...registry.languages()])];
        return codes.map((code) => ({ code, name: LANGUAGE_NAMES[code] ?? code, defaultModel: registry.defaultModel(code)?.name ?? null }));
      },
      models: () => {
        const loaded = new Set(pool.loadedModels());
        return registry.languages().flatMap((language) =>
          registry.modelsFor(language).map((m) => ({
            name: m.name,
            language,
            isDefault: registry.isDefault(m),
            loaded: loaded.has(m.name),
            ...(m.manifest.description ? { description: m.manifest.description } : {}),
          })),
        );
      },
      autoDetect: () => registry.autoDetect(),
    };
    this.models = { resolve: (language, model) => registry.resolve(language, model) };
  }

  static async create(options: SpeechEngineOptions): Promise<SpeechEngine> {
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
    const engine = new SpeechEngine(registry, pool, tools, options, options.decodingPlanner ?? manifestDecodingPlanner(new Set(lms.models.keys())));
    engine.loadProblems.push(...lms.problems);
    for (const model of registry.all()) pool.register(engine.poolSpec(model));
    if (options.preload ?? true) await engine.preload();
    return engine;
  }

  /** Model folders skipped at scan time and models whose session failed to open. */
  problems(): readonly ModelProblem[] {
    return [...this.registry.problems(), ...this.loadProblems];
  }

  /** Early format check on the first bytes of an upload (null: refuse with `invalid_audio_format`). */
  sniff(head: Uint8Array): AudioContainer | null {
    return sniffAudioFormat(head);
  }

  device(): DeviceReport {
    return this.pool.deviceReport();
  }

  /** Overload policy: interactive batches wait `ms` to fill (null: back to the configured wait). */
  setInteractiveBatchWait(ms: number | null): void {
    this.pool.setInteractiveMaxWait(ms);
  }

  recognizerFor(modelName: string): CtcRecognizer {
    let recognizer = this.recognizers.get(modelName);
    if (!recognizer) {
      const model = this.registry.get(modelName);
      if (!model || model.kind !== 'ctc') throw new Error(`no CTC model named ${modelName}`);
      recognizer = new CtcRecognizer(this.pool, model, this.planner);
      this.recognizers.set(modelName, recognizer);
    }
    return recognizer;
  }

  /** Detects am/om/ti (any language with a model) from 16 kHz mono PCM; see language-detector.ts. */
  detectLanguage(pcm: Float32Array, signal?: AbortSignal): Promise<LanguageDetection> {
    this.detector ??= createLanguageDetector(this.registry, this.pool, (language) => this.recognizerFor(this.registry.defaultModel(language)!.name));
    return this.detector.detect(pcm, signal);
  }

  /**
   * Transcribes a stored audio file. Throws errors with registry codes: AudioTooLargeError
   * (`file_too_large`), InvalidAudioError (`invalid_audio_format`), ModelSelectionError
   * (`INVALID_FIELD`, `UNSUPPORTED_*`), ModelRunError (`model_error`), InferenceBusyError
   * (`service_unavailable`, after retrying for a minute); the signal's reason when aborted.
   */
  async transcribe(request: EngineRequest): Promise<TranscriptionResult> {
    const { audioPath, signal } = request;
    signal.throwIfAborted();
    let choice = this.registry.resolve(request.language, request.model);
    const size = (await stat(audioPath)).size;
    const maxBytes = this.options.maxAudioBytes ?? DEFAULT_MAX_AUDIO_BYTES;
    if (size > maxBytes) throw new AudioTooLargeError(size, maxBytes);
    if (sniffAudioFormat(await readHead(audioPath, SNIFF_HEAD_BYTES)) === null) {
      throw new InvalidAudioError('The file is not audio in a supported format (MP3, WAV, M4A, FLAC, OGG, WEBM, AAC).');
    }
    request.onProgress({ stage: 'decoding', doneSegments: 0, totalSegments: 0 });
    const probe = await probeAudio(audioPath, { ffprobePath: this.tools.ffprobe, signal });
    let pcm: AsyncIterable<Float32Array> = decodeToPcm(audioPath, { ffmpegPath: this.tools.ffmpeg, signal });
    let detection: LanguageDetection | null = null;
    let closeHead: (() => Promise<void>) | null = null;
    try {
      if (choice.model === null) {
        request.onProgress({ stage: 'detecting_language', doneSegments: 0, totalSegments: 0 });
        const split = await splitHead(pcm, DETECTION_SECONDS * PCM_SAMPLE_RATE);
        pcm = split.stream;
        closeHead = split.close;
        detection = await this.detectLanguage(split.head, signal);
        choice = this.registry.resolve(detection.language, null);
      }
      const model = choice.model!;
      request.onLanguage?.(choice.language, model);
      const { segments, audioMs } = await transcribeAll(pcm, {
        recognizer: this.recognizerFor(model),
        segmenter: this.options.segmenter,
        maxInFlight: this.options.maxInFlightPerJob,
        durationMs: probe.durationSeconds !== null ? probe.durationSeconds * 1000 : null,
        signal,
        onProgress: (p) => request.onProgress({ stage: 'transcribing', doneSegments: p.doneSegments, totalSegments: p.totalSegments }),
      });
      closeHead = null;
      return { language: choice.language, model, durationSeconds: audioMs / 1000, segments, detection };
    } finally {
      if (closeHead) await closeHead();
    }
  }

  /** A model as the pool runs it: CTC models with their decoding plan. */
  private poolSpec(model: LoadedModel): PoolModelSpec {
    return poolSpecFor(model, model.kind === 'ctc' ? this.planner(model) : null);
  }

  /** Finishes queued inference, releases the sessions and ends the workers. */
  close(): Promise<void> {
    return this.pool.close();
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

async function readHead(path: string, bytes: number): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Reads the first `samples` of a PCM stream for language detection and returns them with a
 * stream that replays them and then continues, so the file is decoded once.
 */
export async function splitHead(
  source: AsyncIterable<Float32Array>,
  samples: number,
): Promise<{ head: Float32Array; stream: AsyncIterable<Float32Array>; close: () => Promise<void> }> {
  const iterator = source[Symbol.asyncIterator]();
  const taken: Float32Array[] = [];
  let count = 0;
  let ended = false;
  while (count < samples) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    taken.push(next.value);
    count += next.value.length;
  }
  const head = new Float32Array(Math.min(count, samples));
  let at = 0;
  for (const chunk of taken) {
    if (at >= head.length) break;
    const part = chunk.subarray(0, head.length - at);
    head.set(part, at);
    at += part.length;
  }
  const close = async (): Promise<void> => {
    if (!ended) {
      ended = true;
      await iterator.return?.();
    }
  };
  const stream = (async function* () {
    try {
      while (taken.length > 0) yield taken.shift()!;
      while (!ended) {
        const next = await iterator.next();
        if (next.done) {
          ended = true;
          return;
        }
        yield next.value;
      }
    } finally {
      await close();
    }
  })();
  return { head, stream, close };
}
