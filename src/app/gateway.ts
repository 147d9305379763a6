import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Authenticator } from '../platform/auth/authenticator.js';
import { KeyService } from '../platform/auth/key-service.js';
import { UrlSigner } from '../platform/auth/url-signer.js';
import type { GatewayConfig } from '../platform/config/config.js';
import { ApiError } from '../platform/errors/api-error.js';
import { buildLlmsFull, buildLlmsIndex, type DocumentSection } from '../platform/http/llms-text.js';
import { buildOpenApi } from '../api/openapi.js';
import { GatewayRequestGuard } from '../api/request-guard.js';
import { Router } from '../api/router.js';
import { uws, type Uws } from '../platform/http/uws.js';
import { MemoryRateLimiter } from '../platform/limits/memory-rate-limiter.js';
import type { RateLimiter } from '../platform/limits/rate-limiter.js';
import { RedisRateLimiter } from '../platform/limits/redis-rate-limiter.js';
import { MemoryConnectionSlots, type ConnectionSlots } from '../platform/limits/connection-slots.js';
import { RedisConnectionSlots } from '../platform/limits/redis-connection-slots.js';
import { UsageRecorder } from '../platform/limits/usage-recorder.js';
import { createLogger } from '../platform/logging/logger.js';
import { HttpMetrics } from '../platform/metrics/http-metrics.js';
import { createMetricsRegistry } from '../platform/metrics/metrics-registry.js';
import { OutboundGuard } from '../platform/net/outbound-guard.js';
import { adminKeyRoutes } from '../api/admin-keys/admin-key-routes.js';
import { discoveryRoutes } from '../api/discovery/discovery-routes.js';
import { usageRoutes, type LiveUsage } from '../api/usage/usage-routes.js';
import { openStore } from '../platform/db/open-store.js';
import type { Store } from '../platform/db/store-types.js';
import type { Cache } from '../platform/cache/cache.js';
import { MemoryCache } from '../platform/cache/memory-cache.js';
import { RedisCache } from '../platform/cache/redis-cache.js';
import { packageVersion } from './package-version.js';
import { loadSigningSecret } from './signing-secret.js';
import type { SpeechRuntime } from '../speech/speech-runtime.js';
import { createSpeechRuntime } from '../speech/create-speech-runtime.js';
import { LocalFileStorage } from '../platform/files/local-file-storage.js';
import type { FileStorage } from '../platform/files/file-storage.js';
import { JobEvents } from '../jobs/job-events.js';
import { InProcessJobQueue, type JobQueue } from '../jobs/job-queue.js';
import { RedisJobQueue } from '../jobs/redis-job-queue.js';
import { JobRunner, newLeaseOwner } from '../jobs/job-runner.js';
import { JobSweeper } from '../jobs/job-sweeper.js';
import { JobService } from '../jobs/job-service.js';
import { BatchAggregator } from '../jobs/batch-aggregator.js';
import { JobOutbox } from '../jobs/job-outbox.js';
import { createAudioFetcher } from '../jobs/audio-fetcher.js';
import { transcriptionRoutes } from '../api/transcriptions/transcription-routes.js';
import { jobApiRoutes } from '../api/job-api/job-api-routes.js';
import { MediaFeatures } from './media-features.js';
import { textTranslationRoutes } from '../api/translation/text-translation-routes.js';
import { wsRoutes } from '../streaming/ws-routes.js';
import { WsEndpoint } from '../streaming/ws-endpoint.js';
import { SessionRecords } from '../streaming/ws-session-record.js';
import { SessionTokens } from '../streaming/ws-session-tokens.js';
import { WS_GUIDE_SECTIONS } from '../streaming/ws-guide.js';

export const API_VERSION = '4.0.0';

export interface GatewayOptions {
  readonly config: GatewayConfig;
  readonly logger?: Logger;
  /** The speech engine and models; built from the configuration when absent. */
  readonly speech?: (config: GatewayConfig, logger: Logger, metrics: Registry | null) => Promise<SpeechRuntime>;
  /** Check every JSON response against its declared schema (tests). */
  readonly validateResponses?: boolean;
}

