// The speech-recognition engine's façade: the one module other layers import for speech to
// text (types included). `Asr`, built by `Asr.create`, does model choice, file transcription,
// live-stream pieces and language detection over one batched inference pool shared by REST jobs
// and streams; a file asked to be diarized is diarized beside its recognition through the
// hooks `createEngines` (engines.ts) gives it from the diarization and VAD engines.
//
// Inside: the model registry (MODELS_DIR), the inference pool (worker threads), pause
// segmentation, CTC decoding with the character LM, language detection, text normalisation;
// file decoding comes from signal/. Lifetime: built once at start-up; `close()` finishes queued
// inference and ends the workers (after the WebSocket sessions are done).
import type { Registry } from 'prom-client';
import type { Segment } from '../../platform/db/job-records.js';
import { sniffAudioFormat, type AudioContainer } from '../signal/files/audio-format.js';
import { resolveMediaTools, type MediaTools } from '../../platform/subprocess/media-tools.js';
import { checkProbedAudio, probeAudio } from '../signal/files/audio-probe.js';
import type { SegmenterOptions } from './recognition/pause-segmenter.js';
import type { DecodingPlan } from './decoding/decoding-plan.js';
import { loadLanguageModels, manifestDecodingPlanner, type DecodingPlanner } from './inference/decoding-planner.js';
import { createInferenceMetrics } from './inference/inference-metrics.js';
import { InferencePool, type ExecutionDevice, type InferencePoolOptions, type PoolLogger, type PoolStats } from './inference/inference-pool.js';
import { poolSpecFor } from './inference/model-specs.js';
import { forOutput } from './text/text-normalizer.js';
import type { LoadedModel } from './models/model-loader.js';
import type { LanguageInfo, ModelInfo } from './models/model-info.js';
import { LANGUAGE_NAMES, ModelRegistry, type AudioBand, type ModelProblem } from './models/model-registry.js';
import { checkPartialModels } from './models/partial-models.js';
import { CtcRecognizer, type InferenceCost, type TimedWord } from './recognition/ctc-recognizer.js';
import {
  DEFAULT_MAX_AUDIO_SECONDS,
  transcribeFile,
  type FileTranscription,
  type FileTranscriptionParts,
  type FileTranscriptionRequest,
} from './recognition/file-transcription.js';
import { recognizedSegment, transcribeAll } from './recognition/transcriber.js';
import { ModelRunError } from './inference/inference-errors.js';
import { SpeechGate, type SpeechProbabilities } from './recognition/speech-gate.js';
import { createLanguageDetector, type LanguageDetection, type LanguageDetector } from './recognition/language-detector.js';

// Value types callers outside the engine use (re-exported: this module is their one import).
export type { LanguageInfo, ModelInfo } from './models/model-info.js';
export type { AudioAllowance, FileTranscription, FileTranscriptionProgress, FileTranscriptionRequest } from './recognition/file-transcription.js';
export type { InferenceCost, TimedWord } from './recognition/ctc-recognizer.js';
export type { PoolStats, StreamPartial } from './inference/inference-pool.js';
import type { StreamPartial } from './inference/inference-pool.js';
export type { AudioBand, ModelProblem } from './models/model-registry.js';
export { audioBandOf } from './models/model-registry.js';
export { CHANNEL_NAMES_RULE, DEFAULT_CHANNEL_NAMES, mergeChannelSegments, parseChannelNames, speakerLines } from './recognition/channel-segments.js';
/** Keyterms of a request (REST, job API, WebSocket, OpenAI `prompt`): their limits and check. */
export { checkKeyterms, KEYTERM_LIMITS, keytermProblemText, type KeytermProblem } from './decoding/keyterm-bias.js';

// Offline tools (src/app/cli: `npm run models`, `npm run lm`): model folders, the decoders, the
// character LM and its corpus, the CTC import of public exports. The running gateway uses `Asr`.
export { CtcBeamDecoder } from './decoding/ctc-beam-decoder.js';
export { CtcGreedyDecoder } from './decoding/ctc-greedy-decoder.js';
export { buildCharNgramLm } from './decoding/lm/char-ngram-builder.js';
export { CharNgramLm, FLAG_LOWERCASE, FLAG_PUNCTUATION, UNK } from './decoding/lm/char-ngram-lm.js';
export { corpusSources, HORNMT_HELD_OUT_FROM, parseKaldiText, readCorpus } from './decoding/lm/lm-corpus.js';
export { InputPreparer } from './inference/model-input.js';
export { loadModelFolder, type LoadedModel } from './models/model-loader.js';
export { ModelRegistry } from './models/model-registry.js';
export { forLm, usesEthiopicScript } from './text/text-normalizer.js';
export { CTC_ONNX_VARIANTS, CtcImportError, pickCtcOnnxFile, planCtcImport, type OnnxTensorInfo } from './models/ctc-import.js';

