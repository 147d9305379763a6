import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Authenticator } from '../platform/auth/authenticator.js';
import { KeyService } from '../platform/auth/key-service.js';
import type { Cache } from '../platform/cache/cache.js';
import { MemoryCache } from '../platform/cache/memory-cache.js';
import { RedisCache } from '../platform/cache/redis-cache.js';
import type { GatewayConfig } from '../platform/config/config.js';
import { openStore } from '../platform/db/open-store.js';
import type { Store } from '../platform/db/store-types.js';
import type { FileStorage } from '../platform/files/file-storage.js';
import { LocalFileStorage } from '../platform/files/local-file-storage.js';
import { S3FileStorage } from '../platform/files/s3-file-storage.js';
import { MemoryConnectionSlots, type ConnectionSlots } from '../platform/limits/connection-slots.js';
import { MemoryRateLimiter } from '../platform/limits/memory-rate-limiter.js';
import type { RateLimiter } from '../platform/limits/rate-limiter.js';
import { RedisConnectionSlots } from '../platform/limits/redis-connection-slots.js';
import { RedisRateLimiter } from '../platform/limits/redis-rate-limiter.js';
import { UsageRecorder } from '../platform/limits/usage-recorder.js';
import { createMetricsRegistry } from '../platform/metrics/metrics-registry.js';
import { OutboundGuard } from '../platform/net/outbound-guard.js';
import { InProcessJobQueue, type JobQueue } from '../jobs/job-queue.js';
import { newLeaseOwner } from '../jobs/leased-runner.js';
import { RedisJobQueue } from '../jobs/redis-job-queue.js';
import { createEngines, type Engines } from '../engines/engines.js';
import type { TranslationEngine } from '../engines/translation/translation.js';
import { ClosingStack } from './closing-stack.js';
import { openTranslation } from './open-translation.js';
import { loadSigningSecret } from './signing-secret.js';

/** Builds the engines; tests hand in their own, the gateway builds them from the configuration. */
export type EnginesFactory = (config: GatewayConfig, logger: Logger, metrics: Registry | null) => Promise<Engines>;

/**
 * The shared parts every feature builds on, opened once per process from the configuration.
 * They live until `close()`, which the gateway calls after every feature has closed.
 */
export interface Backends {
  readonly config: GatewayConfig;
  readonly logger: Logger;
  /** Database: SQLite (this process only) or PostgreSQL (shared by every gateway). */
  readonly store: Store;
  /** Uploaded audio, media and transcripts: files under DATA_DIR/files, or an S3-compatible bucket (FILES_BACKEND). */
  readonly storage: FileStorage;
  readonly limiter: RateLimiter;
  /** Open WebSocket sessions per key: this process's, or every gateway's through Redis (with the Redis rate limiter). */
  readonly connections: ConnectionSlots;
  readonly usage: UsageRecorder;
  /** Null when METRICS_ENABLED is off. */
  readonly metrics: Registry | null;
  readonly outbound: OutboundGuard;
  /** Recognition, VAD and diarization (src/engines/engines.ts). */
  readonly engines: Engines;
  /** The translation model (TRANSLATION_MODEL); null when off, missing or not loaded. */
  readonly translation: TranslationEngine | null;
  /** How job ids reach workers; JobService closes it with the shutdown grace, `close()` only makes sure. */
  readonly queue: JobQueue;
  /** Probe results and session tokens: this process's, or shared through Redis. */
  readonly cache: Cache;
  readonly authenticator: Authenticator;
  readonly keys: KeyService;
  readonly signingSecret: Buffer;
  /** One id per process start: it owns the leases of the jobs running here and names this queue consumer. */
  readonly owner: string;
  readonly leaseMs: number;
  /** SQLite: no other process reads or writes these jobs. */
  readonly soleProcess: boolean;
  /** Closes every backend, last opened first. */
  close(): Promise<void>;
}

/**
 * Opens the backends in dependency order. When one fails to open, those already open are
 * closed (last first) before the error is rethrown, so a failed start leaves nothing behind.
 */
export async function openBackends(config: GatewayConfig, logger: Logger, enginesFactory: EnginesFactory = createEngines): Promise<Backends> {
  const closing = new ClosingStack(logger);
  try {
    mkdirSync(config.dataDir, { recursive: true });
    const store = await openStore(config, logger);
    closing.push('store', () => store.close());
    const soleProcess = config.store.backend === 'sqlite';
    if (!soleProcess && config.signingSecret === null) {
      logger.warn('SIGNING_SECRET is not set: signed links work only on gateways sharing this DATA_DIR (set the same secret on every gateway)');
    }
    const signingSecret = loadSigningSecret(config.signingSecret, config.dataDir);
    const storage: FileStorage = config.files.s3 !== null ? new S3FileStorage(config.files.s3) : new LocalFileStorage(join(config.dataDir, 'files'));
    if (storage instanceof S3FileStorage) closing.push('file storage', async () => storage.close());
    const redisLimits = config.rateLimiter.backend === 'redis';
    const limiter: RateLimiter = redisLimits ? RedisRateLimiter.connect(config.redisUrl, `${config.redisKeyPrefix}:rl`) : new MemoryRateLimiter();
    closing.push('rate limiter', () => limiter.close());
    const usage = new UsageRecorder(store.usage, logger);
    closing.push('usage recorder', () => usage.close());
    const metrics = config.metricsEnabled ? createMetricsRegistry(true) : null;
    const outbound = new OutboundGuard(config.allowPrivateNetwork, config.outboundAllowedCidrs);
    const engines = await enginesFactory(config, logger, metrics);
    closing.push('engines', () => engines.close());
    const translation = await openTranslation(config, logger, metrics);
    if (translation !== null) closing.push('translation', () => translation.close());
    const owner = newLeaseOwner();
    const leaseMs = config.jobLeaseSeconds * 1000;
    const queue: JobQueue =
      config.queue.backend === 'redis'
        ? RedisJobQueue.connect(config.redisUrl, {
            concurrency: config.jobWorkers,
            prefix: config.redisKeyPrefix,
            consumerTtlMs: leaseMs,
            consumer: owner,
            logger,
          })
        : new InProcessJobQueue(config.jobWorkers);
    closing.push('job queue', () => queue.close(0));
    const cache: Cache = config.cache.backend === 'redis' ? RedisCache.connect(config.redisUrl, config.redisKeyPrefix) : new MemoryCache();
    closing.push('cache', () => cache.close());
    const connections: ConnectionSlots = redisLimits
      ? RedisConnectionSlots.connect(config.redisUrl, `${config.redisKeyPrefix}:ws`)
      : new MemoryConnectionSlots();
    closing.push('connection slots', () => connections.close());
    const authenticator = new Authenticator(store.apiKeys, config.keyCacheSeconds * 1000);
    const keys = new KeyService(store, Date.now, () => authenticator.invalidate());
    logger.info(
      { owner, store: config.store.backend, files: storage.backend, queue: queue.backend, cache: cache.backend, rateLimiter: limiter.backend },
      'gateway backends',
    );
    return {
      config,
      logger,
      store,
      storage,
      limiter,
      connections,
      usage,
      metrics,
      outbound,
      engines,
      translation,
      queue,
      cache,
      authenticator,
      keys,
      signingSecret,
      owner,
      leaseMs,
      soleProcess,
      close: () => closing.closeAll(),
    };
  } catch (error) {
    await closing.closeAll();
    throw error;
  }
}