/**
 * The composition root: builds every component from the configuration, mounts the routes on
 * one uWebSockets.js app, and owns the order of start-up and shutdown.
 */
export class Gateway {
  readonly router = new Router();
  readonly sections: DocumentSection[] = [];
  private listenSocket: Uws.us_listen_socket | null = null;
  private readonly closers: (() => Promise<void>)[] = [];
  private closing: Promise<void> | null = null;
  private boundPort = 0;
  /** The WebSocket endpoint (GET /v1/ws/transcribe); set once routes are mounted. */
  streaming: WsEndpoint | null = null;

  private constructor(
    readonly config: GatewayConfig,
    readonly logger: Logger,
    readonly app: Uws.TemplatedApp,
    readonly store: Store,
    readonly keys: KeyService,
    readonly authenticator: Authenticator,
    readonly limiter: RateLimiter,
    readonly usage: UsageRecorder,
    readonly metrics: Registry | null,
    readonly outbound: OutboundGuard,
    readonly signingSecret: Buffer,
    readonly version: string,
    readonly startedAt: number,
    readonly speech: SpeechRuntime,
    readonly storage: FileStorage,
    readonly queue: JobQueue,
    readonly jobs: JobService,
    readonly media: MediaFeatures,
  ) {}

  static async start(options: GatewayOptions): Promise<Gateway> {
    const { config } = options;
    const logger = options.logger ?? createLogger(config.logLevel);
    mkdirSync(config.dataDir, { recursive: true });
    const store: Store = await openStore(config, logger);
    const soleProcess = config.store.backend === 'sqlite';
    if (!soleProcess && config.signingSecret === null) {
      logger.warn('SIGNING_SECRET is not set: signed links work only on gateways sharing this DATA_DIR (set the same secret on every gateway)');
    }
    const limiter: RateLimiter =
      config.rateLimiter.backend === 'redis' ? RedisRateLimiter.connect(config.redisUrl, `${config.redisKeyPrefix}:rl`) : new MemoryRateLimiter();
    const usage = new UsageRecorder(store.usage, logger);
    const metrics = config.metricsEnabled ? createMetricsRegistry(true) : null;
    const outbound = new OutboundGuard(config.allowPrivateNetwork, config.outboundAllowedCidrs);
    const speech = await (options.speech ?? createSpeechRuntime)(config, logger, metrics);
    const storage = new LocalFileStorage(join(config.dataDir, 'files'));
    const events = new JobEvents();
    // One id per process start: it owns the leases of the jobs running here and names this queue consumer.
    const owner = newLeaseOwner();
    const leaseMs = config.jobLeaseSeconds * 1000;
    const queue: JobQueue =
      config.queue.backend === 'redis'
        ? RedisJobQueue.connect(config.redisUrl, { concurrency: config.jobWorkers, prefix: config.redisKeyPrefix, consumerTtlMs: leaseMs, consumer: owner, logger })
        : new InProcessJobQueue(config.jobWorkers);
    const cache: Cache = config.cache.backend === 'redis' ? RedisCache.connect(config.redisUrl, config.redisKeyPrefix) : new MemoryCache();
    // Media features need the listening port for their links: they read it through `self`.
    let self: Gateway | null = null;
    const outbox = new JobOutbox(store.jobs, events, logger);
    const media = new MediaFeatures({
      config,
      logger,
      store,
      storage,
      guard: outbound,
      events,
      outbox,
      baseUrl: () => self!.baseUrl,
      signer: () => self!.signer,
      cache,
    });
    const runner = new JobRunner({
      jobs: store.jobs,
      storage,
      engine: speech.engine,
      events,
      usage,
      logger,
      owner,
      leaseMs,
      fetchAudio: createAudioFetcher({
        storage,
        guard: outbound,
        maxBytes: config.limits.maxAudioBytes,
        timeoutSeconds: config.limits.downloadTimeoutSeconds,
        resolveStored: media.library.resolveStored,
      }),
    });
    const jobs = new JobService({
      jobs: store.jobs,
      queue,
      runner,
      events,
      storage,
      usage: store.usage,
      recorder: usage,
      limits: config.limits,
      logger,
      concurrencyLimit: async (keyId) => (await store.apiKeys.get(keyId))?.limits.concurrentJobs ?? config.limits.concurrentJobs,
      soleProcess,
    });
    const aggregator = new BatchAggregator(store.jobs, events, logger);
    const sweeper = new JobSweeper({ jobs, aggregator, outbox, intervalMs: Math.max(500, leaseMs / 2), staleMs: leaseMs, logger });
    const authenticator = new Authenticator(store.apiKeys, config.keyCacheSeconds * 1000);
    const gateway = new Gateway(
      config,
      logger,
      uws.App(),
      store,
      new KeyService(store, Date.now, () => authenticator.invalidate()),
      authenticator,
      limiter,
      usage,
      metrics,
      outbound,
      loadSigningSecret(config.signingSecret, config.dataDir),
      packageVersion(),
      Date.now(),
      speech,
      storage,
      queue,
      jobs,
      media,
    );
    self = gateway;
    gateway.sections.push(...media.sections, ...WS_GUIDE_SECTIONS);
    gateway.onClose(() => store.close());
    gateway.onClose(() => outbox.drain());
    gateway.onClose(() => limiter.close());
    gateway.onClose(() => usage.close());
    gateway.onClose(() => speech.close());
    gateway.onClose(() => jobs.close(config.shutdownGraceMs));
    gateway.onClose(() => sweeper.close());
    gateway.onClose(() => media.close());
    try {
      gateway.mountCoreRoutes(options.validateResponses ?? false);
      await jobs.recover();
      await aggregator.recoverParents();
      await outbox.replay();
      jobs.start();
      sweeper.start();
      media.start();
      logger.info({ owner, store: config.store.backend, queue: queue.backend, cache: cache.backend, rateLimiter: limiter.backend }, 'gateway backends');
      await gateway.listen();
    } catch (error) {
      await gateway.close();
      throw error;
    }
    return gateway;
  }

