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
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { PgExecutor, PostgresDatabase } from './postgres-database.js';
import { Params } from './postgres-params.js';

type Row = Record<string, any>;

const toWebhook = (row: Row): WebhookRecord => ({
  id: row.id,
  accountId: row.account_id,
  keyId: row.key_id,
  url: row.url,
  events: row.events as string[],
  secret: row.secret,
  description: row.description,
  status: row.status as WebhookStatus,
  consecutiveFailures: row.consecutive_failures,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  lastDeliveryAt: row.last_delivery_at,
  lastSuccessAt: row.last_success_at,
  lastFailureAt: row.last_failure_at,
  disabledAt: row.disabled_at,
});

const toDelivery = (row: Row): DeliveryRecord => ({
  id: row.id,
  webhookId: row.webhook_id,
  eventId: row.event_id,
  event: row.event,
  payload: row.payload,
  status: row.status as DeliveryStatus,
  maxAttempts: row.max_attempts,
  attemptCount: row.attempt_count,
  attempts: row.attempts as DeliveryAttempt[],
  nextAttemptAt: row.next_attempt_at,
  leaseUntil: row.lease_until,
  redeliveryOf: row.redelivery_of,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  completedAt: row.completed_at,
});

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

const DELIVERY_INSERT = `INSERT INTO webhook_deliveries (id, webhook_id, event_id, event, payload, status, max_attempts, attempt_count, attempts,
    next_attempt_at, lease_until, redelivery_of, created_at, updated_at, completed_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
  ON CONFLICT DO NOTHING`;

export class PostgresWebhookStore implements WebhookStore {
  constructor(private readonly db: PostgresDatabase) {}

  async insert(w: WebhookRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO webhooks (id, account_id, key_id, url, events, secret, description, status, consecutive_failures,
         created_at, updated_at, last_delivery_at, last_success_at, last_failure_at, disabled_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
      [
        w.id, w.accountId, w.keyId, w.url, JSON.stringify(w.events), w.secret, w.description, w.status, w.consecutiveFailures,
        w.createdAt, w.updatedAt, w.lastDeliveryAt, w.lastSuccessAt, w.lastFailureAt, w.disabledAt,
      ],
    );
  }

  async get(id: string): Promise<WebhookRecord | null> {
    const { rows } = await this.db.query('SELECT * FROM webhooks WHERE id = $1', [id]);
    return rows[0] ? toWebhook(rows[0]) : null;
  }