export interface AsrLogger extends PoolLogger {
  error(details: object, message: string): void;
}

export interface AsrOptions {
  /** Folder of model folders (MODELS_DIR); ignored when `registry` is given. */
  readonly modelsDir?: string;
  readonly registry?: ModelRegistry;
  /** DEFAULT_MODELS: a language's default model by name (language → model), over the folders' `default` flags. */
  readonly defaultModels?: ReadonlyMap<string, string>;
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
  /** Longest audio accepted per file, probed and decoded (MAX_AUDIO_SECONDS). Default 4 h. */
  readonly maxAudioSeconds?: number;
  /** Prometheus registry for the pool's metrics; none when absent. */
  readonly metrics?: Registry | null;
  readonly logger?: AsrLogger;
  /** Batching and queue settings of the pool. */
  readonly pool?: Pick<InferencePoolOptions, 'maxBatchSize' | 'maxWaitMs' | 'interactiveMaxWaitMs' | 'maxQueued' | 'maxBatchElements'>;
  readonly segmenter?: SegmenterOptions;
  /** Pieces of one job in the pool at once. Default 4. */
  readonly maxInFlightPerJob?: number;
  /** Decoding per model; default: from each manifest's `decoding` and `lm` (decoding-planner.ts). */
  readonly decodingPlanner?: DecodingPlanner;
  /** Open the default models, their telephone models and the language-id model in every worker at start. Default true. */
  readonly preload?: boolean;
  /**
   * Diarization of files asked for it, beside their recognition (file-transcription.ts): the
   * diarizer, the VAD's speech spans and the metrics hook; absent: diarized requests fail.
   */
  readonly diarization?: Pick<FileTranscriptionParts, 'diarize' | 'speechSpans' | 'onDiarized'>;
  /**
   * FILE_SPEECH_GATE (recognition/speech-gate.ts): files decode only the speech of each pause-cut
   * piece, found by `speechProbabilities` (the VAD engine's Silero; null: Silero unavailable, the
   * energy confirmation alone, logged once). Absent or null: every piece with sound is decoded.
   */
  readonly speechGate?: { readonly speechProbabilities: SpeechProbabilities | null } | null;
  /**
   * LIVE_PARTIAL_MODELS: live partials of a session on model K come from the live stream of model
   * V (same language and vocabulary, with a streaming step graph; checked by `create`, which
   * refuses a pair that breaks a rule). Turns are still decoded by K.
   */
  readonly partialModels?: ReadonlyMap<string, string>;
  /** LIVE_PARTIAL_TAIL_BEAM: the beam over each live partial's provisional tail; null or absent: the model's beam. */
  readonly partialTailBeamWidth?: number | null;
  /**
   * TELEPHONE_MODELS: narrow-band audio (8 kHz or less) with no model named runs on the default's
   * `telephone_model` where its manifest names one (true, the default); false: on the default itself.
   */
  readonly telephoneModels?: boolean;
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
/** A live turn's stream on its model's step graph (issue 30; `Asr.openPartialStream`). */
export interface LiveTurnStream {
  readonly model: string;
  /** The turn's audio since the last step (with `restart`, from the turn's start): its partial. `pcm` goes to the worker. */
  step(pcm: Float32Array, restart: boolean): Promise<StreamPartial>;
  /**
   * The turn's last audio: the turn transcribed from the frames the stream computed (one pass,
   * running normalisation), as one segment of `turn` (its start, stream ms, and its samples);
   * closes the stream.
   */
  finish(pcm: Float32Array, restart: boolean, turn: { readonly startMs: number; readonly samples: number }): Promise<PieceTranscription>;
  close(): void;
}

export interface PieceTranscription {
  /** The segments' texts joined with spaces, as a REST job's `text`. */
  readonly text: string;
  /** Mean of the segments' confidences; null when nothing was recognised. */
  readonly confidence: number | null;
  /** Segments in stream milliseconds (offset by `startMs`, their `words` too); ids from 0 within the piece. */
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
  /** The session's keyterms (checked: checkKeyterms), boosted in the beam search as for files. */
  readonly keyterms?: readonly string[] | null;
}

/** A detected language with the default model that runs it. */
export interface DetectedLanguage extends LanguageDetection {
  readonly model: string;
}

const DEFAULT_MAX_AUDIO_BYTES = 500 * 1024 * 1024;
/** How long a live piece waits out a full pool queue before the session gets `service_unavailable`. */
const STREAM_BUSY_RETRY_MS = 5_000;
/**
 * Audio in, text out: model choice, file transcription, live-stream pieces, language detection
 * and health, over one batched inference pool shared by REST jobs and streams.
 */
export class Asr {
  private readonly recognizers = new Map<string, CtcRecognizer>();
  private detector: LanguageDetector | null = null;
  private readonly loadProblems: ModelProblem[] = [];
  private readonly speechGate: SpeechGate | null;
  private constructor(
    private readonly registry: ModelRegistry,
    private readonly pool: InferencePool,
    private readonly tools: MediaTools,
    private readonly options: AsrOptions,
    private readonly planner: DecodingPlanner,
  ) {
    this.speechGate = options.speechGate ? new SpeechGate(options.speechGate.speechProbabilities, options.logger) : null;
  }

