// A submitted job awaited by the request that submitted it, for routes that answer with the
// result itself (the OpenAI-compatible audio routes) rather than with the job.
//
// Rules: the caller waits until the job is final, however long it runs (up to AWAIT_LIMIT_MS).
// A completed job is returned; a failed one becomes its own error (the code and message its
// record carries, so the caller sees what a poller of the job would); a cancelled one is 409.
// When the caller goes away first (its signal aborts) the job is cancelled: nobody is left to
// read it. When the wait ends without a final job (shutdown, or the limit) the job is left to
// finish and the caller gets 503 `server_overloaded` naming the job, which it can fetch later.
import { ApiError } from '../platform/errors/api-error.js';
import { isErrorCode } from '../platform/errors/error-registry.js';
import type { JobRecord } from '../platform/db/job-records.js';
import type { JobService } from './job-service.js';

/** The longest a request waits for its job: longer than any file the gateway accepts takes (MAX_AUDIO_SECONDS is 4 h by default). */
export const AWAIT_LIMIT_MS = 6 * 3600 * 1000;

export type CompletedJob = JobRecord & { readonly status: 'completed' };

export async function awaitCompletedJob(
  jobs: Pick<JobService, 'waitForFinal' | 'cancel'>,
  job: Pick<JobRecord, 'id' | 'accountId'>,
  signal: AbortSignal,
  limitMs: number = AWAIT_LIMIT_MS,
): Promise<CompletedJob> {
  const final = await jobs.waitForFinal(job.id, limitMs, signal);
  if (signal.aborted) {
    await jobs.cancel(job.id, job.accountId).catch(() => undefined);
    throw new ApiError('internal_error', { message: 'The client went away before the job finished; the job was cancelled.' });
  }
  if (final === null) throw new ApiError('job_not_found', { message: `Job ${job.id} was deleted before it finished.` });
  if (final.status === 'completed') return final as CompletedJob;
  if (final.status === 'failed') throw failedJobError(final);
  if (final.status === 'cancelled') throw new ApiError('job_not_completed', { message: `Job ${final.id} was cancelled before it completed.` });
  throw new ApiError('server_overloaded', {
    message: `The server stopped waiting for job ${final.id} (${final.status}); it goes on: fetch it later with GET /v1/transcriptions/${final.id}.`,
    retryAfter: 30,
  });
}

/** The error a failed job's record carries, as the error of the request that awaited it. */
export function failedJobError(job: Pick<JobRecord, 'id' | 'error'>): ApiError {
  const code = job.error?.code;
  if (code === undefined || !isErrorCode(code) || code === 'internal_error') {
    return new ApiError('internal_error', { message: job.error?.message ?? `Job ${job.id} failed.` });
  }
  return new ApiError(code, { message: job.error!.message });
}
