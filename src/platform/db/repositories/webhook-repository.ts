import type { SqlDatabase, SqlExecutor } from '../sql/executor.js';
import type { DeliveryAttempt, DeliveryPage, DeliveryRecord, DeliveryStatus, WebhookRecord, WebhookStatus, WebhookStore } from '../webhook-records.js';
import { KeyedRepository } from './keyed-repository.js';
import { countWhere, keysetPage } from './keyset.js';
import { RecordTable } from './record-table.js';

/** The webhooks table. */
const WEBHOOKS = new RecordTable<WebhookRecord>('webhooks', {
  id: 'plain',
  accountId: 'plain',
  keyId: 'plain',
  url: 'plain',
  events: 'json',
  secret: 'plain',
  description: 'plain',
  status: 'plain',
  consecutiveFailures: 'plain',
  createdAt: 'time',
  updatedAt: 'time',
  lastDeliveryAt: 'time',
  lastSuccessAt: 'time',
  lastFailureAt: 'time',
  disabledAt: 'time',
});

/** The webhook_deliveries table. */
const DELIVERIES = new RecordTable<DeliveryRecord>('webhook_deliveries', {
  id: 'plain',
  webhookId: 'plain',
  eventId: 'plain',
  event: 'plain',
  payload: 'plain',
  status: 'plain',
  maxAttempts: 'plain',
  attemptCount: 'plain',
  attempts: 'json',
  nextAttemptAt: 'time',
  leaseUntil: 'time',
  redeliveryOf: 'plain',
  createdAt: 'time',
  updatedAt: 'time',
  completedAt: 'time',
});

/** Due time first, then id. */
const byDue = (a: DeliveryRecord, b: DeliveryRecord): number =>
  (a.nextAttemptAt ?? '').localeCompare(b.nextAttemptAt ?? '') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** Idempotent: an event already recorded for a webhook (same event id, not a redelivery) is skipped. */
const insertDelivery = (sql: SqlExecutor, delivery: DeliveryRecord): Promise<number> => DELIVERIES.insert(sql, [delivery], ' ON CONFLICT DO NOTHING');

export class WebhookRepository extends KeyedRepository<WebhookRecord> implements WebhookStore {
  constructor(db: SqlDatabase) {
    super(db, WEBHOOKS);
  }

  async list(filter: { accountId: string; status?: WebhookStatus; limit: number; offset: number }): Promise<{ items: WebhookRecord[]; total: number }> {
    let where = 'account_id = ?';
    const values: unknown[] = [filter.accountId];
    if (filter.status !== undefined) {
      where += ' AND status = ?';
      values.push(filter.status);
    }
    const total = await countWhere(this.db, 'webhooks', [where], values);
    const rows = await this.db.query(`SELECT * FROM webhooks WHERE ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`, [
      ...values,
      filter.limit,
      filter.offset,
    ]);
    return { items: rows.map(WEBHOOKS.fromRow), total };
  }

  async subscribed(accountId: string, event: string): Promise<WebhookRecord[]> {
    const rows = await this.db.query("SELECT * FROM webhooks WHERE account_id = ? AND status = 'active' ORDER BY created_at, id", [accountId]);
    return rows.map(WEBHOOKS.fromRow).filter((w) => w.events.includes('*') || w.events.includes(event));
  }

  async recordSuccess(id: string, at: string): Promise<void> {
    await this.db.run('UPDATE webhooks SET consecutive_failures = 0, last_delivery_at = ?, last_success_at = ? WHERE id = ?', [at, at, id]);
  }

  /**
   * The count and the disabling happen in one transaction on the webhook's row (PostgreSQL:
   * locked by the first update; SQLite: the write lock), so of several processes recording
   * failures at once exactly one disables it.
   */
  async recordFailure(id: string, at: string, disableAfter: number): Promise<{ disabled: boolean }> {
    return this.db.transaction(async (tx) => {
      await tx.run('UPDATE webhooks SET consecutive_failures = consecutive_failures + 1, last_delivery_at = ?, last_failure_at = ? WHERE id = ?', [at, at, id]);
      const disabled =
        (await tx.run(
          `UPDATE webhooks SET status = 'failed', disabled_at = ?, updated_at = ?
           WHERE id = ? AND status = 'active' AND consecutive_failures >= ?`,
          [at, at, id, disableAfter],
        )) > 0;
      if (disabled) {
        await tx.run(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, completed_at = ?, updated_at = ?
           WHERE webhook_id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ?)`,
          [at, at, id, at],
        );
      }
      return { disabled };
    });
  }

  async insertDeliveries(deliveries: readonly DeliveryRecord[]): Promise<void> {
    if (deliveries.length === 0) return;
    if (deliveries.length === 1) {
      await insertDelivery(this.db, deliveries[0]!);
      return;
    }
    await this.db.transaction(async (tx) => {
      for (const d of deliveries) await insertDelivery(tx, d);
    });
  }

  async getDelivery(id: string): Promise<DeliveryRecord | null> {
    return DELIVERIES.byId(this.db, id);
  }

  async listDeliveries(filter: { webhookId: string; status?: DeliveryStatus; cursor?: string; limit: number }): Promise<DeliveryPage> {
    const clauses = ['webhook_id = ?'];
    const values: unknown[] = [filter.webhookId];
    if (filter.status !== undefined) {
      clauses.push('status = ?');
      values.push(filter.status);
    }
    const page = await keysetPage(this.db, {
      table: 'webhook_deliveries',
      where: clauses,
      values,
      cursor: filter.cursor,
      limit: filter.limit,
    });
    return { items: page.rows.map(DELIVERIES.fromRow), nextCursor: page.nextCursor };
  }

  /** The dialect's lease statement: concurrent claimers (in any process) get disjoint sets. Due order. */
  async claimDue(now: string, leaseUntil: string, limit: number): Promise<DeliveryRecord[]> {
    const { sql, values } = this.db.dialect.claimDueDeliveries(now, leaseUntil, limit);
    return (await this.db.query(sql, values)).map(DELIVERIES.fromRow).sort(byDue);
  }

  async claim(id: string, now: string, leaseUntil: string): Promise<DeliveryRecord | null> {
    const row = await this.db.one(
      `UPDATE webhook_deliveries SET lease_until = ?, updated_at = ?
       WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ?)
       RETURNING *`,
      [leaseUntil, now, id, now],
    );
    return DELIVERIES.fromRowOrNull(row);
  }

  async finishAttempt(
    id: string,
    outcome: { status: DeliveryStatus; attempts: readonly DeliveryAttempt[]; nextAttemptAt: string | null; completedAt: string | null },
  ): Promise<DeliveryRecord | null> {
    const row = await this.db.one(
      `UPDATE webhook_deliveries SET status = ?, attempts = ?, attempt_count = ?, next_attempt_at = ?, completed_at = ?,
         lease_until = NULL, updated_at = ?
       WHERE id = ? AND status = 'pending'
       RETURNING *`,
      [outcome.status, JSON.stringify(outcome.attempts), outcome.attempts.length, outcome.nextAttemptAt, outcome.completedAt, new Date().toISOString(), id],
    );
    return DELIVERIES.fromRowOrNull(row);
  }

  /** The later of a delivery's due time and its lease's end, earliest over pending deliveries of active webhooks. */
  async nextDueAt(): Promise<string | null> {
    const row = await this.db.one<{ due: string | null }>(
      `SELECT MIN(CASE WHEN d.lease_until IS NOT NULL AND d.lease_until > d.next_attempt_at THEN d.lease_until ELSE d.next_attempt_at END) AS due
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND w.status = 'active'`,
    );
    return row?.due ?? null;
  }
}