  /** Scans the models, starts the inference workers and (by default) opens the default models. */
  static async create(options: AsrOptions): Promise<Asr> {
    const registry = options.registry ?? (await ModelRegistry.scan(options.modelsDir ?? 'models'));
    // folders that failed to load, and rules a manifest broke (a duplicate name or default, an unusable telephone_model)
    for (const problem of registry.problems()) options.logger?.warn({ dir: problem.dir }, `model folder problem: ${problem.message}`);
    if (options.defaultModels) registry.chooseDefaults(options.defaultModels); // before any worker starts
    if (options.telephoneModels === false) registry.disableTelephoneModels();
    checkPartialModels(registry, options.partialModels);
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
    const asr = new Asr(registry, pool, tools, options, options.decodingPlanner ?? manifestDecodingPlanner(new Set(lms.models.keys())));
    asr.loadProblems.push(...lms.problems);
    for (const model of registry.all()) pool.register(asr.poolSpec(model));
    if (options.preload ?? true) await asr.preload();
    const models = asr.models();
    if (models.length === 0) options.logger?.warn({ modelsDir: options.modelsDir }, 'no speech models found: transcription requests will be refused');
    else options.logger?.info({ models: models.map((m) => m.name), device: pool.deviceReport() }, 'speech models ready');
    return asr;
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
   * `auto`), or a ModelSelectionError (engine error kinds model_with_auto, unsupported_model,
   * unsupported_language; param `model` or `language`). `band` `narrowband` (8 kHz streams) picks
   * the default's telephone model when no model is named.
   */
  resolveModel(language: string, model?: string | null, band?: AudioBand): { language: string; model: string | null } {
    return this.registry.resolve(language, model ?? null, band);
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

  /**
   * Reads a stored file's container (ffprobe) and throws invalid_audio_format if it is not decodable
   * audio or states an impossible sample rate, file_too_large past the longest accepted duration
   * (checkProbedAudio); returns its channel count and probed duration.
   */
  async verifyAudio(path: string, signal?: AbortSignal): Promise<{ channels: number; durationSeconds: number | null }> {
    const probe = await probeAudio(path, { ffprobePath: this.tools.ffprobe, timeoutMs: 20_000, ...(signal ? { signal } : {}) });
    checkProbedAudio(probe, this.options.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS);
    return { channels: probe.channels, durationSeconds: probe.durationSeconds };
  }

  /**
   * Transcribes a stored audio file (recognition/file-transcription.ts: the errors it throws).
   * With `request.diarization`, the file is diarized beside its recognition once it is decoded
   * (AsrOptions.diarization: the VAD's speech spans, then the diarizer) and the segments carry
   * speakers; a diarization that fails or times out never fails the transcription:
   * `diarization.warning` says why there are no speakers.
   */
  transcribe(request: FileTranscriptionRequest): Promise<FileTranscription> {
    return transcribeFile(
      {
        registry: this.registry,
        ffmpeg: this.tools.ffmpeg,
        ffprobe: this.tools.ffprobe,
        maxAudioBytes: this.options.maxAudioBytes ?? DEFAULT_MAX_AUDIO_BYTES,
        maxAudioSeconds: this.options.maxAudioSeconds ?? DEFAULT_MAX_AUDIO_SECONDS,
        segmenter: this.options.segmenter,
        maxInFlightPerJob: this.options.maxInFlightPerJob,
        speechGate: this.speechGate,
        recognizerFor: (model) => this.recognizerFor(model),
        detectLanguage: (pcm, signal) => this.languageDetector().detect(pcm, signal),
        ...this.options.diarization,
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
      keyterms: options.keyterms ?? null,
    });
    return { text: result.text, confidence: result.confidence, words: result.words, inference: result.inference };
  }

  /**
   * A live stream for a turn's partials on the model's streaming step graph (issue 30:
   * inference-pool.ts `openStream`); null when the model folder has none. `keyterms` already
   * checked (checkKeyterms).
   */
  openPartialStream(sessionModel: string, keyterms: readonly string[] | null): LiveTurnStream | null {
    // LIVE_PARTIAL_MODELS: another model's stream computes this model's partials
    const model = this.options.partialModels?.get(sessionModel) ?? sessionModel;
    const loaded = this.registry.get(model);
    if (loaded?.kind !== 'ctc' || !loaded.streaming) return null;
    const recognizer = this.recognizerFor(model);
    const stream = this.pool.openStream(model, keyterms, this.options.partialTailBeamWidth ?? null);
    // the text normalised for output as a turn's (CtcRecognizer.recognize)
    const trueCase = loaded.manifest.output.casing === 'true_case';
    const output = (text: string): string => forOutput(text, loaded.language, { trueCase });
    return {
      model,
      close: () => stream.close(),
      step: async (pcm, restart) => {
        const partial = await stream.step(pcm, restart);
        return { ...partial, text: output(partial.text), stableText: output(partial.stableText) };
      },
      finish: async (pcm, restart, turn) => {
        const last = await stream.finish(pcm, restart);
        if (!last.final) throw new ModelRunError(model, 'the live stream ended without its final hypothesis');
        const inference = { workerMs: last.workerMs, batchSize: last.batchSize, queueWaitMs: last.queueWaitMs };
        const recognition = recognizer.recognitionOf(last.final.hypothesis, last.final.frames, turn.samples, turn.startMs, inference);
        // one segment, as the REST path makes of a recognised span
        const segment = recognizedSegment(recognition, turn.startMs, turn.startMs + Math.round(turn.samples / 16), this.speechGate);
        if (segment === null) return { text: '', confidence: null, segments: [], inference };
        return { text: segment.text, confidence: segment.confidence, segments: [{ ...segment, id: 0 }], inference };
      },
    };
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
      keyterms: options.keyterms ?? null,
      onInference: (cost) => {
        const workerMs = (inference?.workerMs ?? 0) + cost.workerMs / Math.max(1, cost.batchSize);
        inference = { workerMs, batchSize: 1, queueWaitMs: Math.max(inference?.queueWaitMs ?? 0, cost.queueWaitMs) };
      },
    });
    const shift = (ms: number): number => ms + options.startMs;
    const shifted = segments.map((segment) => ({
      ...segment,
      start_ms: shift(segment.start_ms),
      end_ms: shift(segment.end_ms),
      ...(segment.words ? { words: segment.words.map((w) => ({ ...w, start_ms: shift(w.start_ms), end_ms: shift(w.end_ms) })) } : {}),
    }));
    const scored = shifted.filter((segment) => segment.confidence !== null);
    return {
      text: shifted.map((segment) => segment.text).join(' '),
      confidence: scored.length === 0 ? null : scored.reduce((sum, segment) => sum + segment.confidence!, 0) / scored.length,
      segments: shifted,
      inference,
    };
  }

