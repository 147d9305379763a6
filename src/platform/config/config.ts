import type { S3StorageSettings } from '../files/s3-file-storage.js';
import { readConfigTable, type ConfigValues } from './config-table.js';

/**
 * Gateway configuration, read once from environment variables at start. Every variable is
 * parsed and checked by its entry in CONFIG_TABLE (config-table.ts); all problems are reported
 * together.
 */
export interface GatewayConfig {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string;
  /** Absolute base of links the gateway hands out; null derives it from the listening port. */
  readonly publicBaseUrl: string | null;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly trustProxy: boolean;
  readonly corsAllowedOrigins: readonly string[];
  readonly allowPrivateNetwork: boolean;
  /** Private ranges outbound fetches may reach even when ALLOW_PRIVATE_NETWORK is off. */
  readonly outboundAllowedCidrs: readonly string[];
  readonly signingSecret: string | null;
  readonly defaultLanguage: string;
  readonly modelsDir: string;
  /** DEFAULT_MODELS: a language's default speech model by name (language → model), over the folders' flags. */
  readonly defaultModels: ReadonlyMap<string, string>;
  readonly inferenceDevice: 'cpu' | 'cuda';
  /** FILE_SPEECH_GATE: files decode only Silero-detected speech (`silero`) or every piece with sound (`off`). */
  readonly fileSpeechGate: 'silero' | 'off';
  /** TELEPHONE_MODELS: narrow-band audio with no model named runs on the default's `telephone_model`. */
  readonly telephoneModels: boolean;
  readonly inferenceWorkers: number;
  /** Nice value of the inference worker threads (with SCHED_BATCH); null: same as the event loop. */
  readonly inferenceWorkerNice: number | null;
  /** INFERENCE_INTRA_OP_THREADS: onnxruntime threads per worker's runs; 0: automatic (cores / workers). */
  readonly inferenceIntraOpThreads: number;
  /** Jobs transcribed at once by this process (they share the batched inference pool). */
  readonly jobWorkers: number;
  /** The most of `jobWorkers` one account holds at once (JOB_WORKERS_PER_ACCOUNT; resolved). */
  readonly jobWorkersPerAccount: number;
  /** The translation model (a folder under modelsDir; null: TRANSLATION_MODEL=off) and its batching. */
  readonly translation: {
    readonly model: string | null;
    readonly maxBatch: number;
    readonly maxWaitMs: number;
    readonly maxQueued: number;
    readonly maxQueuedPerAccount: number;
    readonly maxRequestSentences: number;
    /** TRANSLATION_DECODING_GUARDS=on: decode under the degeneration guards. */
    readonly decodingGuards: boolean;
    /** TRANSLATION_TRANSFER=on: answer the folder's `word_transfer` directions from their tables, not the network. */
    readonly transfer: boolean;
  };
  /** The speaker projection of diarization (models/diarization/*.json). */
  readonly diarizationModel: string;
  /** A WeSpeaker / 3D-Speaker speaker-embedding ONNX both diarization backends embed their windows with; null: the built-in speaker features. */
  readonly diarizationEmbeddingModel: string | null;
  /** The overlapped-speech detector of backend_a (models/diarization/overlap-detector-*.json). */
  readonly diarizationOverlapModel: string | null;
  /** The segment-type model (models/segment-types/*.json) used on diarized files. */
  readonly segmentTypeModel: string;
  /** A file's diarization is stopped after this long; the file completes without speakers. */
  readonly diarizationTimeoutMs: number;
  readonly diarizationSpeechDetection: 'energy' | 'silero';
  readonly ffmpegPath: string | null;
  readonly ffprobePath: string | null;
  /** yt-dlp executable for probing streaming-site pages; null when not installed. */
  readonly ytdlpPath: string | null;
  readonly store: {
    readonly backend: 'sqlite' | 'postgres';
    readonly databaseUrl: string | null;
    /** PostgreSQL connections this process keeps at most. */
    readonly poolSize: number;
  };
  readonly rateLimiter: { readonly backend: 'memory' | 'redis' };
  /** How job ids reach workers: this process only, or every process through Redis. */
  readonly queue: { readonly backend: 'in-process' | 'redis' };
  /** Probe results: this process only, or shared through Redis. */
  readonly cache: { readonly backend: 'memory' | 'redis' };
  readonly redisUrl: string;
  /** Prefix of every Redis key the gateway writes (several deployments may share one Redis). */
  readonly redisKeyPrefix: string;
  /**
   * How long a running job's claim holds without renewal (renewed every third of it). A job
   * whose process stopped is taken over by another process this long after its last renewal.
   */
  readonly jobLeaseSeconds: number;
  readonly metricsEnabled: boolean;
  /** Where /metrics is served when metrics are enabled. */
  readonly metrics: MetricsSettings;
  /** Seconds a key record is reused between lookups (revocations elsewhere take this long). */
  readonly keyCacheSeconds: number;
  readonly limits: Limits;
  readonly streaming: StreamingSettings;
  readonly overload: OverloadSettings;
  readonly files: FilesSettings;
  readonly shutdownGraceMs: number;
}

