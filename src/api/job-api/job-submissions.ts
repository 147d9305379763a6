import { ApiError } from '../../platform/errors/api-error.js';
import type { RateLimiter } from '../../platform/limits/rate-limiter.js';

/**
 * Counts a job API submission (POST /transcribe, POST /translate: one window for both) against
 * its key's JOB_SUBMISSIONS_PER_HOUR; 429 rate_limit_exceeded beyond it.
 */
export async function countJobSubmission(limiter: RateLimiter, keyId: string, perHour: number): Promise<void> {
  const submissions = await limiter.consume(`jobsubmit:${keyId}`, [{ window: 'hour', limit: perHour }]);
  if (!submissions.allowed) {
    throw new ApiError('rate_limit_exceeded', { retryAfter: submissions.retryAfter, detail: `Rate limit exceeded: ${perHour} requests/hour` });
  }
}
