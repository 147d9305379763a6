import type { Logger } from 'pino';
import { UrlSigner } from '../platform/auth/url-signer.js';
import type { GatewayConfig } from '../platform/config/config.js';
import { ApiError } from '../platform/errors/api-error.js';
import { buildLlmsFull, buildLlmsIndex, type DocumentSection } from '../platform/http/llms-text.js';
import type { RouteDefinition } from '../platform/http/route-types.js';
import { uws, type Uws } from '../platform/http/uws.js';
import { createLogger } from '../platform/logging/logger.js';
import { HttpMetrics } from '../platform/metrics/http-metrics.js';
import { MetricsServer } from '../platform/metrics/metrics-server.js';
import { buildOpenApi } from '../api/openapi.js';
import { GatewayRequestGuard } from '../api/request-guard.js';
import { Router } from '../api/router.js';
import { JobEvents } from '../jobs/job-events.js';
import { JobOutbox } from '../jobs/job-outbox.js';
import type { JobService } from '../jobs/job-service.js';
import type { WsEndpoint } from '../streaming/ws-endpoint.js';
import {
  adminKeysFeature,
  discoveryFeature,
  jobApiFeature,
  openAiFeature,
  textTranslationFeature,
  transcriptionsFeature,
  usageFeature,
  type GatewaySite,
} from './api-features.js';
import { ClosingStack } from './closing-stack.js';
import type { Feature } from './feature.js';
import { jobsFeature } from './jobs-feature.js';
import { MediaFeatures } from './media-features.js';
import { openBackends, type Backends, type EnginesFactory } from './open-backends.js';
import { packageVersion } from './package-version.js';
import { streamingFeature } from './streaming-feature.js';
import { translationJobsFeature, translationRunner } from './translation-feature.js';
import type { TranslationEngine } from '../engines/translation/translation.js';

export const API_VERSION = '4.0.0';
/** After the drains, how long requests they answered get to be written out. */
const ANSWER_FLUSH_MS = 1_000;

export interface GatewayOptions {
  readonly config: GatewayConfig;
  readonly logger?: Logger;
  /** The engines (recognition, VAD, diarization); built from the configuration when absent. */
  readonly engines?: EnginesFactory;
  /** Check every JSON response against its declared schema (tests). */
  readonly validateResponses?: boolean;
  /** The engine file translation jobs use instead of the gateway's own (tests provoking engine failures). */
  readonly translationEngine?: TranslationEngine;
}

/**
 * The composition root: opens the backends, builds the features on them, mounts the features
 * from one list on one uWebSockets.js app and owns the order of start-up and shutdown
 * (listener, then requests and feature drains together, then features in reverse list order,
 * then backends in reverse opening order).
 */
export class Gateway implements GatewaySite {
  readonly router = new Router();
  readonly sections: DocumentSection[] = [];
  readonly app: Uws.TemplatedApp = uws.App();
  readonly version = packageVersion();
  readonly apiVersion = API_VERSION;
  readonly startedAt = Date.now();
  /** Steps registered with onClose(); they run before the features close. */
  private readonly extraClosers: ClosingStack;
  private features: readonly Feature[] = [];
  private listenSocket: Uws.us_listen_socket | null = null;
  private metricsServer: MetricsServer | null = null;
  private closing: Promise<void> | null = null;
  private boundPort = 0;
  private jobService: JobService | null = null;
  /** Batches, uploads, media and webhooks; set once the features are built. */
  media!: MediaFeatures;
  /** The WebSocket endpoint (GET /v1/ws/transcribe); set once the features are built. */
  streaming: WsEndpoint | null = null;

  private constructor(
    readonly backends: Backends,
    private readonly translationOverride: TranslationEngine | null = null,
  ) {
    this.extraClosers = new ClosingStack(backends.logger);
  }

  static async start(options: GatewayOptions): Promise<Gateway> {
    const logger = options.logger ?? createLogger(options.config.logLevel);
    const gateway = new Gateway(await openBackends(options.config, logger, options.engines), options.translationEngine ?? null);
    try {
      gateway.mount(gateway.buildFeatures(), options.validateResponses ?? false);
      for (const feature of gateway.features) await feature.start?.();
      await gateway.listen();
    } catch (error) {
      await gateway.close();
      throw error;
    }
    return gateway;
  }

  /** The features in mounting order: their routes are listed in this order, they start in it and close in reverse. */
  private buildFeatures(): Feature[] {
    const b = this.backends;
    const events = new JobEvents();
    const outbox = new JobOutbox(b.store.jobs, events, b.logger);
    const media = new MediaFeatures({
      config: b.config,
      logger: b.logger,
      asr: b.engines.asr,
      store: b.store,
      storage: b.storage,
      guard: b.outbound,
      events,
      outbox,
      baseUrl: () => this.baseUrl,
      signer: () => this.signer,
      cache: b.cache,
      metrics: b.metrics,
    });
    // File translation uses the gateway's engine (TRANSLATION_MODEL, `Backends.translation`) unless Gateway.start was given one.
    const engine = (): TranslationEngine | null => this.translationOverride ?? b.translation;
    const translation = translationRunner(b, { events, engine, resolveStored: media.library.resolveStored });
    const jobs = jobsFeature(b, { events, outbox, resolveStored: media.library.resolveStored, translationRunner: translation });
    const streaming = streamingFeature(b, jobs.service);
    this.media = media;
    this.jobService = jobs.service;
    this.streaming = streaming.endpoint;
    return [
      // First to start (recovering what a previous process left) and last to close (running jobs get the grace).
      jobs,
      // /metrics on the public port only where the operator asked for it, and then for admin keys.
      discoveryFeature(b, this, b.config.metrics.onMainPort === 'admin' ? b.metrics : null),
      usageFeature(b, jobs.service),
      adminKeysFeature(b),
      transcriptionsFeature(b, this, jobs.service, media),
      media.feature({ jobs: jobs.service }),
      jobApiFeature(b, this, jobs.service, media),
      translationJobsFeature(b, this, { outbox, engine, jobs: jobs.service }),
      textTranslationFeature(b),
      openAiFeature(b, this, jobs.service, engine),
      // First to close: open sessions record their jobs before the runner and the store close.
      streaming,
    ];
  }

