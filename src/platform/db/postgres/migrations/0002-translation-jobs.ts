export const id = '0002-translation-jobs';

/** File translation jobs: as SQLite's 0006-translation-jobs (the job itself is a `jobs` row of kind `translation`). */
export const sql = `
CREATE TABLE translation_jobs (
  job_id text COLLATE "C" PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
  source_language text NOT NULL,
  target_languages json NOT NULL,
  destination_uri text NOT NULL,
  callback_url text,
  callback_secret text,
  callback_status text,
  callback_payload text,
  callback_attempts integer NOT NULL DEFAULT 0,
  callback_next_at timestamptz,
  callback_lease_until timestamptz,
  callback_last_error text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX translation_jobs_callback_due ON translation_jobs(callback_next_at) WHERE callback_status = 'pending';
CREATE INDEX translation_jobs_expires ON translation_jobs(expires_at);

CREATE TABLE translation_units (
  job_id text COLLATE "C" NOT NULL REFERENCES jobs(id) ON DELETE CASCADE,
  position integer NOT NULL,
  source_uri text NOT NULL,
  target_language text NOT NULL,
  output_name text NOT NULL,
  status text NOT NULL,
  target_object text,
  error json,
  characters integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (job_id, position)
);
`;
