export const id = '0003-media-assets';

/**
 * Uploaded files (media assets). Keyed on the account, not the key, so they survive key
 * rotation; jobs refer to them but never own them.
 * status: pending (signed upload URL issued, no bytes yet) → uploaded (bytes received through
 * the signed PUT) → ready (finalized, or uploaded through POST /v1/uploads).
 */
export const sql = `
CREATE TABLE media_assets (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  key_id TEXT NOT NULL,
  status TEXT NOT NULL,
  source TEXT NOT NULL,
  storage_key TEXT NOT NULL,
  filename TEXT NOT NULL,
  content_type TEXT NOT NULL,
  expected_bytes INTEGER,
  size_bytes INTEGER,
  format TEXT,
  duration_seconds REAL,
  created_at TEXT NOT NULL,
  uploaded_at TEXT,
  finalized_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX media_assets_account_created ON media_assets(account_id, created_at DESC, id DESC);
CREATE INDEX media_assets_status_created ON media_assets(status, created_at);
`;
