import type { JobEvents } from '../jobs/job-events.js';
import type { JobOutbox } from '../jobs/job-outbox.js';
import { JobRunner } from '../jobs/job-runner.js';
import type { TranslationRunner } from '../jobs/translation-runner.js';
import { JobMetrics } from '../jobs/job-metrics.js';
import { JobService } from '../jobs/job-service.js';
import { JobSweeper } from '../jobs/job-sweeper.js';
import { BatchAggregator } from '../jobs/batch-aggregator.js';
import { createAudioFetcher, type StoredAudioResolver } from '../jobs/audio-fetcher.js';
import { ClosingStack } from './closing-stack.js';
import type { Feature } from './feature.js';
import type { Backends } from './open-backends.js';

export interface JobsFeature extends Feature {
  readonly service: JobService;
}

/**
 * The job runner: the service every surface submits to, the runner on the speech engine, the
 * batch aggregator and the lease sweeper. Start recovers what a previous process left (jobs,
 * batch parents, job events) before taking new work. Shutdown: `drain` stops the sweeper and
 * gives running jobs what is left of the grace before returning them to the queue and answering
 * the `mode=sync` callers; close then waits for job events still being recorded.
 */
export function jobsFeature(
  b: Backends,
  parts: {
    readonly events: JobEvents;
    readonly outbox: JobOutbox;
    readonly resolveStored: StoredAudioResolver;
    /** Runs file translation jobs from the same queue. */
    readonly translationRunner?: TranslationRunner;
  },
): JobsFeature {
  const { config, store, storage, logger, leaseMs } = b;
  const runner = new JobRunner({
    jobs: store.jobs,
    storage,
    asr: b.engines.asr,
    events: parts.events,
    usage: b.usage,
    logger,
    owner: b.owner,
    leaseMs,
    dailyAudioLimitSeconds: async (keyId) => 60 * ((await store.apiKeys.get(keyId))?.limits.dailyAudioMinutes ?? config.limits.dailyAudioMinutes),
    fetchAudio: createAudioFetcher({
      storage,
      guard: b.outbound,
      maxBytes: config.limits.maxAudioBytes,
      timeoutSeconds: config.limits.downloadTimeoutSeconds,
      resolveStored: parts.resolveStored,
    }),
  });
  const service = new JobService({
    jobs: store.jobs,
    queue: b.queue,
    runner,
    ...(parts.translationRunner ? { translationRunner: parts.translationRunner } : {}),
    events: parts.events,
    storage,
    usage: store.usage,
    recorder: b.usage,
    limits: config.limits,
    logger,
    concurrencyLimit: async (keyId) => (await store.apiKeys.get(keyId))?.limits.concurrentJobs ?? config.limits.concurrentJobs,
    soleProcess: b.soleProcess,
    overload: { maxQueueWaitSeconds: config.overload.jobMaxQueueWaitSeconds, workers: config.jobWorkers },
    workersPerAccount: config.jobWorkersPerAccount,
    idempotency: store.idempotency,
  });
  if (b.metrics) new JobMetrics(b.metrics, parts.events, b.queue, () => service.estimatedQueueWait());
  const aggregator = new BatchAggregator(store.jobs, parts.events, logger);
  const sweeper = new JobSweeper({ jobs: service, aggregator, outbox: parts.outbox, intervalMs: Math.max(500, leaseMs / 2), staleMs: leaseMs, logger });
  const closing = new ClosingStack(logger);
  closing.push('job events', () => parts.outbox.drain());
  closing.push('jobs', () => service.close(config.shutdownGraceMs));
  closing.push('job sweeper', () => sweeper.close());
  return {
    name: 'jobs',
    service,
    start: async () => {
      await service.recover();
      await aggregator.recoverParents();
      await parts.outbox.replay();
      service.start();
      sweeper.start();
    },
    // Shutdown: running jobs get until the deadline, then go back to the queue; then sync callers are answered.
    drain: async (deadline) => {
      await sweeper.close();
      await service.close(Math.max(0, deadline - Date.now()));
    },
    close: () => closing.closeAll(),
  };
}
