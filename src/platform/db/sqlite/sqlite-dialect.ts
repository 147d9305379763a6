import type { SqlDialect } from '../sql/executor.js';

/**
 * SQLite's side of the differences. Lists travel as one JSON text read back with json_each,
 * so a statement is prepared once whatever the list's length. Lease queries need no row locks:
 * one statement is atomic, and SQLite lets one writer at a time in.
 */
export const SQLITE_DIALECT: SqlDialect = {
  name: 'sqlite',
  inList: (column) => `${column} IN (SELECT value FROM json_each(?))`,
  list: (values) => JSON.stringify(values),
  true: '1',
  claimDueDeliveries: (now, leaseUntil, limit) => ({
    sql: `UPDATE webhook_deliveries SET lease_until = ?, updated_at = ?
          WHERE id IN (
            SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
              AND w.status = 'active'
            ORDER BY d.next_attempt_at, d.id LIMIT ?)
          RETURNING *`,
    values: [leaseUntil, now, now, now, limit],
  }),
  claimDueCallbacks: (now, leaseUntil, limit) => ({
    sql: `UPDATE translation_jobs SET callback_lease_until = ?, updated_at = ?
          WHERE job_id IN (
            SELECT job_id FROM translation_jobs
            WHERE callback_status = 'pending' AND callback_next_at <= ? AND (callback_lease_until IS NULL OR callback_lease_until <= ?)
            ORDER BY callback_next_at, job_id LIMIT ?)
          RETURNING *`,
    values: [leaseUntil, now, now, now, limit],
  }),
};