/** Where audio, uploads and transcripts live: files under DATA_DIR, or an S3-compatible bucket. */
export interface FilesSettings {
  readonly backend: 'local' | 's3';
  /** Set when backend is s3. */
  readonly s3: S3StorageSettings | null;
}

/**
 * Graceful overload (docs/streaming.md "Overload"): utilisation is the inference workers' busy
 * fraction measured from the live streams' pieces. Past each threshold, in order: partials thinned,
 * larger interactive batches, new sessions refused (1013). Finals of admitted streams always run.
 */
export interface OverloadSettings {
  /** A fixed cap on live WebSocket sessions in this process; 0: the capacity estimate decides. */
  readonly wsMaxSessions: number;
  readonly partialsOffAt: number;
  /** Past partialsOffAt, one due partial in at most this many is computed (thinned as the workers' load needs); 0: none. */
  readonly partialsMaxStride: number;
  readonly largerBatchesAt: number;
  readonly fullAt: number;
  /** Smoothed inference queue wait of stream pieces that counts as full, ms. */
  readonly maxInferenceWaitMs: number;
  /** OVERLOAD_HOST_CPU_FULL_AT: the host's CPU utilisation (cgroup quota, else the machine) that counts as full (default 0.9); 0: not watched. */
  readonly hostCpuFullAt: number;
  /** How long an interactive batch waits to fill at the larger-batches level, ms. */
  readonly largerBatchWaitMs: number;
  /** New jobs get 503 + Retry-After when the job queue's estimated wait exceeds this; 0: never. */
  readonly jobMaxQueueWaitSeconds: number;
}

export interface MetricsSettings {
  /** Port of the separate metrics listener (0: a free one); null: no metrics listener. */
  readonly port: number | null;
  readonly host: string;
  /** `admin`: /metrics on the main port too, for keys with the admin scope; `off`: not there. */
  readonly onMainPort: 'off' | 'admin';
}

/** WebSocket streaming behaviour (the spec's WebSocket limits live in Limits). */
export interface StreamingSettings {
  /** Silence that ends a turn in server_vad mode (endpointer min silence), ms. */
  readonly endpointSilenceMs: number;
  /** Longest turn before it is split, ms. */
  readonly maxTurnMs: number;
  /** How often an open turn is re-recognised for `partial` messages (when the client asks for them), ms. */
  readonly partialIntervalMs: number;
  /** LIVE_INCREMENTAL_PARTIALS: partials from live streams on models' step graphs (else re-run the open turn). */
  readonly incrementalPartials: boolean;
  /** LIVE_PARTIAL_MODELS: a session model's partials from another model's live stream (model name → partials model name). */
  readonly partialModels: ReadonlyMap<string, string>;
  /** LIVE_PARTIAL_TAIL_BEAM: the beam over a live partial's provisional tail; null: the model's. */
  readonly partialTailBeamWidth: number | null;
  /** LIVE_FINAL_PASS: a turn with a live stream decoded again (`second_pass`) or from the stream's frames (`stream`). */
  readonly finalPass: 'second_pass' | 'stream';
  /** LIVE_SPEECH_GATE: live text only for audio Silero confirms as speech. */
  readonly liveSpeechGate: boolean;
  /** Lifetime of a session token from POST /v1/ws/tokens, seconds. */
  readonly tokenTtlSeconds: number;
  /** Bytes a slow reader may leave unread (uWS buffer + our queue) before the session is closed (1008). */
  readonly maxUnsentBytes: number;
  /** A `lag` message is sent when untranscribed speech exceeds this, ms. */
  readonly lagWarningMs: number;
  /** How long a session whose connection dropped waits for its client to resume it, seconds (0: off). */
  readonly resumeWindowSeconds: number;
}