  get port(): number {
    return this.boundPort;
  }

  /** The absolute base of links handed out (PUBLIC_BASE_URL, or this host and port). */
  get baseUrl(): string {
    return this.config.publicBaseUrl ?? `http://localhost:${this.boundPort}`;
  }

  get signer(): UrlSigner {
    return new UrlSigner(this.signingSecret, this.baseUrl);
  }

  /** Registers a shutdown step; steps run in reverse order of registration. */
  onClose(step: () => Promise<void>): void {
    this.closers.push(step);
  }

  private mountCoreRoutes(validateResponses: boolean): void {
    const { config } = this;
    const tokens = new SessionTokens(this.media.cache, config.streaming.tokenTtlSeconds);
    // With the Redis rate limiter, open sessions per key are counted across every gateway too.
    const connections: ConnectionSlots =
      config.rateLimiter.backend === 'redis' ? RedisConnectionSlots.connect(config.redisUrl, `${config.redisKeyPrefix}:ws`) : new MemoryConnectionSlots();
    this.onClose(() => connections.close());
    const streaming = new WsEndpoint({
      config,
      logger: this.logger,
      authenticator: this.authenticator,
      keys: this.store.apiKeys,
      tokens,
      models: this.speech.models,
      recognizer: this.speech.streaming,
      records: new SessionRecords(this.store.jobs, this.usage, this.logger),
      admitQuota: (principal) => this.jobs.admitQuota(principal),
      connections,
      metrics: this.metrics,
    });
    this.streaming = streaming;
    // Sessions record their jobs and finish their last pieces before the pool and store close.
    this.onClose(() => streaming.close(config.shutdownGraceMs));
    // Registered before the router's catch-all handlers so that upgrades reach it.
    streaming.mount(this.app);
    const live: LiveUsage = { activeJobs: (keyId) => this.jobs.activeJobs(keyId), websocketConnections: (keyId) => connections.count(keyId) };
    this.router.add(
      ...discoveryRoutes({
        version: this.version,
        apiVersion: API_VERSION,
        baseUrl: this.baseUrl,
        defaultLanguage: config.defaultLanguage,
        startedAt: this.startedAt,
        catalog: this.speech.catalog,
        health: {
          device: () => this.speech.device(),
          vad: () => this.speech.vad(),
          database: async () => this.store.health(),
          files: async () => ({ backend: this.storage.backend, ...(await this.storage.health()) }),
          queue: async () => ({ backend: this.queue.backend, ...(await this.queue.health()) }),
          cache: async () => ({ backend: this.media.cache.backend, ...(await this.media.cache.health()) }),
          rateLimiter: async () => ({ backend: this.limiter.backend, ...(await this.limiter.health()) }),
        },
        metrics: this.metrics,
        routes: () => this.router.routes,
        openApi: () => this.openApi(),
        llmsIndex: () => buildLlmsIndex(this.router.routes, this.baseUrl, this.sections),
        llmsFull: () => buildLlmsFull(this.router.routes, this.baseUrl, config.limits, this.sections),
      }),
      ...usageRoutes({ limits: config.limits, limiter: this.limiter, usage: this.store.usage, recorder: this.usage, live }),
      ...adminKeyRoutes(this.keys, this.store),
      ...transcriptionRoutes({
        jobs: this.jobs,
        models: this.speech.models,
        sniff: this.speech.sniff,
        verify: (path, signal) => this.speech.verify(path, signal),
        storage: this.storage,
        signer: () => this.signer,
        guard: this.outbound,
        limits: config.limits,
        render: this.media.render,
        isGatewayReference: (url) => this.media.library.referencedId(url) !== null,
      }),
      ...this.media.routes({ jobs: this.jobs, models: this.speech.models }),
      ...jobApiRoutes({
        jobs: this.jobs,
        models: this.speech.models,
        guard: this.outbound,
        limiter: this.limiter,
        signer: () => this.signer,
        limits: config.limits,
        isGatewayReference: (url) => this.media.library.referencedId(url) !== null,
      }),
      ...textTranslationRoutes(null),
      ...wsRoutes({ tokens, streaming: config.streaming }),
    );
    this.router.mount(this.app, {
      logger: this.logger,
      guard: new GatewayRequestGuard(this.authenticator, this.limiter, this.usage, config.limits),
      metrics: this.metrics ? new HttpMetrics(this.metrics) : null,
      trustProxy: config.trustProxy,
      maxJsonBodyBytes: config.limits.maxJsonBodyBytes,
      corsAllowedOrigins: config.corsAllowedOrigins,
      validateResponses,
    });
  }

