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
import type { SqliteDatabase } from './sqlite-database.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { StatementCache } from './statement-cache.js';

interface WebhookRow {
  id: string;
  account_id: string;
  key_id: string;
  url: string;
  events: string;
  secret: string | null;
  description: string;
  status: string;
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
  status: string;
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
  status: row.status as WebhookStatus,
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
  status: row.status as DeliveryStatus,
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

const WEBHOOK_PATCH_COLUMNS: Record<keyof WebhookPatch, string> = {
  url: 'url',
  events: 'events',
  secret: 'secret',
  description: 'description',
  status: 'status',
  consecutiveFailures: 'consecutive_failures',
  disabledAt: 'disabled_at',
};

export class SqliteWebhookStore implements WebhookStore {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqliteDatabase) {
    this.sql = new StatementCache(db);
  }

  async insert(w: WebhookRecord): Promise<void> {
    this.sql
      .get(
        `INSERT INTO webhooks (id, account_id, key_id, url, events, secret, description, status, consecutive_failures,
           created_at, updated_at, last_delivery_at, last_success_at, last_failure_at, disabled_at)
         VALUES (@id, @accountId, @keyId, @url, @events, @secret, @description, @status, @consecutiveFailures,
           @createdAt, @updatedAt, @lastDeliveryAt, @lastSuccessAt, @lastFailureAt, @disabledAt)`,
      )
      .run({ ...w, events: JSON.stringify(w.events) });
  }

  async get(id: string): Promise<WebhookRecord | null> {
    const row = this.sql.get('SELECT * FROM webhooks WHERE id = ?').get(id) as WebhookRow | undefined;
    return row ? toWebhook(row) : null;
  }

  async update(id: string, patch: WebhookPatch): Promise<WebhookRecord | null> {
    const params: Record<string, unknown> = { __id: id, updated_at: new Date().toISOString() };
    const sets = ['updated_at = @updated_at'];
    for (const [field, value] of Object.entries(patch)) {
      const column = WEBHOOK_PATCH_COLUMNS[field as keyof WebhookPatch];
      if (column === undefined || value === undefined) continue;
      sets.push(`${column} = @${column}`);
      params[column] = field === 'events' ? JSON.stringify(value) : value;
    }
    const result = this.sql.get(`UPDATE webhooks SET ${sets.join(', ')} WHERE id = @__id`).run(params);
    return result.changes === 0 ? null : this.get(id);
  }

  async delete(id: string): Promise<boolean> {
    return this.sql.get('DELETE FROM webhooks WHERE id = ?').run(id).changes > 0;
  }

  async list(filter: { accountId: string; status?: WebhookStatus; limit: number; offset: number }): Promise<{ items: WebhookRecord[]; total: number }> {
    const where = filter.status === undefined ? 'account_id = @accountId' : 'account_id = @accountId AND status = @status';
    const params = { accountId: filter.accountId, status: filter.status ?? null };
    const total = (this.sql.get(`SELECT COUNT(*) AS n FROM webhooks WHERE ${where}`).get(params) as { n: number }).n;
    const rows = this.sql
      .get(`SELECT * FROM webhooks WHERE ${where} ORDER BY created_at, id LIMIT @limit OFFSET @offset`)
      .all({ ...params, limit: filter.limit, offset: filter.offset }) as WebhookRow[];
    return { items: rows.map(toWebhook), total };
  }

  async subscribed(accountId: string, event: string): Promise<WebhookRecord[]> {
    const rows = this.sql
      .get("SELECT * FROM webhooks WHERE account_id = ? AND status = 'active' ORDER BY created_at, id")
      .all(accountId) as WebhookRow[];
    return rows.map(toWebhook).filter((w) => w.events.includes('*') || w.events.includes(event));
  }

  async recordSuccess(id: string, at: string): Promise<void> {
    this.sql
      .get('UPDATE webhooks SET consecutive_failures = 0, last_delivery_at = @at, last_success_at = @at WHERE id = @id')
      .run({ id, at });
  }

  async recordFailure(id: string, at: string, disableAfter: number): Promise<{ disabled: boolean }> {
    return this.db.transaction(() => {
      this.sql
        .get('UPDATE webhooks SET consecutive_failures = consecutive_failures + 1, last_delivery_at = @at, last_failure_at = @at WHERE id = @id')
        .run({ id, at });
      const disabled =
        this.sql
          .get(
            `UPDATE webhooks SET status = 'failed', disabled_at = @at, updated_at = @at
             WHERE id = @id AND status = 'active' AND consecutive_failures >= @disableAfter`,
          )
          .run({ id, at, disableAfter }).changes > 0;
      if (disabled) {
        this.sql
          .get(
            `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, completed_at = @at, updated_at = @at
             WHERE webhook_id = @id AND status = 'pending' AND (lease_until IS NULL OR lease_until <= @at)`,
          )
          .run({ id, at });
      }
      return { disabled };
    })();
  }

