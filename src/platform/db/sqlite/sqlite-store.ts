import type { ApiKeyRecord, KeyLimitOverrides, Scope } from '../../auth/principal.js';
import type { AccountStore, ApiKeyStore, NewApiKey, Store, StoreHealth, UsageDay, UsageStore } from '../store-types.js';
import { addDays } from '../dates.js';
import { newId } from '../ids.js';
import { AccountRepository } from '../repositories/account-repository.js';
import { KeyRepository } from '../repositories/key-repository.js';
import { SqliteExecutor } from './sqlite-executor.js';
import { SQLITE_MIGRATIONS } from './migrations/index.js';
import { openSqlite, type SqliteDatabase } from './sqlite-database.js';
import { StatementCache } from './statement-cache.js';
import { SqliteJobStore } from './sqlite-job-store.js';
import { SqliteMediaStore } from './sqlite-media-store.js';
import { SqliteWebhookStore } from './sqlite-webhook-store.js';
import type { MediaStore } from '../media-records.js';
import type { WebhookStore } from '../webhook-records.js';
import type { JobStore } from '../job-records.js';

export { newId };

class SqliteUsageStore implements UsageStore {
  private readonly sql: StatementCache;

  constructor(private readonly db: SqliteDatabase) {
    this.sql = new StatementCache(db);
  }

  async add(keyId: string, date: string, delta: { requests?: number; audioSeconds?: number; jobs?: number }): Promise<void> {
    this.sql.get(
        `INSERT INTO usage_daily (key_id, date, requests, audio_seconds, jobs) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (key_id, date) DO UPDATE SET requests = requests + excluded.requests,
           audio_seconds = audio_seconds + excluded.audio_seconds, jobs = jobs + excluded.jobs`,
      )
      .run(keyId, date, delta.requests ?? 0, delta.audioSeconds ?? 0, delta.jobs ?? 0);
  }

  async day(keyId: string, date: string): Promise<UsageDay> {
    const row = this.sql.get('SELECT requests, audio_seconds, jobs FROM usage_daily WHERE key_id = ? AND date = ?')
      .get(keyId, date) as { requests: number; audio_seconds: number; jobs: number } | undefined;
    return { date, requests: row?.requests ?? 0, audioSeconds: row?.audio_seconds ?? 0, jobs: row?.jobs ?? 0 };
  }

  async history(keyId: string, untilDate: string, days: number): Promise<UsageDay[]> {
    const from = addDays(untilDate, -(days - 1));
    const rows = this.sql.get('SELECT date, requests, audio_seconds, jobs FROM usage_daily WHERE key_id = ? AND date BETWEEN ? AND ?')
      .all(keyId, from, untilDate) as { date: string; requests: number; audio_seconds: number; jobs: number }[];
    const byDate = new Map(rows.map((r) => [r.date, r]));
    const out: UsageDay[] = [];
    for (let i = 0; i < days; i++) {
      const date = addDays(from, i);
      const row = byDate.get(date);
      out.push({ date, requests: row?.requests ?? 0, audioSeconds: row?.audio_seconds ?? 0, jobs: row?.jobs ?? 0 });
    }
    return out;
  }
}

export class SqliteStore implements Store {
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly usage: UsageStore;
  readonly jobs: JobStore;
  readonly media: MediaStore;
  readonly webhooks: WebhookStore;
  private readonly sql: SqliteExecutor;

  constructor(readonly db: SqliteDatabase) {
    this.jobs = new SqliteJobStore(db);
    this.media = new SqliteMediaStore(db);
    this.webhooks = new SqliteWebhookStore(db);
    this.sql = new SqliteExecutor(db);
    this.accounts = new AccountRepository(this.sql);
    this.apiKeys = new KeyRepository(this.sql);
    this.usage = new SqliteUsageStore(db);
  }

  static open(path: string): SqliteStore {
    return new SqliteStore(openSqlite(path, SQLITE_MIGRATIONS));
  }

  async health(): Promise<StoreHealth> {
    try {
      this.db.prepare('SELECT 1').get();
      return { backend: 'sqlite', ok: true };
    } catch (error) {
      return { backend: 'sqlite', ok: false, detail: (error as Error).message };
    }
  }

  async close(): Promise<void> {
    this.sql.detach();
    if (this.db.open) this.db.close();
  }
}
