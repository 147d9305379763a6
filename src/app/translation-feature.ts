import type { TranslationEngine } from '../engines/translation/translation.js';
import { signOutputUrl, translationJobRoutes } from '../api/translation/translation-job-routes.js';
import type { StoredAudioResolver } from '../jobs/audio-fetcher.js';
import type { JobEvents } from '../jobs/job-events.js';
import type { JobOutbox } from '../jobs/job-outbox.js';
import type { JobService } from '../jobs/job-service.js';
import { TranslationJobs } from '../jobs/translation-jobs.js';
import { TranslationRunner } from '../jobs/translation-runner.js';
import { TranslationCallbacks } from '../webhooks/translation-callbacks.js';
import type { GatewaySite } from './api-features.js';
import type { Feature } from './feature.js';
import type { Backends } from './open-backends.js';
import { TRANSLATION_GUIDE_SECTIONS } from './translation-guide.js';

/** The engine file translation uses: the gateway's (TRANSLATION_MODEL), unless the caller of Gateway.start gave one. */
export type TranslationEngineSource = () => TranslationEngine | null;

/** The runner file translation jobs use; the job service's queue consumer hands it `translation` jobs. */
export function translationRunner(
  b: Backends,
  parts: { readonly events: JobEvents; readonly engine: TranslationEngineSource; readonly resolveStored: StoredAudioResolver },
): TranslationRunner {
  const { config } = b;
  return new TranslationRunner({
    jobs: b.store.jobs,
    translations: b.store.translations,
    io: {
      storage: b.storage,
      guard: b.outbound,
      resolveStored: parts.resolveStored,
      maxSourceBytes: config.limits.translationMaxSourceBytes,
      timeoutSeconds: config.limits.downloadTimeoutSeconds,
      s3Bucket: config.files.s3?.bucket ?? null,
    },
    engine: parts.engine,
    events: parts.events,
    usage: b.usage,
    logger: b.logger,
    owner: b.owner,
    leaseMs: b.leaseMs,
    concurrency: config.limits.translationUnitConcurrency,
    retryDelayMs: config.limits.translationRetryDelayMs,
    queueWaitMs: config.limits.translationQueueWaitSeconds * 1000,
  });
}

/**
 * File translation jobs of the job API (POST/GET/DELETE /translate..., X-API-Key): routes, the
 * signed output downloads, the callbacks (outbox consumer, webhook schedule) and the expiry
 * sweep. Jobs themselves run in the job service's queue (see `translationRunner`).
 */
export function translationJobsFeature(
  b: Backends,
  site: GatewaySite,
  parts: { readonly outbox: JobOutbox; readonly engine: TranslationEngineSource; readonly jobs: JobService },
): Feature {
  const { config } = b;
  const service = new TranslationJobs({
    jobs: b.store.jobs,
    translations: b.store.translations,
    queue: b.queue,
    expiryHours: config.limits.translationJobExpiryHours,
    logger: b.logger,
  });
  const callbacks = new TranslationCallbacks({
    translations: b.store.translations,
    outbox: parts.outbox,
    guard: b.outbound,
    retryScheduleSeconds: config.limits.webhookRetryScheduleSeconds,
    timeoutSeconds: config.limits.webhookTimeoutSeconds,
    signOutput: (job, unit) => signOutputUrl(site.signer, job, unit, config.limits.translationOutputUrlTtlSeconds),
    logger: b.logger,
  });
  return {
    name: 'file translation',
    sections: TRANSLATION_GUIDE_SECTIONS,
    routes: translationJobRoutes({
      translations: service,
      jobs: b.store.jobs,
      storage: b.storage,
      guard: b.outbound,
      limiter: b.limiter,
      signer: () => site.signer,
      limits: config.limits,
      s3Bucket: config.files.s3?.bucket ?? null,
      engineAvailable: () => parts.engine() !== null,
      admitBacklog: () => parts.jobs.admitBacklog(),
      submissions: parts.jobs.submissions,
    }),
    start: () => {
      service.start();
      callbacks.start();
    },
    close: async () => {
      await callbacks.close();
      await service.close();
    },
  };
}
