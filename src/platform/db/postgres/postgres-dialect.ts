import type { SqlDialect } from '../sql/executor.js';

/** PostgreSQL's side of the differences: arrays for lists, row locks for lease queries. */
export const POSTGRES_DIALECT: SqlDialect = {
  name: 'postgres',
  inList: (column) => `${column} = ANY(?)`,
  list: (values) => [...values],
  true: 'true',
  /**
   * One statement: the due rows are locked FOR UPDATE SKIP LOCKED, so processes claiming at the
   * same moment take disjoint sets instead of queueing behind each other, and a row another
   * process has just leased fails the re-checked lease condition and is left out.
   */
  claimDueDeliveries: (now, leaseUntil, limit) => ({
    sql: `WITH due AS (
            SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
              AND w.status = 'active'
            ORDER BY d.next_attempt_at, d.id LIMIT ?
            FOR UPDATE OF d SKIP LOCKED)
          UPDATE webhook_deliveries SET lease_until = ?, updated_at = ?
          FROM due WHERE webhook_deliveries.id = due.id
          RETURNING webhook_deliveries.*`,
    values: [now, now, limit, leaseUntil, now],
  }),
  claimDueCallbacks: (now, leaseUntil, limit) => ({
    sql: `WITH due AS (
            SELECT job_id FROM translation_jobs
            WHERE callback_status = 'pending' AND callback_next_at <= ? AND (callback_lease_until IS NULL OR callback_lease_until <= ?)
            ORDER BY callback_next_at, job_id LIMIT ?
            FOR UPDATE SKIP LOCKED)
          UPDATE translation_jobs SET callback_lease_until = ?, updated_at = ?
          FROM due WHERE translation_jobs.job_id = due.job_id
          RETURNING translation_jobs.*`,
    values: [now, now, limit, leaseUntil, now],
  }),
};
