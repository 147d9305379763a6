/**
 * Idempotency keys of job submissions: one row per (account, key) holding the request's
 * fingerprint and, once created, the job it made. A row lives until `expiresAt`; an expired row
 * (or one whose submission never finished) may be taken over by a new request.
 */
export interface IdempotencyRecord {
  readonly accountId: string;
  readonly idempotencyKey: string;
  /** SHA-256 (hex) of the route and the request body. */
  readonly fingerprint: string;
  /** The job the first request created; null while that request is still submitting it. */
  readonly jobId: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
}

export interface IdempotencyStore {
  /** Inserts `record` unless the account already holds its key; true when it was inserted. */
  insert(record: IdempotencyRecord): Promise<boolean>;
  get(accountId: string, idempotencyKey: string): Promise<IdempotencyRecord | null>;
  /** Replaces the row only while it was created at `createdAt` (two takers: one wins); true when replaced. */
  replace(record: IdempotencyRecord, createdAt: string): Promise<boolean>;
  /** Records the job the key's request created. */
  attach(accountId: string, idempotencyKey: string, createdAt: string, jobId: string): Promise<void>;
  /** Removes the row the request created (its submission failed), so a retry is free to run. */
  release(accountId: string, idempotencyKey: string, createdAt: string): Promise<void>;
  /** Removes rows expired before `now`; returns how many. */
  deleteExpired(now: string): Promise<number>;
}