  private mount(features: Feature[], validateResponses: boolean): void {
    this.features = features;
    const { config } = this;
    for (const feature of features) {
      // Registered before the router's catch-all handlers so that upgrades reach them.
      feature.mount?.(this.app);
      this.router.add(...(feature.routes ?? []));
      this.sections.push(...(feature.sections ?? []));
    }
    this.router.mount(this.app, {
      logger: this.logger,
      guard: new GatewayRequestGuard(this.backends.authenticator, this.backends.limiter, this.backends.usage, config.limits),
      metrics: this.backends.metrics ? new HttpMetrics(this.backends.metrics) : null,
      trustProxy: config.trustProxy,
      maxJsonBodyBytes: config.limits.maxJsonBodyBytes,
      corsAllowedOrigins: config.corsAllowedOrigins,
      validateResponses,
    });
  }

  get config(): GatewayConfig {
    return this.backends.config;
  }

  get logger(): Logger {
    return this.backends.logger;
  }

  get store(): Backends['store'] {
    return this.backends.store;
  }

  get keys(): Backends['keys'] {
    return this.backends.keys;
  }

  get engines(): Backends['engines'] {
    return this.backends.engines;
  }

  get metrics(): Backends['metrics'] {
    return this.backends.metrics;
  }

  get jobs(): JobService {
    if (this.jobService === null) throw new Error('the gateway has not built its features');
    return this.jobService;
  }

  get port(): number {
    return this.boundPort;
  }

  /** The bound port of the metrics listener (METRICS_PORT=0 picks one); null when there is none. */
  get metricsPort(): number | null {
    return this.metricsServer?.port ?? null;
  }

  /** The absolute base of links handed out (PUBLIC_BASE_URL, or this host and port). */
  get baseUrl(): string {
    return this.config.publicBaseUrl ?? `http://localhost:${this.boundPort}`;
  }

  get signer(): UrlSigner {
    return new UrlSigner(this.backends.signingSecret, this.baseUrl);
  }

  /** Registers a shutdown step; such steps run in reverse order of registration, before the features close. */
  onClose(step: () => Promise<void>): void {
    this.extraClosers.push('extra', step);
  }

  routes(): readonly RouteDefinition[] {
    return this.router.routes;
  }

  llmsIndex(): string {
    return buildLlmsIndex(this.router.routes, this.baseUrl, this.sections);
  }

  llmsFull(): string {
    return buildLlmsFull(this.router.routes, this.baseUrl, this.config.limits, this.sections);
  }

  openApi(): Record<string, unknown> {
    return buildOpenApi(this.router.routes, {
      title: 'Speech gateway for Amharic, Oromo and Tigrinya',
      version: API_VERSION,
      description: 'Unified speech-to-text API (bearer keys) and the job-based API (X-API-Key). Key management is not part of this document.',
      serverUrl: this.baseUrl,
      maxJsonBodyBytes: this.config.limits.maxJsonBodyBytes,
    });
  }

  private async listen(): Promise<void> {
    const { metrics } = this.config;
    if (this.backends.metrics !== null && metrics.port !== null) {
      this.metricsServer = await MetricsServer.listen(this.backends.metrics, metrics.host, metrics.port, this.logger);
    }
    await new Promise<void>((resolve, reject) => {
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

  /**
   * Shutdown within SHUTDOWN_GRACE_MS: stops accepting connections; then, together, requests in
   * flight finish and every feature drains by the deadline (sessions record their jobs; running
   * jobs finish or go back to the queue, and `mode=sync` callers get their jobs as they stand);
   * then the features close (jobs persist) and the backends, engines after their users (stores last).
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.listenSocket !== null) {
        uws.us_listen_socket_close(this.listenSocket);
        this.listenSocket = null;
      }
      await this.metricsServer?.close();
      const graceMs = this.config.shutdownGraceMs;
      const deadline = Date.now() + graceMs;
      await Promise.all([this.router.drain(graceMs), ...this.features.map((feature) => this.drainFeature(feature, deadline))]);
      // The answers the drains gave (sync callers) are written out before anything closes.
      const drained = await this.router.drain(ANSWER_FLUSH_MS);
      if (!drained) this.logger.warn({ active: this.router.activeRequests }, 'requests still in flight at shutdown');
      await this.extraClosers.closeAll();
      const features = new ClosingStack(this.logger);
      for (const feature of this.features) if (feature.close) features.push(feature.name, () => feature.close!());
      await features.closeAll();
      await this.backends.close();
    })();
    return this.closing;
  }

  private async drainFeature(feature: Feature, deadline: number): Promise<void> {
    try {
      await feature.drain?.(deadline);
    } catch (error) {
      this.logger.error({ err: error, feature: feature.name }, 'shutdown drain failed');
    }
  }
}

export { ApiError };