  async insertDeliveries(deliveries: readonly DeliveryRecord[]): Promise<void> {
    const statement = this.sql.get(
      `INSERT OR IGNORE INTO webhook_deliveries (id, webhook_id, event_id, event, payload, status, max_attempts, attempt_count, attempts,
         next_attempt_at, lease_until, redelivery_of, created_at, updated_at, completed_at)
       VALUES (@id, @webhookId, @eventId, @event, @payload, @status, @maxAttempts, @attemptCount, @attempts,
         @nextAttemptAt, @leaseUntil, @redeliveryOf, @createdAt, @updatedAt, @completedAt)`,
    );
    this.db.transaction(() => {
      for (const d of deliveries) statement.run({ ...d, attempts: JSON.stringify(d.attempts) });
    })();
  }

  async getDelivery(id: string): Promise<DeliveryRecord | null> {
    const row = this.sql.get('SELECT * FROM webhook_deliveries WHERE id = ?').get(id) as DeliveryRow | undefined;
    return row ? toDelivery(row) : null;
  }

  async listDeliveries(filter: { webhookId: string; status?: DeliveryStatus; cursor?: string; limit: number }): Promise<DeliveryPage> {
    const clauses = ['webhook_id = @webhookId'];
    const params: Record<string, unknown> = { webhookId: filter.webhookId };
    if (filter.status !== undefined) {
      clauses.push('status = @status');
      params['status'] = filter.status;
    }
    if (filter.cursor !== undefined) {
      const position = decodeCursor(filter.cursor);
      clauses.push('(created_at < @cursorCreated OR (created_at = @cursorCreated AND id < @cursorId))');
      params['cursorCreated'] = position.createdAt;
      params['cursorId'] = position.id;
    }
    const rows = this.sql
      .get(`SELECT * FROM webhook_deliveries WHERE ${clauses.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT @limit`)
      .all({ ...params, limit: filter.limit + 1 }) as DeliveryRow[];
    const items = rows.slice(0, filter.limit).map(toDelivery);
    const last = items[items.length - 1];
    const nextCursor = rows.length > filter.limit && last ? encodeCursor(last) : null;
    return { items, nextCursor };
  }

  async claimDue(now: string, leaseUntil: string, limit: number): Promise<DeliveryRecord[]> {
    return this.db.transaction(() => {
      const ids = this.sql
        .get(
          `SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
           WHERE d.status = 'pending' AND d.next_attempt_at <= @now AND (d.lease_until IS NULL OR d.lease_until <= @now)
             AND w.status = 'active'
           ORDER BY d.next_attempt_at, d.id LIMIT @limit`,
        )
        .pluck()
        .all({ now, limit }) as string[];
      const lease = this.sql.get('UPDATE webhook_deliveries SET lease_until = @leaseUntil, updated_at = @now WHERE id = @id');
      const claimed: DeliveryRecord[] = [];
      for (const id of ids) {
        lease.run({ id, leaseUntil, now });
        claimed.push(toDelivery(this.sql.get('SELECT * FROM webhook_deliveries WHERE id = ?').get(id) as DeliveryRow));
      }
      return claimed;
    })();
  }

  async claim(id: string, now: string, leaseUntil: string): Promise<DeliveryRecord | null> {
    const result = this.sql
      .get(
        `UPDATE webhook_deliveries SET lease_until = @leaseUntil, updated_at = @now
         WHERE id = @id AND status = 'pending' AND (lease_until IS NULL OR lease_until <= @now)`,
      )
      .run({ id, now, leaseUntil });
    return result.changes === 0 ? null : this.getDelivery(id);
  }

  async finishAttempt(
    id: string,
    outcome: { status: DeliveryStatus; attempts: readonly DeliveryAttempt[]; nextAttemptAt: string | null; completedAt: string | null },
  ): Promise<DeliveryRecord | null> {
    const result = this.sql
      .get(
        `UPDATE webhook_deliveries SET status = @status, attempts = @attempts, attempt_count = @attemptCount,
           next_attempt_at = @nextAttemptAt, completed_at = @completedAt, lease_until = NULL, updated_at = @updatedAt
         WHERE id = @id AND status = 'pending'`,
      )
      .run({
        id,
        status: outcome.status,
        attempts: JSON.stringify(outcome.attempts),
        attemptCount: outcome.attempts.length,
        nextAttemptAt: outcome.nextAttemptAt,
        completedAt: outcome.completedAt,
        updatedAt: new Date().toISOString(),
      });
    return result.changes === 0 ? null : this.getDelivery(id);
  }

  async nextDueAt(): Promise<string | null> {
    const row = this.sql
      .get(
        `SELECT MIN(MAX(d.next_attempt_at, COALESCE(d.lease_until, ''))) AS due FROM webhook_deliveries d
         JOIN webhooks w ON w.id = d.webhook_id WHERE d.status = 'pending' AND w.status = 'active'`,
      )
      .get() as { due: string | null };
    return row.due;
  }
}
