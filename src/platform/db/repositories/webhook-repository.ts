import type { SqlDatabase, SqlExecutor } from '../sql/executor.js';
import type {
  DeliveryAttempt,
  DeliveryPage,
  DeliveryRecord,
  DeliveryStatus,
  WebhookPatch,
  WebhookRecord,
  WebhookStatus,
  WebhookStore,
} from '../webhook-records.js';
import { countWhere, keysetPage } from './keyset.js';

interface WebhookRow {
  id: string;
  account_id: string;
  key_id: string;
  url: string;
  events: string;
  secret: string | null;
  description: string;
  status: WebhookStatus;
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
  last_delivery_at: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  disabled_at: string | null;
}

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  payload: string;
  status: DeliveryStatus;
  max_attempts: number;
  attempt_count: number;
  attempts: string;
  next_attempt_at: string | null;
  lease_until: string | null;
  redelivery_of: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

const toWebhook = (row: WebhookRow): WebhookRecord => ({
  id: row.id,
  accountId: row.account_id,
  keyId: row.key_id,
  url: row.url,
  events: JSON.parse(row.events) as string[],
  secret: row.secret,
  description: row.description,
  status: row.status,
  consecutiveFailures: row.consecutive_failures,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastDeliveryAt: row.last_delivery_at,
  lastSuccessAt: row.last_success_at,
  lastFailureAt: row.last_failure_at,
  disabledAt: row.disabled_at,
});

const toDelivery = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  webhookId: row.webhook_id,
  eventId: row.event_id,
  event: row.event,
  payload: row.payload,
  status: row.status,
  maxAttempts: row.max_attempts,
  attemptCount: row.attempt_count,
  attempts: JSON.parse(row.attempts) as DeliveryAttempt[],
  nextAttemptAt: row.next_attempt_at,
  leaseUntil: row.lease_until,
  redeliveryOf: row.redelivery_of,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  completedAt: row.completed_at,
});

/** Due time first, then id. */
const byDue = (a: DeliveryRecord, b: DeliveryRecord): number =>
  (a.nextAttemptAt ?? '').localeCompare(b.nextAttemptAt ?? '') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const WEBHOOK_PATCH_COLUMNS: Record<keyof WebhookPatch, string> = {
  url: 'url',
  events: 'events',
  secret: 'secret',
  description: 'description',
  status: 'status',
  consecutiveFailures: 'consecutive_failures',
  disabledAt: 'disabled_at',
};

/** Idempotent: an event already recorded for a webhook (same event id, not a redelivery) is skipped. */
const DELIVERY_INSERT = `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, payload, status, max_attempts, attempt_count, attempts,
    next_attempt_at, lease_until, redelivery_of, created_at, updated_at, completed_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT DO NOTHING`;

const insertDelivery = (sql: SqlExecutor, d: DeliveryRecord): Promise<number> =>
  sql.run(DELIVERY_INSERT, [
    d.id,
    d.webhookId,
    d.eventId,
    d.event,
    d.payload,
    d.status,
    d.maxAttempts,
    d.attemptCount,
    JSON.stringify(d.attempts),
    d.nextAttemptAt,
    d.leaseUntil,
    d.redeliveryOf,
    d.createdAt,
    d.updatedAt,
    d.completedAt,
  ]);

export class WebhookRepository implements WebhookStore {
  constructor(private readonly db: SqlDatabase) {}

