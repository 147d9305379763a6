import type { Logger } from 'pino';
import type { UrlSigner } from '../platform/auth/url-signer.js';
import { createJobRenderer, type JobRenderer } from '../jobs/batch-views.js';
import type { Cache } from '../platform/cache/cache.js';
import type { GatewayConfig } from '../platform/config/config.js';
import type { DocumentSection } from '../platform/http/llms-text.js';
import type { RouteDefinition } from '../platform/http/route-types.js';
import type { JobEvents } from '../jobs/job-events.js';
import type { JobOutbox } from '../jobs/job-outbox.js';
import type { JobService } from '../jobs/job-service.js';
import type { Asr } from '../engines/asr/asr.js';
import { resolveMediaTools } from '../platform/subprocess/media-tools.js';
import { MediaLibrary } from '../media/media-library.js';
import type { OutboundGuard } from '../platform/net/outbound-guard.js';
import { MediaProber } from '../media/probe/media-prober.js';
import { batchRoutes } from '../api/batch/batch-routes.js';
import { mediaRoutes } from '../api/media/media-routes.js';
import { uploadRoutes } from '../api/media/upload-routes.js';
import { webhookRoutes } from '../api/webhooks/webhook-routes.js';
import type { FileStorage } from '../platform/files/file-storage.js';
import type { Store } from '../platform/db/store-types.js';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.js';
import { WebhookService } from '../webhooks/webhook-service.js';
import { WebhookMetrics } from '../webhooks/webhook-metrics.js';
import type { Registry } from 'prom-client';
import type { Feature } from './feature.js';
import { MEDIA_GUIDE_SECTIONS } from './media-guide.js';

/**
 * Batches, uploads, media assets, the media probe and webhooks, built from the gateway's
 * shared parts. The gateway hands `library.resolveStored` to the audio fetcher and `render`
 * to the transcription routes, then mounts `feature()` (routes, start, close) from its list.
 */
export class MediaFeatures {
  readonly cache: Cache;
  readonly library: MediaLibrary;
  readonly prober: MediaProber;
  readonly dispatcher: WebhookDispatcher;
  readonly webhooks: WebhookService;
  readonly render: JobRenderer;
  readonly sections: readonly DocumentSection[] = MEDIA_GUIDE_SECTIONS;
  private readonly ffprobe: string;
  private readonly ffmpeg: string;

  constructor(
    private readonly deps: {
      readonly config: GatewayConfig;
      readonly logger: Logger;
      /** Uploads are checked by their container (`sniff`), whatever models are installed; batches resolve models. */
      readonly asr: Pick<Asr, 'sniff' | 'resolveModel'>;
      readonly store: Store;
      readonly storage: FileStorage;
      readonly guard: OutboundGuard;
      readonly events: JobEvents;
      readonly outbox: JobOutbox;
      readonly baseUrl: () => string;
      readonly signer: () => UrlSigner;
      /** Probe results (in-process, or shared through Redis); the backends own and close it. */
      readonly cache: Cache;
      readonly metrics?: Registry | null;
    },
  ) {
    const { config, logger, store } = deps;
    ({ ffprobe: this.ffprobe, ffmpeg: this.ffmpeg } = resolveMediaTools({ ffprobePath: config.ffprobePath, ffmpegPath: config.ffmpegPath }));
    this.cache = deps.cache;
    this.library = new MediaLibrary({
      store: store.media,
      storage: deps.storage,
      asr: deps.asr,
      ffprobe: this.ffprobe,
      ffmpeg: this.ffmpeg,
      limits: config.limits,
      logger,
      baseUrl: deps.baseUrl,
      signer: deps.signer,
    });
    this.prober = new MediaProber({
      guard: deps.guard,
      cache: this.cache,
      ffprobe: this.ffprobe,
      ytdlp: config.ytdlpPath,
      timeoutSeconds: config.limits.probeTimeoutSeconds,
      cacheTtlSeconds: config.limits.probeCacheTtlSeconds,
      logger,
    });
    this.dispatcher = new WebhookDispatcher({
      store: store.webhooks,
      jobs: store.jobs,
      events: deps.events,
      outbox: deps.outbox,
      guard: deps.guard,
      limits: config.limits,
      logger,
      metrics: deps.metrics ? new WebhookMetrics(deps.metrics) : null,
    });
    this.webhooks = new WebhookService({ store: store.webhooks, dispatcher: this.dispatcher, guard: deps.guard });
    this.render = createJobRenderer({ jobs: store.jobs, signer: deps.signer, ttlSeconds: config.limits.signedUrlTtlSeconds });
  }

  /** The routes (on the job service, built after this) with this object's start and close. */
  feature(parts: { jobs: JobService }): Feature {
    return { name: 'media', routes: this.routes(parts), sections: this.sections, start: () => this.start(), close: () => this.close() };
  }

  routes(parts: { jobs: JobService }): RouteDefinition[] {
    const { config, storage, guard, signer } = this.deps;
    return [
      ...batchRoutes({
        jobs: parts.jobs,
        asr: this.deps.asr,
        storage,
        library: this.library,
        guard,
        ffprobe: this.ffprobe,
        ffmpeg: this.ffmpeg,
        defaultLanguage: config.defaultLanguage,
        limits: config.limits,
      }),
      ...uploadRoutes({ library: this.library, signer, limits: config.limits }),
      ...mediaRoutes({ library: this.library, prober: this.prober, storage, signer, limits: config.limits }),
      ...webhookRoutes({ service: this.webhooks, store: this.deps.store.webhooks, limits: config.limits }),
    ];
  }

  /** After job recovery: webhook deliveries due (from before a restart too) go out; the upload sweeper runs. */
  start(): void {
    this.dispatcher.start();
    this.library.start();
  }

  async close(): Promise<void> {
    await this.dispatcher.close();
    await this.library.close();
  }
}
