export const id = '0001-initial';

/**
 * The gateway's tables, as the SQLite migrations 0001–0005 shape them, in PostgreSQL types:
 * instants are timestamptz, documents `json` (kept exactly as written, so API output is the
 * same byte for byte on both backends), flags boolean, sizes bigint. Webhook payloads stay
 * text: they are signed bytes. Ids compare byte-wise (COLLATE "C"), as in SQLite, so keyset
 * cursors and tie-breaks order the same on both backends whatever the database's locale.
 */
export const sql = `
CREATE TABLE accounts (
  id text COLLATE "C" PRIMARY KEY,
  name text NOT NULL UNIQUE,
  created_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id text COLLATE "C" PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id),
  name text,
  prefix text NOT NULL,
  hash text NOT NULL UNIQUE,
  scopes json NOT NULL,
  ip_allowlist json,
  origin_allowlist json,
  limits json NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_keys_account ON api_keys(account_id);

CREATE TABLE usage_daily (
  key_id text NOT NULL,
  date date NOT NULL,
  requests bigint NOT NULL DEFAULT 0,
  audio_seconds double precision NOT NULL DEFAULT 0,
  jobs bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (key_id, date)
);

CREATE TABLE jobs (
  id text COLLATE "C" PRIMARY KEY,
  account_id text NOT NULL,
  key_id text NOT NULL,
  kind text NOT NULL,
  api text NOT NULL,
  parent_id text REFERENCES jobs(id) ON DELETE CASCADE,
  position integer NOT NULL DEFAULT 0,
  status text NOT NULL,
  requested_language text NOT NULL,
  language text NOT NULL,
  requested_model text NOT NULL,
  model text,
  mode text NOT NULL,
  audio_url text,
  audio_object text,
  audio_filename text,
  audio_bytes bigint,
  transcript_object text,
  text text,
  segments json,
  progress json,
  duration_seconds double precision,
  processing_time_seconds double precision,
  error json,
  options json NOT NULL DEFAULT '{}',
  attempts integer NOT NULL DEFAULT 0,
  events_pending boolean NOT NULL DEFAULT false,
  lease_owner text,
  lease_until timestamptz,
  created_at timestamptz NOT NULL,
  started_at timestamptz,
  completed_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX jobs_account_created ON jobs(account_id, created_at DESC, id DESC);
CREATE INDEX jobs_parent ON jobs(parent_id);
CREATE INDEX jobs_status ON jobs(status, created_at);
CREATE INDEX jobs_key_status ON jobs(key_id, status);
CREATE INDEX jobs_events_pending ON jobs(completed_at, id) WHERE events_pending;
CREATE INDEX jobs_processing_lease ON jobs(lease_until) WHERE status = 'processing';

CREATE TABLE media_assets (
  id text COLLATE "C" PRIMARY KEY,
  account_id text NOT NULL,
  key_id text NOT NULL,
  status text NOT NULL,
  source text NOT NULL,
  storage_key text NOT NULL,
  filename text NOT NULL,
  content_type text NOT NULL,
  expected_bytes bigint,
  size_bytes bigint,
  format text,
  duration_seconds double precision,
  created_at timestamptz NOT NULL,
  uploaded_at timestamptz,
  finalized_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX media_assets_account_created ON media_assets(account_id, created_at DESC, id DESC);
CREATE INDEX media_assets_status_created ON media_assets(status, created_at);

CREATE TABLE webhooks (
  id text COLLATE "C" PRIMARY KEY,
  account_id text NOT NULL,
  key_id text NOT NULL,
  url text NOT NULL,
  events json NOT NULL,
  secret text,
  description text NOT NULL DEFAULT '',
  status text NOT NULL,
  consecutive_failures integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  last_delivery_at timestamptz,
  last_success_at timestamptz,
  last_failure_at timestamptz,
  disabled_at timestamptz
);
CREATE INDEX webhooks_account_created ON webhooks(account_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id text COLLATE "C" PRIMARY KEY,
  webhook_id text NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id text NOT NULL,
  event text NOT NULL,
  payload text NOT NULL,
  status text NOT NULL,
  max_attempts integer NOT NULL,
  attempt_count integer NOT NULL DEFAULT 0,
  attempts json NOT NULL DEFAULT '[]',
  next_attempt_at timestamptz,
  lease_until timestamptz,
  redelivery_of text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  completed_at timestamptz
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries(webhook_id, event_id) WHERE redelivery_of IS NULL;
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, created_at DESC, id DESC);
`;