export interface Limits {
  readonly requestsPerMinute: number;
  /** 0 disables the window. */
  readonly requestsPerHour: number;
  readonly requestsPerDay: number;
  readonly jobSubmissionsPerHour: number;
  readonly concurrentJobs: number;
  readonly dailyAudioMinutes: number;
  readonly batchMaxFiles: number;
  readonly maxAudioBytes: number;
  /** Longest audio per file, probed and decoded (400 file_too_large beyond). */
  readonly maxAudioSeconds: number;
  readonly maxJsonBodyBytes: number;
  readonly listMaxLimit: number;
  readonly syncWaitSeconds: number;
  readonly signedUrlTtlSeconds: number;
  readonly mediaUrlDefaultTtlSeconds: number;
  readonly mediaUrlMaxTtlSeconds: number;
  readonly downloadTimeoutSeconds: number;
  readonly probeTimeoutSeconds: number;
  readonly probeCacheTtlSeconds: number;
  readonly webhookTimeoutSeconds: number;
  readonly webhookRetryScheduleSeconds: readonly number[];
  readonly webhookDisableAfterFailures: number;
  /** Direct uploads never finalized are deleted this long after their upload URL was issued. */
  readonly uploadRetentionSeconds: number;
  /** File translation jobs: expiry after submission (hours), output URL lifetime, units per job, source size, unit concurrency, retry delay. */
  readonly translationJobExpiryHours: number;
  readonly translationOutputUrlTtlSeconds: number;
  readonly translationMaxUnits: number;
  readonly translationMaxSourceBytes: number;
  readonly translationUnitConcurrency: number;
  readonly translationRetryDelayMs: number;
  /** How long a file translation unit waits in all for room in the translation queue. */
  readonly translationQueueWaitSeconds: number;
  readonly wsConnectionsPerKey: number;
  readonly wsSessionSeconds: number;
  readonly wsMessagesPerSecond: number;
  readonly wsBytesPerSecond: number;
  readonly wsMaxMessageBytes: number;
  readonly wsMaxBufferBytes: number;
  /** Audio speed limit per connection, times real time (0: off), and the seconds ahead of real time it allows at once. */
  readonly wsMaxAudioSpeed: number;
  readonly wsAudioBurstSeconds: number;
  /** Audio all sessions of the process may hold; 0: derived from the memory (src/streaming/held-audio.ts). */
  readonly wsMaxProcessBufferBytes: number;
  readonly wsIdleTimeoutSeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): GatewayConfig {
  const { values: v, problems } = readConfigTable(env, cwd);
  // Rules that involve several variables; each variable alone is checked by its table entry.
  if (v.STORE_BACKEND === 'postgres' && v.DATABASE_URL === null) {
    problems.push('DATABASE_URL is required when STORE_BACKEND=postgres');
  }
  if (v.QUEUE_BACKEND === 'redis' && v.STORE_BACKEND !== 'postgres') {
    // Ids handed to other processes must name jobs those processes can read.
    problems.push('QUEUE_BACKEND=redis needs STORE_BACKEND=postgres (every process must see the jobs the queue hands out)');
  }
  if (v.MEDIA_URL_DEFAULT_TTL_SECONDS > v.MEDIA_URL_MAX_TTL_SECONDS) {
    problems.push('MEDIA_URL_DEFAULT_TTL_SECONDS must not exceed MEDIA_URL_MAX_TTL_SECONDS');
  }
  if (v.METRICS_ENABLED && v.METRICS_PORT !== null && v.METRICS_PORT !== 0 && v.METRICS_PORT === v.PORT) {
    problems.push('METRICS_PORT must differ from PORT (use METRICS_ON_MAIN_PORT=admin to serve metrics on the main port)');
  }
  if (!(v.OVERLOAD_PARTIALS_OFF_AT <= v.OVERLOAD_LARGER_BATCHES_AT && v.OVERLOAD_LARGER_BATCHES_AT <= v.OVERLOAD_FULL_AT)) {
    problems.push('the overload thresholds degrade in order: OVERLOAD_PARTIALS_OFF_AT <= OVERLOAD_LARGER_BATCHES_AT <= OVERLOAD_FULL_AT');
  }
  if (v.FILES_BACKEND === 's3') {
    if (v.S3_BUCKET === null) problems.push('S3_BUCKET is required when FILES_BACKEND=s3');
    if ((v.S3_ACCESS_KEY_ID === null) !== (v.S3_SECRET_ACCESS_KEY === null)) {
      problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (or neither: the AWS default credential chain)');
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port: v.PORT,
    host: v.HOST,
    dataDir: v.DATA_DIR,
    publicBaseUrl: v.PUBLIC_BASE_URL,
    logLevel: v.LOG_LEVEL,
    trustProxy: v.TRUST_PROXY,
    corsAllowedOrigins: v.CORS_ALLOWED_ORIGINS,
    allowPrivateNetwork: v.ALLOW_PRIVATE_NETWORK,
    outboundAllowedCidrs: v.OUTBOUND_ALLOWED_CIDRS,
    signingSecret: v.SIGNING_SECRET,
    defaultLanguage: v.DEFAULT_LANGUAGE,
    modelsDir: v.MODELS_DIR,
    defaultModels: v.DEFAULT_MODELS,
    inferenceDevice: v.INFERENCE_DEVICE,
    fileSpeechGate: v.FILE_SPEECH_GATE,
    telephoneModels: v.TELEPHONE_MODELS === 'on',
    inferenceWorkers: v.INFERENCE_WORKERS,
    inferenceWorkerNice: v.INFERENCE_WORKER_NICE,
    inferenceIntraOpThreads: v.INFERENCE_INTRA_OP_THREADS,
    jobWorkers: v.JOB_WORKERS,
    jobWorkersPerAccount: v.JOB_WORKERS_PER_ACCOUNT === 0 ? Math.max(1, v.JOB_WORKERS - 1) : Math.min(v.JOB_WORKERS_PER_ACCOUNT, v.JOB_WORKERS),
    translation: {
      model: v.TRANSLATION_MODEL === 'off' ? null : v.TRANSLATION_MODEL,
      maxBatch: v.TRANSLATION_MAX_BATCH,
      maxWaitMs: v.TRANSLATION_MAX_WAIT_MS,
      maxQueued: v.TRANSLATION_MAX_QUEUED,
      maxQueuedPerAccount: v.TRANSLATION_MAX_QUEUED_PER_ACCOUNT,
      maxRequestSentences: v.TRANSLATION_MAX_REQUEST_SENTENCES,
      decodingGuards: v.TRANSLATION_DECODING_GUARDS === 'on',
      transfer: v.TRANSLATION_TRANSFER === 'on',
    },
    diarizationModel: v.DIARIZATION_MODEL,
    diarizationEmbeddingModel: v.DIARIZATION_EMBEDDING_MODEL,
    diarizationOverlapModel: v.DIARIZATION_OVERLAP_MODEL,
    segmentTypeModel: v.SEGMENT_TYPE_MODEL,
    diarizationTimeoutMs: v.DIARIZATION_TIMEOUT_MS,
    diarizationSpeechDetection: v.DIARIZATION_SPEECH_DETECTION,
    ffmpegPath: v.FFMPEG_PATH,
    ffprobePath: v.FFPROBE_PATH,
    ytdlpPath: v.YTDLP_PATH,
    store: { backend: v.STORE_BACKEND, databaseUrl: v.DATABASE_URL, poolSize: v.DATABASE_POOL_SIZE },
    rateLimiter: { backend: v.RATE_LIMIT_BACKEND },
    queue: { backend: v.QUEUE_BACKEND },
    cache: { backend: v.CACHE_BACKEND },
    redisUrl: v.REDIS_URL,
    redisKeyPrefix: v.REDIS_KEY_PREFIX,
    jobLeaseSeconds: v.JOB_LEASE_SECONDS,
    metricsEnabled: v.METRICS_ENABLED,
    metrics: { port: v.METRICS_PORT, host: v.METRICS_HOST, onMainPort: v.METRICS_ON_MAIN_PORT },
    keyCacheSeconds: v.KEY_CACHE_SECONDS,
    limits: {
      requestsPerMinute: v.RATE_LIMIT_PER_MINUTE,
      requestsPerHour: v.RATE_LIMIT_PER_HOUR,
      requestsPerDay: v.RATE_LIMIT_PER_DAY,
      jobSubmissionsPerHour: v.JOB_SUBMISSIONS_PER_HOUR,
      concurrentJobs: v.MAX_CONCURRENT_JOBS,
      dailyAudioMinutes: v.DAILY_AUDIO_MINUTES,
      batchMaxFiles: v.BATCH_MAX_FILES,
      maxAudioBytes: v.MAX_AUDIO_BYTES,
      maxAudioSeconds: v.MAX_AUDIO_SECONDS,
      maxJsonBodyBytes: v.MAX_JSON_BODY_BYTES,
      listMaxLimit: v.LIST_MAX_LIMIT,
      syncWaitSeconds: v.SYNC_WAIT_SECONDS,
      signedUrlTtlSeconds: v.SIGNED_URL_TTL_SECONDS,
      mediaUrlDefaultTtlSeconds: v.MEDIA_URL_DEFAULT_TTL_SECONDS,
      mediaUrlMaxTtlSeconds: v.MEDIA_URL_MAX_TTL_SECONDS,
      downloadTimeoutSeconds: v.DOWNLOAD_TIMEOUT_SECONDS,
      probeTimeoutSeconds: v.PROBE_TIMEOUT_SECONDS,
      probeCacheTtlSeconds: v.PROBE_CACHE_TTL_SECONDS,
      webhookTimeoutSeconds: v.WEBHOOK_TIMEOUT_SECONDS,
      webhookRetryScheduleSeconds: v.WEBHOOK_RETRY_SCHEDULE,
      webhookDisableAfterFailures: v.WEBHOOK_DISABLE_AFTER_FAILURES,
      uploadRetentionSeconds: v.UPLOAD_RETENTION_SECONDS,
      translationJobExpiryHours: v.TRANSLATION_JOB_EXPIRY_HOURS,
      translationOutputUrlTtlSeconds: v.TRANSLATION_OUTPUT_URL_TTL_SECONDS,
      translationMaxUnits: v.TRANSLATION_MAX_UNITS,
      translationMaxSourceBytes: v.TRANSLATION_MAX_SOURCE_BYTES,
      translationUnitConcurrency: v.TRANSLATION_UNIT_CONCURRENCY,
      translationRetryDelayMs: v.TRANSLATION_RETRY_DELAY_MS,
      translationQueueWaitSeconds: v.TRANSLATION_QUEUE_WAIT_SECONDS,
      wsConnectionsPerKey: v.WS_MAX_CONNECTIONS_PER_KEY,
      wsSessionSeconds: v.WS_MAX_SESSION_SECONDS,
      wsMessagesPerSecond: v.WS_MAX_MESSAGES_PER_SECOND,
      wsBytesPerSecond: v.WS_MAX_BYTES_PER_SECOND,
      wsMaxMessageBytes: v.WS_MAX_MESSAGE_BYTES,
      wsMaxBufferBytes: v.WS_MAX_BUFFER_BYTES,
      wsMaxAudioSpeed: v.WS_MAX_AUDIO_SPEED,
      wsAudioBurstSeconds: v.WS_AUDIO_BURST_SECONDS,
      wsMaxProcessBufferBytes: v.WS_MAX_PROCESS_BUFFER_BYTES,
      wsIdleTimeoutSeconds: v.WS_IDLE_TIMEOUT_SECONDS,
    },
    streaming: {
      endpointSilenceMs: v.WS_ENDPOINT_SILENCE_MS,
      maxTurnMs: v.WS_MAX_TURN_MS,
      partialIntervalMs: v.WS_PARTIAL_INTERVAL_MS,
      incrementalPartials: v.LIVE_INCREMENTAL_PARTIALS === 'on',
      partialModels: v.LIVE_PARTIAL_MODELS,
      partialTailBeamWidth: v.LIVE_PARTIAL_TAIL_BEAM === 0 ? null : v.LIVE_PARTIAL_TAIL_BEAM,
      finalPass: v.LIVE_FINAL_PASS,
      liveSpeechGate: v.LIVE_SPEECH_GATE === 'on',
      tokenTtlSeconds: v.WS_TOKEN_TTL_SECONDS,
      maxUnsentBytes: v.WS_MAX_UNSENT_BYTES,
      lagWarningMs: v.WS_LAG_WARNING_MS,
      resumeWindowSeconds: v.WS_RESUME_WINDOW_SECONDS,
    },
    overload: {
      wsMaxSessions: v.WS_MAX_SESSIONS,
      partialsOffAt: v.OVERLOAD_PARTIALS_OFF_AT,
      partialsMaxStride: v.OVERLOAD_PARTIALS_MAX_STRIDE,
      largerBatchesAt: v.OVERLOAD_LARGER_BATCHES_AT,
      fullAt: v.OVERLOAD_FULL_AT,
      maxInferenceWaitMs: v.OVERLOAD_MAX_INFERENCE_WAIT_MS,
      hostCpuFullAt: v.OVERLOAD_HOST_CPU_FULL_AT,
      largerBatchWaitMs: v.OVERLOAD_BATCH_WAIT_MS,
      jobMaxQueueWaitSeconds: v.JOB_MAX_QUEUE_WAIT_SECONDS,
    },
    files: filesSettings(v),
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
  };
}

function filesSettings(v: ConfigValues): FilesSettings {
  if (v.FILES_BACKEND === 'local') return { backend: 'local', s3: null };
  const accessKeyId = v.S3_ACCESS_KEY_ID;
  const secretAccessKey = v.S3_SECRET_ACCESS_KEY;
  return {
    backend: 's3',
    s3: {
      bucket: v.S3_BUCKET ?? '',
      region: v.S3_REGION,
      endpoint: v.S3_ENDPOINT,
      forcePathStyle: v.S3_FORCE_PATH_STYLE,
      credentials: accessKeyId !== null && secretAccessKey !== null ? { accessKeyId, secretAccessKey } : null,
      prefix: v.S3_PREFIX,
      presignedDownloads: v.S3_PRESIGNED_DOWNLOADS,
      directUploads: v.S3_DIRECT_UPLOADS,
    },
  };
}

/** The configuration as it may be logged: secrets and credentials in URLs replaced. */
export function redactedConfig(config: GatewayConfig): Record<string, unknown> {
  const redactUrl = (value: string | null): string | null => {
    if (value === null) return null;
    try {
      const url = new URL(value);
      if (url.password) url.password = '[redacted]';
      return url.toString();
    } catch {
      return '[redacted]';
    }
  };
  return {
    ...config,
    signingSecret: config.signingSecret === null ? null : '[redacted]',
    store: { ...config.store, databaseUrl: redactUrl(config.store.databaseUrl) },
    redisUrl: redactUrl(config.redisUrl),
    files:
      config.files.s3 === null
        ? config.files
        : {
            ...config.files,
            s3: {
              ...config.files.s3,
              credentials:
                config.files.s3.credentials === null ? null : { accessKeyId: config.files.s3.credentials.accessKeyId, secretAccessKey: '[redacted]' },
            },
          },
  };
}
