import type { Registry } from 'prom-client';
import { metricFamilies } from '../platform/metrics/metric-families.js';
import type { JobRecord } from '../platform/db/job-records.js';
import { audioMetrics, formatLabel, languageLabel, sampledGauge } from '../platform/metrics/shared-metrics.js';
import type { JobEvents } from './job-events.js';
import type { JobQueue } from './job-queue.js';

/** Where a job's audio came from: an upload, an audio_url, or a file of a batch (`translation` for file translation jobs). Bounded. */
export function jobSource(job: Pick<JobRecord, 'kind' | 'audioUrl'>): string {
  if (job.kind === 'batch_child') return 'batch';
  if (job.kind === 'websocket') return 'websocket';
  if (job.kind === 'translation') return 'translation';
  return job.audioUrl !== null ? 'url' : 'upload';
}

const seconds = (from: string | null, to: string | null): number | null =>
  from === null || to === null ? null : Math.max(0, (Date.parse(to) - Date.parse(from)) / 1000);

/**
 * Prometheus figures of the jobs this process finished (REST and job API; streaming sessions
 * are counted by the gateway_ws_* families):
 *  - gateway_jobs_total{status, source, language, model}: jobs that reached a final status
 *  - gateway_job_duration_seconds{status, source}: start to final status
 *  - gateway_job_queue_wait_seconds{source}: submission to (last) start
 *  - gateway_job_queue_depth / gateway_jobs_running: this queue now (Redis: refreshed every few seconds)
 *  - the shared audio families with surface="rest"
 * Labels are bounded: status and source are fixed sets, language a validated code, model a
 * name from the server's catalog.
 */
export class JobMetrics {
  constructor(registry: Registry, events: JobEvents, queue: JobQueue, estimatedWait: () => number) {
    const family = metricFamilies(registry);
    const jobs = family.counter('gateway_jobs_total', 'Transcription jobs that reached a final status, by status, source, language and model', [
      'status',
      'source',
      'language',
      'model',
    ]);
    const duration = family.histogram(
      'gateway_job_duration_seconds',
      'Job processing time from start to its final status',
      ['status', 'source'],
      [0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    );
    const queueWait = family.histogram(
      'gateway_job_queue_wait_seconds',
      'Time from submission to the start of processing',
      ['source'],
      [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
    );
    sampledGauge(registry, 'gateway_job_queue_depth', 'Jobs waiting in the queue for a worker', () => queue.waiting());
    sampledGauge(registry, 'gateway_jobs_running', 'Jobs being processed by this process', () => queue.running());
    sampledGauge(
      registry,
      'gateway_job_queue_estimated_wait_seconds',
      'Estimated wait of a job submitted now (waiting jobs x mean job time / workers); JOB_MAX_QUEUE_WAIT_SECONDS refuses past it',
      () => estimatedWait(),
    );
    const audio = audioMetrics(registry);
    events.on('finished', (job) => {
      if (job.kind === 'batch') return;
      const source = jobSource(job);
      const language = languageLabel(job.language);
      jobs.inc({ status: job.status, source, language, model: job.model ?? 'none' });
      const ran = seconds(job.startedAt, job.completedAt);
      if (ran !== null) duration.observe({ status: job.status, source }, ran);
      const waited = seconds(job.createdAt, job.startedAt);
      if (waited !== null) queueWait.observe({ source }, waited);
      const audioSeconds = job.durationSeconds ?? 0;
      if (audioSeconds <= 0) return;
      const labels = { surface: 'rest', format: formatLabel(job.audioFilename ?? job.audioUrl), language };
      audio.ingested.inc(labels, audioSeconds);
      if (job.status !== 'completed') return;
      audio.transcribed.inc(labels, audioSeconds);
      if (job.processingTimeSeconds !== null) audio.realTimeFactor.observe({ surface: 'rest' }, job.processingTimeSeconds / audioSeconds);
    });
  }
}
