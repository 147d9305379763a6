import { ApiError } from '../platform/errors/api-error.js';
import type { IdempotencyRecord, IdempotencyStore } from '../platform/db/idempotency-records.js';
import type { JobStore } from '../platform/db/job-records.js';

/** How long a key answers with its first job (docs: the Idempotency-Key header). */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 60 * 60;
/** A key whose request has not recorded its job after this long is taken to have died with its process. */
const ABANDONED_CLAIM_MS = 60_000;
/** Expired keys are removed at most this often per process. */
const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;

/** What a submission under a key came to: a new job, or the job the key's first request created. */
export interface IdempotentOutcome {
  readonly jobId: string;
  readonly replayed: boolean;
}

/**
 * Job submissions under an `Idempotency-Key`: per account, the first request with a key creates
 * its job and records it; a later request with the same key and fingerprint within
 * IDEMPOTENCY_WINDOW_SECONDS gets that job instead of a new one, a different request 422
 * idempotency_key_reused, and one arriving while the first is still submitting 409
 * idempotency_key_in_use. Keys live in the store, so they hold across restarts and gateways.
 * A submission that fails frees its key; one whose job was deleted since hands the key on.
 */
export class IdempotentSubmissions {
  private lastCleanup = 0;

  constructor(private readonly deps: { readonly keys: IdempotencyStore; readonly jobs: Pick<JobStore, 'get'> }) {}

  /** `create` makes the job and returns its id; without a key it simply runs. */
  async submit(accountId: string, key: string | null, fingerprint: string, create: () => Promise<string>): Promise<IdempotentOutcome> {
    if (key === null) return { jobId: await create(), replayed: false };
    this.cleanup();
    const claim = await this.claim(accountId, key, fingerprint);
    if (typeof claim === 'string') return { jobId: claim, replayed: true };
    let jobId: string;
    try {
      jobId = await create();
    } catch (error) {
      await this.deps.keys.release(accountId, key, claim.createdAt).catch(() => undefined);
      throw error;
    }
    await this.deps.keys.attach(accountId, key, claim.createdAt, jobId);
    return { jobId, replayed: false };
  }

  /** The key for this request (its record), or the id of the job it already names. */
  private async claim(accountId: string, key: string, fingerprint: string): Promise<IdempotencyRecord | string> {
    const now = Date.now();
    const record: IdempotencyRecord = {
      accountId,
      idempotencyKey: key,
      fingerprint,
      jobId: null,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + IDEMPOTENCY_WINDOW_SECONDS * 1000).toISOString(),
    };
    // Each round either wins the key or finds it changed by another request: a few rounds settle it.
    for (let round = 0; round < 3; round++) {
      if (await this.deps.keys.insert(record)) return record;
      const existing = await this.deps.keys.get(accountId, key);
      if (existing === null) continue;
      if (Date.parse(existing.expiresAt) > now) {
        if (existing.fingerprint !== fingerprint) throw new ApiError('idempotency_key_reused');
        if (existing.jobId === null) {
          if (now - Date.parse(existing.createdAt) < ABANDONED_CLAIM_MS) throw new ApiError('idempotency_key_in_use', { retryAfter: 1 });
        } else if ((await this.deps.jobs.get(existing.jobId)) !== null) {
          return existing.jobId;
        }
      }
      if (await this.deps.keys.replace(record, existing.createdAt)) return record;
    }
    throw new ApiError('idempotency_key_in_use', { retryAfter: 1 });
  }

  private cleanup(): void {
    const now = Date.now();
    if (now - this.lastCleanup < CLEANUP_INTERVAL_MS) return;
    this.lastCleanup = now;
    void this.deps.keys.deleteExpired(new Date(now).toISOString()).catch(() => undefined);
  }
}