  async update(id: string, patch: WebhookPatch): Promise<WebhookRecord | null> {
    const params = new Params();
    const sets = [`updated_at = ${params.add(new Date().toISOString())}`];
    for (const [field, value] of Object.entries(patch)) {
      const column = WEBHOOK_PATCH_COLUMNS[field as keyof WebhookPatch];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = ${params.add(field === 'events' ? JSON.stringify(value) : value)}`);
    }
    const { rows } = await this.db.query(`UPDATE webhooks SET ${sets.join(', ')} WHERE id = ${params.add(id)} RETURNING *`, params.values);
    return rows[0] ? toWebhook(rows[0]) : null;
  }

  async delete(id: string): Promise<boolean> {
    return ((await this.db.query('DELETE FROM webhooks WHERE id = $1', [id])).rowCount ?? 0) > 0;
  }

  async list(filter: { accountId: string; status?: WebhookStatus; limit: number; offset: number }): Promise<{ items: WebhookRecord[]; total: number }> {
    const params = new Params();
    let where = `account_id = ${params.add(filter.accountId)}`;
    if (filter.status !== undefined) where += ` AND status = ${params.add(filter.status)}`;
    const total = (await this.db.query<{ n: number }>(`SELECT count(*) AS n FROM webhooks WHERE ${where}`, params.values)).rows[0]!.n;
    const { rows } = await this.db.query(
      `SELECT * FROM webhooks WHERE ${where} ORDER BY created_at, id LIMIT ${params.add(filter.limit)} OFFSET ${params.add(filter.offset)}`,
      params.values,
    );
    return { items: rows.map(toWebhook), total };
  }

  async subscribed(accountId: string, event: string): Promise<WebhookRecord[]> {
    const { rows } = await this.db.query("SELECT * FROM webhooks WHERE account_id = $1 AND status = 'active' ORDER BY created_at, id", [accountId]);
    return rows.map(toWebhook).filter((w) => w.events.includes('*') || w.events.includes(event));
  }

  async recordSuccess(id: string, at: string): Promise<void> {
    await this.db.query('UPDATE webhooks SET consecutive_failures = 0, last_delivery_at = $2, last_success_at = $2 WHERE id = $1', [id, at]);
  }

  /**
   * The count and the disabling happen in one transaction on the webhook's row (locked by the
   * first update), so of several processes recording failures at once exactly one disables it.
   */
  async recordFailure(id: string, at: string, disableAfter: number): Promise<{ disabled: boolean }> {
    return this.db.transaction(async (client) => {
      await client.query(
        'UPDATE webhooks SET consecutive_failures = consecutive_failures + 1, last_delivery_at = $2, last_failure_at = $2 WHERE id = $1',
        [id, at],
      );
      const disabled =
        ((
          await client.query(
            `UPDATE webhooks SET status = 'failed', disabled_at = $2, updated_at = $2
             WHERE id = $1 AND status = 'active' AND consecutive_failures >= $3`,
            [id, at, disableAfter],
          )
        ).rowCount ?? 0) > 0;
      if (disabled) {
        await client.query(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, completed_at = $2, updated_at = $2
           WHERE webhook_id = $1 AND status = 'pending' AND (lease_until IS NULL OR lease_until <= $2)`,
          [id, at],
        );
      }
      return { disabled };
    });
  }

  /** Idempotent: an event already recorded for a webhook (same event id, not a redelivery) is skipped. */
  async insertDeliveries(deliveries: readonly DeliveryRecord[]): Promise<void> {
    if (deliveries.length === 0) return;
    const insert = (client: PgExecutor, d: DeliveryRecord) =>
      client.query(DELIVERY_INSERT, [
        d.id, d.webhookId, d.eventId, d.event, d.payload, d.status, d.maxAttempts, d.attemptCount, JSON.stringify(d.attempts),
        d.nextAttemptAt, d.leaseUntil, d.redeliveryOf, d.createdAt, d.updatedAt, d.completedAt,
      ]);
    if (deliveries.length === 1) {
      await insert(this.db, deliveries[0]!);
      return;
    }
    await this.db.transaction(async (client) => {
      for (const d of deliveries) await insert(client, d);
    });
  }

  async getDelivery(id: string): Promise<DeliveryRecord | null> {
    const { rows } = await this.db.query('SELECT * FROM webhook_deliveries WHERE id = $1', [id]);
    return rows[0] ? toDelivery(rows[0]) : null;
  }

  async listDeliveries(filter: { webhookId: string; status?: DeliveryStatus; cursor?: string; limit: number }): Promise<DeliveryPage> {
    const params = new Params();
    const clauses = [`webhook_id = ${params.add(filter.webhookId)}`];
    if (filter.status !== undefined) clauses.push(`status = ${params.add(filter.status)}`);
    if (filter.cursor !== undefined) {
      const position = decodeCursor(filter.cursor);
      const created = params.add(position.createdAt);
      clauses.push(`(created_at < ${created} OR (created_at = ${created} AND id < ${params.add(position.id)}))`);
    }
    const { rows } = await this.db.query(
      `SELECT * FROM webhook_deliveries WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ${params.add(filter.limit + 1)}`,
      params.values,
    );
    const items = rows.slice(0, filter.limit).map(toDelivery);
    const last = items[items.length - 1];
    return { items, nextCursor: rows.length > filter.limit && last ? encodeCursor(last) : null };
  }

  /**
   * One statement: the due rows are locked FOR UPDATE SKIP LOCKED, so processes claiming at the
   * same moment take disjoint sets instead of queueing behind each other, and a row another
   * process has just leased fails the re-checked lease condition and is left out.
   */
  async claimDue(now: string, leaseUntil: string, limit: number): Promise<DeliveryRecord[]> {
    const { rows } = await this.db.query(
      `WITH due AS (
         SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
           AND w.status = 'active'
         ORDER BY d.next_attempt_at, d.id LIMIT $3
         FOR UPDATE OF d SKIP LOCKED)
       UPDATE webhook_deliveries SET lease_until = $2, updated_at = $1
       FROM due WHERE webhook_deliveries.id = due.id
       RETURNING webhook_deliveries.*`,
      [now, leaseUntil, limit],
    );
    return rows.map(toDelivery).sort(byDue);
  }

  async claim(id: string, now: string, leaseUntil: string): Promise<DeliveryRecord | null> {
    const { rows } = await this.db.query(
      `UPDATE webhook_deliveries SET lease_until = $3, updated_at = $2
       WHERE id = $1 AND status = 'pending' AND (lease_until IS NULL OR lease_until <= $2)
       RETURNING *`,
      [id, now, leaseUntil],
    );
    return rows[0] ? toDelivery(rows[0]) : null;
  }

  async finishAttempt(
    id: string,
    outcome: { status: DeliveryStatus; attempts: readonly DeliveryAttempt[]; nextAttemptAt: string | null; completedAt: string | null },
  ): Promise<DeliveryRecord | null> {
    const { rows } = await this.db.query(
      `UPDATE webhook_deliveries SET status = $2, attempts = $3, attempt_count = $4, next_attempt_at = $5, completed_at = $6,
         lease_until = NULL, updated_at = $7
       WHERE id = $1 AND status = 'pending'
       RETURNING *`,
      [id, outcome.status, JSON.stringify(outcome.attempts), outcome.attempts.length, outcome.nextAttemptAt, outcome.completedAt, new Date().toISOString()],
    );
    return rows[0] ? toDelivery(rows[0]) : null;
  }

  async nextDueAt(): Promise<string | null> {
    const { rows } = await this.db.query<{ due: string | null }>(
      `SELECT min(GREATEST(d.next_attempt_at, d.lease_until)) AS due FROM webhook_deliveries d
       JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND w.status = 'active'`,
    );
    return rows[0]?.due ?? null;
  }
}
