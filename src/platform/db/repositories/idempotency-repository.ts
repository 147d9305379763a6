import type { IdempotencyRecord, IdempotencyStore } from '../idempotency-records.js';
import type { SqlExecutor } from '../sql/executor.js';
import { RecordTable } from './record-table.js';

const KEYS = new RecordTable<IdempotencyRecord>('idempotency_keys', {
  accountId: 'plain',
  idempotencyKey: 'plain',
  fingerprint: 'plain',
  jobId: 'plain',
  createdAt: 'time',
  expiresAt: 'time',
});

/** Idempotency keys of job submissions; every write is conditional, so several gateways may share the table. */
export class IdempotencyRepository implements IdempotencyStore {
  constructor(private readonly sql: SqlExecutor) {}

  async insert(record: IdempotencyRecord): Promise<boolean> {
    return (await KEYS.insert(this.sql, [record], ' ON CONFLICT DO NOTHING')) > 0;
  }

  async get(accountId: string, idempotencyKey: string): Promise<IdempotencyRecord | null> {
    return KEYS.fromRowOrNull(await this.sql.one('SELECT * FROM idempotency_keys WHERE account_id = ? AND idempotency_key = ?', [accountId, idempotencyKey]));
  }

  async replace(record: IdempotencyRecord, createdAt: string): Promise<boolean> {
    const values: unknown[] = [];
    const sets = KEYS.setClause({ fingerprint: record.fingerprint, jobId: record.jobId, createdAt: record.createdAt, expiresAt: record.expiresAt }, values);
    const changed = await this.sql.run(`UPDATE idempotency_keys SET ${sets} WHERE account_id = ? AND idempotency_key = ? AND created_at = ?`, [
      ...values,
      record.accountId,
      record.idempotencyKey,
      createdAt,
    ]);
    return changed > 0;
  }

  async attach(accountId: string, idempotencyKey: string, createdAt: string, jobId: string): Promise<void> {
    await this.sql.run('UPDATE idempotency_keys SET job_id = ? WHERE account_id = ? AND idempotency_key = ? AND created_at = ?', [
      jobId,
      accountId,
      idempotencyKey,
      createdAt,
    ]);
  }

  async release(accountId: string, idempotencyKey: string, createdAt: string): Promise<void> {
    await this.sql.run('DELETE FROM idempotency_keys WHERE account_id = ? AND idempotency_key = ? AND created_at = ? AND job_id IS NULL', [
      accountId,
      idempotencyKey,
      createdAt,
    ]);
  }

  async deleteExpired(now: string): Promise<number> {
    return this.sql.run('DELETE FROM idempotency_keys WHERE expires_at < ?', [now]);
  }
}