  async insert(w: WebhookRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO webhooks (id, account_id, key_id, url, events, secret, description, status, consecutive_failures,
         created_at, updated_at, last_delivery_at, last_success_at, last_failure_at, disabled_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        w.id,
        w.accountId,
        w.keyId,
        w.url,
        JSON.stringify(w.events),
        w.secret,
        w.description,
        w.status,
        w.consecutiveFailures,
        w.createdAt,
        w.updatedAt,
        w.lastDeliveryAt,
        w.lastSuccessAt,
        w.lastFailureAt,
        w.disabledAt,
      ],
    );
  }

  async get(id: string): Promise<WebhookRecord | null> {
    const row = await this.db.one<WebhookRow>('SELECT * FROM webhooks WHERE id = ?', [id]);
    return row ? toWebhook(row) : null;
  }

  async update(id: string, patch: WebhookPatch): Promise<WebhookRecord | null> {
    const sets = ['updated_at = ?'];
    const values: unknown[] = [new Date().toISOString()];
    for (const [field, value] of Object.entries(patch)) {
      const column = WEBHOOK_PATCH_COLUMNS[field as keyof WebhookPatch];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = ?`);
      values.push(field === 'events' ? JSON.stringify(value) : value);
    }
    const row = await this.db.one<WebhookRow>(`UPDATE webhooks SET ${sets.join(', ')} WHERE id = ? RETURNING *`, [...values, id]);
    return row ? toWebhook(row) : null;
  }

  async delete(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM webhooks WHERE id = ?', [id])) > 0;
  }

  async list(filter: { accountId: string; status?: WebhookStatus; limit: number; offset: number }): Promise<{ items: WebhookRecord[]; total: number }> {
    let where = 'account_id = ?';
    const values: unknown[] = [filter.accountId];
    if (filter.status !== undefined) {
      where += ' AND status = ?';
      values.push(filter.status);
    }
    const total = await countWhere(this.db, 'webhooks', [where], values);
    const rows = await this.db.query<WebhookRow>(`SELECT * FROM webhooks WHERE ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`, [
      ...values,
      filter.limit,
      filter.offset,
    ]);
    return { items: rows.map(toWebhook), total };
  }

  async subscribed(accountId: string, event: string): Promise<WebhookRecord[]> {
    const rows = await this.db.query<WebhookRow>("SELECT * FROM webhooks WHERE account_id = ? AND status = 'active' ORDER BY created_at, id", [accountId]);
    return rows.map(toWebhook).filter((w) => w.events.includes('*') || w.events.includes(event));
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
    const row = await this.db.one<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?', [id]);
    return row ? toDelivery(row) : null;
  }

  async listDeliveries(filter: { webhookId: string; status?: DeliveryStatus; cursor?: string; limit: number }): Promise<DeliveryPage> {
    const clauses = ['webhook_id = ?'];
    const values: unknown[] = [filter.webhookId];
    if (filter.status !== undefined) {
      clauses.push('status = ?');
      values.push(filter.status);
    }
    const page = await keysetPage<DeliveryRow>(this.db, {
      table: 'webhook_deliveries',
      where: clauses,
      values,
      cursor: filter.cursor,
      limit: filter.limit,
    });
    return { items: page.rows.map(toDelivery), nextCursor: page.nextCursor };
  }

  /** The dialect's lease statement: concurrent claimers (in any process) get disjoint sets. Due order. */
  async claimDue(now: string, leaseUntil: string, limit: number): Promise<DeliveryRecord[]> {
    const { sql, values } = this.db.dialect.claimDueDeliveries(now, leaseUntil, limit);
    return (await this.db.query<DeliveryRow>(sql, values)).map(toDelivery).sort(byDue);
  }

  async claim(id: string, now: string, leaseUntil: string): Promise<DeliveryRecord | null> {
    const row = await this.db.one<DeliveryRow>(
      `UPDATE webhook_deliveries SET lease_until = ?, updated_at = ?
       WHERE id = ? AND status = 'pending' AND (lease_until IS NULL OR lease_until <= ?)
       RETURNING *`,
      [leaseUntil, now, id, now],
    );
    return row ? toDelivery(row) : null;
  }

  async finishAttempt(
    id: string,
    outcome: { status: DeliveryStatus; attempts: readonly DeliveryAttempt[]; nextAttemptAt: string | null; completedAt: string | null },
  ): Promise<DeliveryRecord | null> {
    const row = await this.db.one<DeliveryRow>(
      `UPDATE webhook_deliveries SET status = ?, attempts = ?, attempt_count = ?, next_attempt_at = ?, completed_at = ?,
         lease_until = NULL, updated_at = ?
       WHERE id = ? AND status = 'pending'
       RETURNING *`,
      [outcome.status, JSON.stringify(outcome.attempts), outcome.attempts.length, outcome.nextAttemptAt, outcome.completedAt, new Date().toISOString(), id],
    );
    return row ? toDelivery(row) : null;
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
