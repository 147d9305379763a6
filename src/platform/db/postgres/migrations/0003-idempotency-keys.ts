export const id = '0003-idempotency-keys';

/** Idempotency-Key of job submissions: as SQLite's 0007-idempotency-keys. */
export const sql = `
CREATE TABLE idempotency_keys (
  account_id text COLLATE "C" NOT NULL,
  idempotency_key text COLLATE "C" NOT NULL,
  fingerprint text NOT NULL,
  job_id text COLLATE "C",
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, idempotency_key)
);
CREATE INDEX idempotency_keys_expires ON idempotency_keys(expires_at);
`;
