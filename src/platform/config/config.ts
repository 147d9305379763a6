import { isAbsolute, resolve } from 'node:path';
import { cidrProblem } from '../net/ip-allowlist.js';

/**
 * Gateway configuration, read once from environment variables at start.
 * Every variable is parsed and checked here; all problems are reported together.
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
  readonly s3: {
    readonly bucket: string;
    readonly region: string;
    readonly endpoint: string | null;
    readonly forcePathStyle: boolean;
    readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string } | null;
    readonly prefix: string;
    readonly presignedDownloads: boolean;
    readonly directUploads: boolean;
  } | null;
}

/**
 * Graceful overload (docs/streaming.md "Overload"): utilisation is the inference workers' busy
 * fraction measured from the live streams' pieces. Past each threshold, in order: partials off,
 * larger interactive batches, new sessions refused (1013). Finals of admitted streams always run.
 */
export interface OverloadSettings {
  /** A fixed cap on live WebSocket sessions in this process; 0: the capacity estimate decides. */
  readonly wsMaxSessions: number;
  readonly partialsOffAt: number;
  readonly largerBatchesAt: number;
  readonly fullAt: number;
  /** Smoothed inference queue wait of stream pieces that counts as full, ms. */
  readonly maxInferenceWaitMs: number;
  /** How long an interactive batch waits to fill at the larger-batches level, ms. */
  readonly largerBatchWaitMs: number;
  /** New jobs get 503 + Retry-After when the job queue's estimated wait exceeds this; 0: never. */
  readonly jobMaxQueueWaitSeconds: number;
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

/** Collects parse problems so that one start reports every bad variable at once. */
class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  private raw(name: string): string | undefined {
    const value = this.env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  optionalString(name: string): string | null {
    return this.raw(name) ?? null;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (!/^-?\d+$/.test(raw)) {
      this.problems.push(`${name} must be an integer, got "${raw}"`);
      return fallback;
    }
    const value = Number(raw);
    if (value < min || value > max) {
      this.problems.push(`${name} must be between ${min} and ${max}, got ${value}`);
      return fallback;
    }
    return value;
  }

