export const id = '0004-webhooks';

/**
 * Webhooks (per account) and their deliveries. A delivery is one event for one webhook; it
 * keeps its exact body, its attempts and the time of the next one, so retries survive
 * restarts. `lease_until` marks a delivery a process is attempting right now.
 */
export const sql = `
CREATE TABLE webhooks (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  key_id TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  secret TEXT,
  description TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  consecutive_failures INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  last_delivery_at TEXT,
  last_success_at TEXT,
  last_failure_at TEXT,
  disabled_at TEXT
);
CREATE INDEX webhooks_account_created ON webhooks(account_id, created_at, id);

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  webhook_id TEXT NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  event_id TEXT NOT NULL,
  event TEXT NOT NULL,
  payload TEXT NOT NULL,
  status TEXT NOT NULL,
  max_attempts INTEGER NOT NULL,
  attempt_count INTEGER NOT NULL DEFAULT 0,
  attempts TEXT NOT NULL DEFAULT '[]',
  next_attempt_at TEXT,
  lease_until TEXT,
  redelivery_of TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries(status, next_attempt_at);
CREATE UNIQUE INDEX webhook_deliveries_event ON webhook_deliveries(webhook_id, event_id) WHERE redelivery_of IS NULL;
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries(webhook_id, created_at DESC, id DESC);
`;
