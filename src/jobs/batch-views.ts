import type { UrlSigner } from '../platform/auth/url-signer.js';
import { countChildren } from './batch-aggregator.js';
import type { JobRecord, JobStore } from '../platform/db/job-records.js';
import { transcriptionView } from './job-views.js';

/** Renders a job as the unified API shows it, with whatever it needs from the store. */
export type JobRenderer = (job: JobRecord) => Promise<Record<string, unknown>>;

/** What a batch child's `jobs[].url` is when the file came as a multipart part: its file name. */
export function childSourceUrl(child: JobRecord, index: number): string {
  return child.audioUrl ?? child.audioFilename ?? `file-${index + 1}`;
}

/**
 * The spec's Batch metadata: live per-status counts and one `jobs[]` entry per file, in
 * submission order (the store returns children by position). A cancelled file counts (and shows) as failed: the batch statuses are
 * queued, processing, completed and failed.
 */
export function batchMetadata(children: readonly JobRecord[]): Record<string, unknown> {
  const counts = countChildren(children);
  return {
    batch_mode: true,
    total_count: counts.total,
    completed_count: counts.completed,
    failed_count: counts.failed + counts.cancelled,
    processing_count: counts.processing,
    queued_count: counts.queued,
    jobs: children.map((child, index) => ({
      job_id: child.id,
      url: childSourceUrl(child, index),
      status: child.status === 'cancelled' ? 'failed' : child.status,
      ...(child.status === 'completed' ? { text: child.text ?? '' } : {}),
      ...(child.status === 'processing' && child.progress !== null ? { progress: child.progress } : {}),
    })),
  };
}

/** The creation response of a batch: counts and jobs are left out, as the spec asks. */
export function batchCreatedView(parent: JobRecord, totalCount: number): Record<string, unknown> {
  return {
    ...transcriptionView(parent),
    text: null,
    segments: null,
    audio_url: null,
    audio_download_url: null,
    metadata: { batch_mode: true, total_count: totalCount },
  };
}

/**
 * Batch parents get their live metadata (text and segments stay null); batch children get
 * `audio_download_url`, a signed link to their stored audio. Other jobs render as they are.
 */
export function createJobRenderer(deps: { jobs: JobStore; signer: () => UrlSigner; ttlSeconds: number }): JobRenderer {
  return async (job) => {
    const view = transcriptionView(job);
    if (job.kind === 'batch' && job.api === 'unified') {
      const children = await deps.jobs.children(job.id);
      return { ...view, text: null, segments: null, audio_url: null, audio_download_url: null, metadata: batchMetadata(children) };
    }
    if (job.kind === 'batch_child') {
      const link = job.audioObject === null ? null : deps.signer().sign('GET', `/v1/files/transcriptions/${job.id}/audio`, deps.ttlSeconds).url;
      return { ...view, audio_download_url: link };
    }
    return view;
  };
}