  number(name: string, fallback: number, min: number, max: number): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value)) {
      this.problems.push(`${name} must be a number, got "${raw}"`);
      return fallback;
    }
    if (value < min || value > max) {
      this.problems.push(`${name} must be between ${min} and ${max}, got ${value}`);
      return fallback;
    }
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const lower = raw.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lower)) return true;
    if (['0', 'false', 'no', 'off'].includes(lower)) return false;
    this.problems.push(`${name} must be true or false, got "${raw}"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[]): T {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(raw)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
      return fallback;
    }
    return raw as T;
  }

  /** Byte sizes accept a plain number or a suffix: 500MB, 1MiB, 64kb. */
  bytes(name: string, fallback: number, min: number, max: number): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const match = /^(\d+(?:\.\d+)?)\s*(b|kb|kib|mb|mib|gb|gib)?$/i.exec(raw);
    if (!match) {
      this.problems.push(`${name} must be a byte size such as 500MB, got "${raw}"`);
      return fallback;
    }
    const units: Record<string, number> = { b: 1, kb: 1e3, kib: 1024, mb: 1e6, mib: 1024 ** 2, gb: 1e9, gib: 1024 ** 3 };
    const value = Math.round(Number(match[1]) * units[(match[2] ?? 'b').toLowerCase()]!);
    if (value < min || value > max) {
      this.problems.push(`${name} must be between ${min} and ${max} bytes, got ${value}`);
      return fallback;
    }
    return value;
  }

  integerList(name: string, fallback: readonly number[], min: number, max: number): readonly number[] {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const parts = raw.split(',').map((p) => p.trim());
    const values = parts.map(Number);
    if (parts.length === 0 || values.some((v) => !Number.isInteger(v) || v < min || v > max)) {
      this.problems.push(`${name} must be a comma-separated list of integers between ${min} and ${max}, got "${raw}"`);
      return fallback;
    }
    return values;
  }

  cidrList(name: string): readonly string[] {
    const raw = this.raw(name);
    if (raw === undefined) return [];
    const entries = raw.split(',').map((e) => e.trim()).filter((e) => e !== '');
    for (const entry of entries) {
      const problem = cidrProblem(entry);
      if (problem !== null) this.problems.push(`${name}: ${problem}`);
    }
    return entries;
  }

  url(name: string, fallback: string): string {
    const raw = this.raw(name) ?? fallback;
    try {
      const url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
      return raw.replace(/\/+$/, '');
    } catch {
      this.problems.push(`${name} must be an http(s) URL, got "${raw}"`);
      return fallback;
    }
  }
}

const MB = 1_000_000;

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): GatewayConfig {
  const r = new EnvReader(env);
  const port = r.integer('PORT', 8080, 0, 65535);
  const host = r.string('HOST', '0.0.0.0');
  const dataDirRaw = r.string('DATA_DIR', 'data');
  const dataDir = isAbsolute(dataDirRaw) ? dataDirRaw : resolve(cwd, dataDirRaw);
  const modelsDirRaw = r.string('MODELS_DIR', 'models');
  const modelsDir = isAbsolute(modelsDirRaw) ? modelsDirRaw : resolve(cwd, modelsDirRaw);
  const publicBaseUrl = r.optionalString('PUBLIC_BASE_URL') === null ? null : r.url('PUBLIC_BASE_URL', 'http://localhost');
  const storeBackend = r.oneOf('STORE_BACKEND', 'sqlite', ['sqlite', 'postgres'] as const);
  const databaseUrl = r.optionalString('DATABASE_URL');
  if (storeBackend === 'postgres' && databaseUrl === null) {
    r.problems.push('DATABASE_URL is required when STORE_BACKEND=postgres');
  }
  const queueBackend = r.oneOf('QUEUE_BACKEND', 'in-process', ['in-process', 'redis'] as const);
  if (queueBackend === 'redis' && storeBackend !== 'postgres') {
    // Ids handed to other processes must name jobs those processes can read.
    r.problems.push('QUEUE_BACKEND=redis needs STORE_BACKEND=postgres (every process must see the jobs the queue hands out)');
  }
  const redisKeyPrefix = r.string('REDIS_KEY_PREFIX', 'gw');
  if (!/^[A-Za-z0-9:_.-]{1,64}$/.test(redisKeyPrefix)) {
    r.problems.push(`REDIS_KEY_PREFIX must be 1 to 64 of A-Z a-z 0-9 : _ . -, got "${redisKeyPrefix}"`);
  }
  const signingSecret = r.optionalString('SIGNING_SECRET');
  if (signingSecret !== null && signingSecret.length < 32) {
    r.problems.push('SIGNING_SECRET must be at least 32 characters');
  }
  const limits: Limits = {
    requestsPerMinute: r.integer('RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000),
    requestsPerHour: r.integer('RATE_LIMIT_PER_HOUR', 0, 0, 100_000_000),
    requestsPerDay: r.integer('RATE_LIMIT_PER_DAY', 0, 0, 1_000_000_000),
    jobSubmissionsPerHour: r.integer('JOB_SUBMISSIONS_PER_HOUR', 100, 1, 1_000_000),
    concurrentJobs: r.integer('MAX_CONCURRENT_JOBS', 10, 1, 10_000),
    dailyAudioMinutes: r.number('DAILY_AUDIO_MINUTES', 1440, 0.01, 10_000_000),
    batchMaxFiles: r.integer('BATCH_MAX_FILES', 100, 1, 10_000),
    maxAudioBytes: r.bytes('MAX_AUDIO_BYTES', 500 * MB, 1024, 1e12),
    maxJsonBodyBytes: r.bytes('MAX_JSON_BODY_BYTES', 1 * MB, 1024, 100 * MB),
    listMaxLimit: r.integer('LIST_MAX_LIMIT', 200, 1, 10_000),
    syncWaitSeconds: r.integer('SYNC_WAIT_SECONDS', 60, 0, 3600),
    signedUrlTtlSeconds: r.integer('SIGNED_URL_TTL_SECONDS', 3600, 10, 7 * 86400),
    mediaUrlDefaultTtlSeconds: r.integer('MEDIA_URL_DEFAULT_TTL_SECONDS', 3600, 10, 7 * 86400),
    mediaUrlMaxTtlSeconds: r.integer('MEDIA_URL_MAX_TTL_SECONDS', 7 * 86400, 10, 30 * 86400),
    downloadTimeoutSeconds: r.integer('DOWNLOAD_TIMEOUT_SECONDS', 300, 1, 86400),
    probeTimeoutSeconds: r.integer('PROBE_TIMEOUT_SECONDS', 20, 1, 600),
    probeCacheTtlSeconds: r.integer('PROBE_CACHE_TTL_SECONDS', 300, 0, 86400),
    webhookTimeoutSeconds: r.integer('WEBHOOK_TIMEOUT_SECONDS', 10, 1, 120),
    webhookRetryScheduleSeconds: r.integerList('WEBHOOK_RETRY_SCHEDULE', [60, 300, 1800, 7200, 86400], 0, 30 * 86400),
    webhookDisableAfterFailures: r.integer('WEBHOOK_DISABLE_AFTER_FAILURES', 100, 1, 1_000_000),
    uploadRetentionSeconds: r.integer('UPLOAD_RETENTION_SECONDS', 86_400, 60, 365 * 86400),
    wsConnectionsPerKey: r.integer('WS_MAX_CONNECTIONS_PER_KEY', 5, 1, 100_000),
    wsSessionSeconds: r.integer('WS_MAX_SESSION_SECONDS', 1800, 1, 86400),
    wsMessagesPerSecond: r.integer('WS_MAX_MESSAGES_PER_SECOND', 100, 1, 1_000_000),
    wsBytesPerSecond: r.bytes('WS_MAX_BYTES_PER_SECOND', 1 * MB, 1024, 1e10),
    wsMaxMessageBytes: r.bytes('WS_MAX_MESSAGE_BYTES', 1 * MB, 1024, 100 * MB),
    wsMaxBufferBytes: r.bytes('WS_MAX_BUFFER_BYTES', 50 * MB, 1024, 1e10),
    wsIdleTimeoutSeconds: r.integer('WS_IDLE_TIMEOUT_SECONDS', 300, 1, 86400),
  };
  if (limits.mediaUrlDefaultTtlSeconds > limits.mediaUrlMaxTtlSeconds) {
    r.problems.push('MEDIA_URL_DEFAULT_TTL_SECONDS must not exceed MEDIA_URL_MAX_TTL_SECONDS');
  }
  const config: GatewayConfig = {
    port,
    host,
    dataDir,
    publicBaseUrl,
    logLevel: r.oneOf('LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    trustProxy: r.boolean('TRUST_PROXY', false),
    corsAllowedOrigins: r
      .string('CORS_ALLOWED_ORIGINS', '*')
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o.length > 0),
    allowPrivateNetwork: r.boolean('ALLOW_PRIVATE_NETWORK', false),
    outboundAllowedCidrs: r.cidrList('OUTBOUND_ALLOWED_CIDRS'),
    signingSecret,
    defaultLanguage: r.oneOf('DEFAULT_LANGUAGE', 'am', ['am', 'om', 'ti'] as const),
    modelsDir,
    inferenceDevice: r.oneOf('INFERENCE_DEVICE', 'cpu', ['cpu', 'cuda'] as const),
    inferenceWorkers: r.integer('INFERENCE_WORKERS', 0, 0, 256),
    inferenceWorkerNice: r.string('INFERENCE_WORKER_NICE', '10') === 'off' ? null : r.integer('INFERENCE_WORKER_NICE', 10, 0, 19),
    jobWorkers: r.integer('JOB_WORKERS', 4, 1, 256),
    ffmpegPath: r.optionalString('FFMPEG_PATH'),
    ffprobePath: r.optionalString('FFPROBE_PATH'),
    ytdlpPath: r.optionalString('YTDLP_PATH'),
    store: { backend: storeBackend, databaseUrl, poolSize: r.integer('DATABASE_POOL_SIZE', 10, 1, 500) },
    rateLimiter: { backend: r.oneOf('RATE_LIMIT_BACKEND', 'memory', ['memory', 'redis'] as const) },
    queue: { backend: queueBackend },
    cache: { backend: r.oneOf('CACHE_BACKEND', 'memory', ['memory', 'redis'] as const) },
    redisUrl: r.string('REDIS_URL', 'redis://127.0.0.1:6379'),
    redisKeyPrefix,
    jobLeaseSeconds: r.integer('JOB_LEASE_SECONDS', 60, 1, 3600),
    metricsEnabled: r.boolean('METRICS_ENABLED', true),
    keyCacheSeconds: r.number('KEY_CACHE_SECONDS', 2, 0, 300),
    limits,
    streaming: {
      endpointSilenceMs: r.integer('WS_ENDPOINT_SILENCE_MS', 500, 100, 10_000),
      maxTurnMs: r.integer('WS_MAX_TURN_MS', 30_000, 1_000, 120_000),
      partialIntervalMs: r.integer('WS_PARTIAL_INTERVAL_MS', 500, 100, 60_000),
      tokenTtlSeconds: r.integer('WS_TOKEN_TTL_SECONDS', 60, 5, 3600),
      maxUnsentBytes: r.bytes('WS_MAX_UNSENT_BYTES', 4 * MB, 64 * 1024, 1e9),
      lagWarningMs: r.integer('WS_LAG_WARNING_MS', 3_000, 100, 600_000),
    },
    overload: {
      wsMaxSessions: r.integer('WS_MAX_SESSIONS', 0, 0, 1_000_000),
      partialsOffAt: r.number('OVERLOAD_PARTIALS_OFF_AT', 0.6, 0, 10),
      largerBatchesAt: r.number('OVERLOAD_LARGER_BATCHES_AT', 0.75, 0, 10),
      fullAt: r.number('OVERLOAD_FULL_AT', 0.85, 0.00001, 10),
      maxInferenceWaitMs: r.integer('OVERLOAD_MAX_INFERENCE_WAIT_MS', 150, 1, 600_000),
      largerBatchWaitMs: r.integer('OVERLOAD_BATCH_WAIT_MS', 20, 0, 10_000),
      jobMaxQueueWaitSeconds: r.number('JOB_MAX_QUEUE_WAIT_SECONDS', 600, 0, 30 * 86400),
    },
    files: readFilesSettings(r),
    shutdownGraceMs: r.integer('SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
  };
  const { partialsOffAt, largerBatchesAt, fullAt } = config.overload;
  if (!(partialsOffAt <= largerBatchesAt && largerBatchesAt <= fullAt)) {
    r.problems.push('the overload thresholds degrade in order: OVERLOAD_PARTIALS_OFF_AT <= OVERLOAD_LARGER_BATCHES_AT <= OVERLOAD_FULL_AT');
  }
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return config;
}

function readFilesSettings(r: EnvReader): FilesSettings {
  const backend = r.oneOf('FILES_BACKEND', 'local', ['local', 's3'] as const);
  if (backend === 'local') return { backend, s3: null };
  const bucket = r.optionalString('S3_BUCKET');
  if (bucket === null) r.problems.push('S3_BUCKET is required when FILES_BACKEND=s3');
  const accessKeyId = r.optionalString('S3_ACCESS_KEY_ID');
  const secretAccessKey = r.optionalString('S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === null) !== (secretAccessKey === null)) r.problems.push('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (or neither: the AWS default credential chain)');
  const prefix = r.string('S3_PREFIX', '').replace(/^\/+|\/+$/g, '');
  if (prefix !== '' && !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(prefix)) r.problems.push(`S3_PREFIX must be path segments of A-Z a-z 0-9 . _ -, got "${prefix}"`);
  return {
    backend,
    s3: {
      bucket: bucket ?? '',
      region: r.string('S3_REGION', 'us-east-1'),
      endpoint: r.optionalString('S3_ENDPOINT') === null ? null : r.url('S3_ENDPOINT', 'http://localhost:9000'),
      forcePathStyle: r.boolean('S3_FORCE_PATH_STYLE', false),
      credentials: accessKeyId !== null && secretAccessKey !== null ? { accessKeyId, secretAccessKey } : null,
      prefix,
      presignedDownloads: r.boolean('S3_PRESIGNED_DOWNLOADS', true),
      directUploads: r.boolean('S3_DIRECT_UPLOADS', false),
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
        : { ...config.files, s3: { ...config.files.s3, credentials: config.files.s3.credentials === null ? null : { accessKeyId: config.files.s3.credentials.accessKeyId, secretAccessKey: '[redacted]' } } },
  };
}