  /**
   * For `language=auto`: the language of 16 kHz mono PCM (its first seconds of speech) and its
   * default model (for `narrowband` audio, the default's telephone model where there is one).
   */
  async detectLanguage(pcm: Float32Array, signal?: AbortSignal, band?: AudioBand): Promise<DetectedLanguage> {
    const detection = await this.languageDetector().detect(pcm, signal);
    const choice = this.registry.resolve(detection.language, null, band);
    if (choice.model === null) throw new Error(`no default model for detected language ${detection.language}`);
    return { ...detection, language: choice.language, model: choice.model };
  }

  // --- Health -------------------------------------------------------------------------------

  device(): { requested: string; active: string; workers: number } {
    const report = this.pool.deviceReport();
    return { requested: report.requested, active: report.active, workers: report.workers };
  }

  /** Model folders skipped at scan time and models whose session failed to open. */
  problems(): readonly ModelProblem[] {
    return [...this.registry.problems(), ...this.loadProblems];
  }

  poolStats(): PoolStats {
    return this.pool.stats();
  }

  /** Finishes queued inference, releases the sessions and ends the workers. */
  async close(): Promise<void> {
    await this.pool.close();
  }

  // --- Internal -----------------------------------------------------------------------------

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
    const defaults = this.registry.languages().map((language) => this.registry.defaultModel(language)!);
    // a default's telephone model too: the first 8 kHz call should not wait for a session to open
    const phones = defaults.flatMap((model) => {
      const phone = this.registry.telephoneModelOf(model.name); // checked at scan: a model of the registry
      return phone === null ? [] : [this.registry.get(phone)!];
    });
    const wanted = [...defaults, ...phones];
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
