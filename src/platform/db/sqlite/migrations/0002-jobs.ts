export const id = '0002-jobs';

export const sql = `
CREATE TABLE jobs (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  key_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  api TEXT NOT NULL,
  parent_id TEXT REFERENCES jobs(id) ON DELETE CASCADE,
  position INTEGER NOT NULL DEFAULT 0,
  status TEXT NOT NULL,
  requested_language TEXT NOT NULL,
  language TEXT NOT NULL,
  requested_model TEXT NOT NULL,
  model TEXT,
  mode TEXT NOT NULL,
  audio_url TEXT,
  audio_object TEXT,
  audio_filename TEXT,
  audio_bytes INTEGER,
  transcript_object TEXT,
  text TEXT,
  segments TEXT,
  progress TEXT,
  duration_seconds REAL,
  processing_time_seconds REAL,
  error TEXT,
  options TEXT NOT NULL DEFAULT '{}',
  attempts INTEGER NOT NULL DEFAULT 0,
  events_pending INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  started_at TEXT,
  completed_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX jobs_account_created ON jobs(account_id, created_at DESC, id DESC);
CREATE INDEX jobs_parent ON jobs(parent_id);
CREATE INDEX jobs_status ON jobs(status, created_at);
CREATE INDEX jobs_key_status ON jobs(key_id, status);
CREATE INDEX jobs_events_pending ON jobs(events_pending) WHERE events_pending = 1;
`;
