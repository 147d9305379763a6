import { readConfigTable } from './config-table.js';

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
  readonly inferenceDevice: 'cpu' | 'cuda';
  readonly inferenceWorkers: number;
  /** Nice value of the inference worker threads (with SCHED_BATCH); null: same as the event loop. */
  readonly inferenceWorkerNice: number | null;
  /** Jobs transcribed at once by this process (they share the batched inference pool). */
  readonly jobWorkers: number;
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
  readonly shutdownGraceMs: number;
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
  /** Lifetime of a session token from POST /v1/ws/tokens, seconds. */
  readonly tokenTtlSeconds: number;
  /** Bytes a slow reader may leave unread (uWS buffer + our queue) before the session is closed (1008). */
  readonly maxUnsentBytes: number;
  /** A `lag` message is sent when untranscribed speech exceeds this, ms. */
  readonly lagWarningMs: number;
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
  readonly wsConnectionsPerKey: number;
  readonly wsSessionSeconds: number;
  readonly wsMessagesPerSecond: number;
  readonly wsBytesPerSecond: number;
  readonly wsMaxMessageBytes: number;
  readonly wsMaxBufferBytes: number;
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
    inferenceDevice: v.INFERENCE_DEVICE,
    inferenceWorkers: v.INFERENCE_WORKERS,
    inferenceWorkerNice: v.INFERENCE_WORKER_NICE,
    jobWorkers: v.JOB_WORKERS,
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
      wsConnectionsPerKey: v.WS_MAX_CONNECTIONS_PER_KEY,
      wsSessionSeconds: v.WS_MAX_SESSION_SECONDS,
      wsMessagesPerSecond: v.WS_MAX_MESSAGES_PER_SECOND,
      wsBytesPerSecond: v.WS_MAX_BYTES_PER_SECOND,
      wsMaxMessageBytes: v.WS_MAX_MESSAGE_BYTES,
      wsMaxBufferBytes: v.WS_MAX_BUFFER_BYTES,
      wsIdleTimeoutSeconds: v.WS_IDLE_TIMEOUT_SECONDS,
    },
    streaming: {
      endpointSilenceMs: v.WS_ENDPOINT_SILENCE_MS,
      maxTurnMs: v.WS_MAX_TURN_MS,
      partialIntervalMs: v.WS_PARTIAL_INTERVAL_MS,
      tokenTtlSeconds: v.WS_TOKEN_TTL_SECONDS,
      maxUnsentBytes: v.WS_MAX_UNSENT_BYTES,
      lagWarningMs: v.WS_LAG_WARNING_MS,
    },
    shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
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
  };
}
