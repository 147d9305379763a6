export const id = '0007-idempotency-keys';

/** Idempotency-Key of job submissions: per account, the request's fingerprint and the job it created, kept 24 hours. */
export const sql = `
CREATE TABLE idempotency_keys (
  account_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  job_id TEXT,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (account_id, idempotency_key)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys(expires_at);
`;
