// The diarization engine's façade: the one module other layers (and other engines) import for
// "who spoke when" and segment types. `Diarization` owns the long-lived diarization threads
// (started on the first diarized file; they load the speaker projection or the speaker-embedding
// network, the overlap detector and the segment-type model once) and the diarization metrics; `diarizer` is what file
// transcription (asr/) calls once a file is decoded. Inside: features and i-vectors
// (speaker-*.ts), clustering and the speaker count, turns (diarize.ts), overlap, segment types,
// and transcript-diarization.ts (speakers onto transcript segments). docs/diarization.md.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { Registry } from 'prom-client';
import { createDiarizationMetrics, createEmbeddingModelMetrics, type DiarizationEvent } from './diarization-metrics.js';
import { DiarizationThreads } from './diarization-thread.js';
import type { Diarizer } from './transcript-diarization.js';

export { DIARIZATION_BACKENDS, MAX_SPEAKERS, type DiarizationBackend, type SpeechSpan } from './diarize.js';
export type { DiarizedAudio } from './diarization-thread.js';
export type { DiarizationEvent } from './diarization-metrics.js';
export type { SpeakerSummary } from './speaker-assignment.js';
export {
  assignDiarization,
  diarizeAudio,
  MAX_DIARIZATION_SECONDS,
  type AudioDiarization,
  type DiarizationRequest,
  type Diarizer,
  type FileDiarization,
} from './transcript-diarization.js';

export interface DiarizationEngineOptions {
  /** The speaker model (DIARIZATION_MODEL). Default models/diarization/speaker-ivector-v3.json under the working folder. */
  readonly speakerModel?: string;
  /**
   * A WeSpeaker / 3D-Speaker speaker-embedding ONNX (DIARIZATION_EMBEDDING_MODEL) both backends embed
   * their windows with, in place of `speakerModel`; absent or null: the speaker model. Check it
   * with `Diarization.open`.
   */
  readonly embeddingModel?: string | null;
  /** The overlapped-speech detector of backend_a (DIARIZATION_OVERLAP_MODEL); null: none (one speaker at a time). */
  readonly overlapModel?: string | null;
  /** The segment-type model (SEGMENT_TYPE_MODEL); null: no segment types (all `speech`). */
  readonly segmentTypeModel?: string | null;
  /** A file's diarization is abandoned after this long (DIARIZATION_TIMEOUT_MS). Default 5 minutes. */
  readonly timeoutMs?: number;
  /** The threads' nice value (as the inference workers'); null leaves it. Default 10. */
  readonly nice?: number | null;
  /** Prometheus registry for the diarization metrics; none when absent. */
  readonly metrics?: Registry | null;
  readonly logger?: { warn(details: object, message: string): void; info(details: object, message: string): void };
}

const DEFAULT_SPEAKER_MODEL = 'models/diarization/speaker-ivector-v3.json';
const DEFAULT_SEGMENT_TYPE_MODEL = 'models/segment-types/segment-types-v1.json';
const DEFAULT_OVERLAP_MODEL = 'models/diarization/overlap-detector-v1.json';
const DEFAULT_TIMEOUT_MS = 300_000;

export class Diarization {
  private threads: DiarizationThreads | null = null;
  private readonly speakerModel: string;
  private readonly typeModel: string | null;
  private readonly overlapModel: string | null;
  private readonly embeddingModel: string | null;
  /** Told how each requested diarization ended (metrics); null without a registry. */
  readonly observer: ((event: DiarizationEvent) => void) | null;
  private readonly countModelWindows: ((backend: DiarizationEvent['backend'], windows: number) => void) | null;

  /**
   * The engine, after checking the speaker-embedding network when one is configured: it is opened,
   * run once on a second of silence and released, and start-up stops with a
   * SpeakerEmbeddingModelError naming the file when it is missing, lacks the metadata, has another
   * signature or does not run. Logs what it is.
   */
  static async open(options: DiarizationEngineOptions = {}): Promise<Diarization> {
    const path = options.embeddingModel ?? null;
    if (path !== null) {
      // Loaded only when configured: onnxruntime stays out of the main thread otherwise.
      const { checkSpeakerEmbeddingModel } = await import('./speaker-embedding-model.js');
      const model = await checkSpeakerEmbeddingModel(path);
      options.logger?.info({ diarizationEmbeddingModel: path, ...model }, 'diarization embeds speaker windows with a speaker-embedding network');
    }
    return new Diarization(options);
  }

  /** Warns (does not fail) about configured models that are missing: diarized files then complete with a warning. */
  constructor(private readonly options: DiarizationEngineOptions = {}) {
    this.speakerModel = options.speakerModel ?? DEFAULT_SPEAKER_MODEL;
    this.typeModel = options.segmentTypeModel === undefined ? DEFAULT_SEGMENT_TYPE_MODEL : options.segmentTypeModel;
    this.overlapModel = options.overlapModel === undefined ? DEFAULT_OVERLAP_MODEL : options.overlapModel;
    this.embeddingModel = options.embeddingModel ?? null;
    this.observer = options.metrics ? createDiarizationMetrics(options.metrics) : null;
    this.countModelWindows = options.metrics && this.embeddingModel !== null ? createEmbeddingModelMetrics(options.metrics) : null;
    const log = options.logger;
    if (this.embeddingModel === null && !existsSync(this.speakerModel))
      log?.warn({ diarizationModel: this.speakerModel }, 'speaker projection not found: diarization requests will complete with a warning');
    if (this.typeModel !== null && !existsSync(this.typeModel))
      log?.warn({ segmentTypeModel: this.typeModel }, 'segment-type model not found: diarized segments will be typed speech, with a warning');
    if (this.overlapModel !== null && !existsSync(this.overlapModel))
      log?.warn({ diarizationOverlapModel: this.overlapModel }, 'overlap detector not found: backend_a will give one speaker at a time, with a warning');
  }

  /**
   * Diarizes one file's 16 kHz PCM in a diarization thread under the time limit (rejects with a
   * DiarizationError when it fails or times out; file transcription turns that into a warning).
   */
  readonly diarizer: Diarizer = async (pcm, options, signal, speech) => {
    const audio = await this.threadsFor().run(pcm, options, {
      timeoutMs: this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      signal,
      ...(speech !== undefined ? { speech } : {}),
    });
    if (audio.modelWindows !== undefined && audio.modelWindows > 0) this.countModelWindows?.(options.backend, audio.modelWindows);
    return audio;
  };

  /** Ends the diarization threads (running files are abandoned). Idempotent. */
  async close(): Promise<void> {
    const threads = this.threads;
    this.threads = null;
    await threads?.close();
  }

  /**
   * The threads, started on the first diarized file: one per four cores, at least one (the
   * rest of the files wait), each ending when idle.
   */
  private threadsFor(): DiarizationThreads {
    this.threads ??= new DiarizationThreads({
      projectionPath: this.speakerModel,
      embeddingModelPath: this.embeddingModel,
      typeModelPath: this.typeModel,
      overlapModelPath: this.overlapModel,
      nice: this.options.nice === undefined ? 10 : this.options.nice,
      maxThreads: Math.max(1, Math.floor(availableParallelism() / 4)),
      maxQueued: 256,
    });
    return this.threads;
  }
}