  openApi(): Record<string, unknown> {
    return buildOpenApi(this.router.routes, {
      title: 'Speech gateway for Amharic, Oromo and Tigrinya',
      version: API_VERSION,
      description:
        'Unified speech-to-text API (bearer keys) and the job-based API (X-API-Key). Key management is not part of this document.',
      serverUrl: this.baseUrl,
      maxJsonBodyBytes: this.config.limits.maxJsonBodyBytes,
    });
  }

  private listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.app.listen(this.config.host, this.config.port, (socket) => {
        if (!socket) {
          reject(new Error(`could not listen on ${this.config.host}:${this.config.port} (address in use or not permitted)`));
          return;
        }
        this.listenSocket = socket;
        this.boundPort = uws.us_socket_local_port(socket);
        resolve();
      });
    });
  }

  /** Stops accepting connections, then runs the shutdown steps (jobs persist, stores close). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.listenSocket !== null) {
        uws.us_listen_socket_close(this.listenSocket);
        this.listenSocket = null;
      }
      const drained = await this.router.drain(this.config.shutdownGraceMs);
      if (!drained) this.logger.warn({ active: this.router.activeRequests }, 'requests still in flight at shutdown');
      for (const step of [...this.closers].reverse()) {
        try {
          await step();
        } catch (error) {
          this.logger.error({ err: error }, 'shutdown step failed');
        }
      }
    })();
    return this.closing;
  }
}


export { ApiError };
