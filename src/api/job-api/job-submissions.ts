// What the two job API submissions (POST /transcribe, POST /translate) share: their route contract
// and one per-key hourly submission window.
import type { TSchema } from '@sinclair/typebox';
import { ApiError } from '../../platform/errors/api-error.js';
import type { RateLimiter } from '../../platform/limits/rate-limiter.js';
import { IDEMPOTENCY_RESPONSES } from '../idempotency-key.js';
import { JOB_KEY_WRITE } from '../route-access.js';

/**
 * Spread into a job API submission route: a write key, the JSON `body`, 202 with `submitted` (the
 * job id at once), 409 while a request with the same Idempotency-Key is still being submitted.
 */
export function jobSubmissionContract<B extends TSchema>(body: B, submitted: TSchema) {
  return {
    ...JOB_KEY_WRITE,
    body: { kind: 'json', schema: body } as const,
    responses: { 202: { description: 'Submitted', schema: submitted }, ...IDEMPOTENCY_RESPONSES },
  };
}

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
