export const id = '0006-translation-jobs';

/**
 * File translation jobs: the job itself is a `jobs` row of kind `translation` (queue, lease,
 * per-key limits); `translation_jobs` holds its request, callback state and expiry, and
 * `translation_units` one row per (file, target language).
 */
export const sql = `
CREATE TABLE translation_jobs (
  job_id TEXT PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
  source_language TEXT NOT NULL,
  target_languages TEXT NOT NULL,
  destination_uri TEXT NOT NULL,
  callback_url TEXT,
  callback_secret TEXT,
  callback_status TEXT,
  callback_payload TEXT,
  callback_attempts INTEGER NOT NULL DEFAULT 0,
  callback_next_at TEXT,
  callback_lease_until TEXT,
  callback_last_error TEXT,
  expires_at TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX translation_jobs_callback_due ON translation_jobs(callback_next_at) WHERE callback_status = 'pending';
CREATE INDEX translation_jobs_expires ON translation_jobs(expires_at);

CREATE TABLE translation_units (
  job_id TEXT NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  source_uri TEXT NOT NULL,
  target_language TEXT NOT NULL,
  output_name TEXT NOT NULL,
  status TEXT NOT NULL,
  target_object TEXT,
  error TEXT,
  characters INTEGER NOT NULL DEFAULT 0,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (job_id, position)
);
`;
