import type { ApiKeyRecord, KeyLimitOverrides, Scope } from '../../auth/principal.js';
import type { JobStore } from '../job-records.js';
import type { MediaStore } from '../media-records.js';
import type { WebhookStore } from '../webhook-records.js';
import { addDays } from '../dates.js';
import { newId } from '../ids.js';
import type { AccountStore, ApiKeyStore, NewApiKey, Store, StoreHealth, UsageDay, UsageStore } from '../store-types.js';
import { AccountRepository } from '../repositories/account-repository.js';
import { KeyRepository } from '../repositories/key-repository.js';
import { PostgresExecutor } from './postgres-executor.js';
import { POSTGRES_MIGRATIONS } from './migrations/index.js';
import { PostgresDatabase, type PostgresOptions } from './postgres-database.js';
import { PostgresJobStore } from './postgres-job-store.js';
import { PostgresMediaStore } from './postgres-media-store.js';
import { PostgresWebhookStore } from './postgres-webhook-store.js';

type Row = Record<string, any>;

interface UsageRow {
  date: string;
  requests: number;
  audio_seconds: number;
  jobs: number;
}

class PostgresUsageStore implements UsageStore {
  constructor(private readonly db: PostgresDatabase) {}

  /** An upsert that adds: every process flushes its own counts into the same row. */
  async add(keyId: string, date: string, delta: { requests?: number; audioSeconds?: number; jobs?: number }): Promise<void> {
    await this.db.query(
      `INSERT INTO usage_daily (key_id, date, requests, audio_seconds, jobs) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (key_id, date) DO UPDATE SET requests = usage_daily.requests + excluded.requests,
         audio_seconds = usage_daily.audio_seconds + excluded.audio_seconds, jobs = usage_daily.jobs + excluded.jobs`,
      [keyId, date, delta.requests ?? 0, delta.audioSeconds ?? 0, delta.jobs ?? 0],
    );
  }

  async day(keyId: string, date: string): Promise<UsageDay> {
    const { rows } = await this.db.query<UsageRow>('SELECT date, requests, audio_seconds, jobs FROM usage_daily WHERE key_id = $1 AND date = $2', [
      keyId,
      date,
    ]);
    const row = rows[0];
    return { date, requests: row?.requests ?? 0, audioSeconds: row?.audio_seconds ?? 0, jobs: row?.jobs ?? 0 };
  }

  async history(keyId: string, untilDate: string, days: number): Promise<UsageDay[]> {
    const from = addDays(untilDate, -(days - 1));
    const { rows } = await this.db.query<UsageRow>(
      'SELECT date, requests, audio_seconds, jobs FROM usage_daily WHERE key_id = $1 AND date BETWEEN $2 AND $3',
      [keyId, from, untilDate],
    );
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

const HEALTH_TIMEOUT_MS = 2_000;

/** The distributed store: every gateway process shares one PostgreSQL database. */
export class PostgresStore implements Store {
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly usage: UsageStore;
  readonly jobs: JobStore;
  readonly media: MediaStore;
  readonly webhooks: WebhookStore;

  constructor(readonly db: PostgresDatabase) {
    const sql = new PostgresExecutor(db);
    this.accounts = new AccountRepository(sql);
    this.apiKeys = new KeyRepository(sql);
    this.usage = new PostgresUsageStore(db);
    this.jobs = new PostgresJobStore(db);
    this.media = new PostgresMediaStore(db);
    this.webhooks = new PostgresWebhookStore(db);
  }

  /** Connects and applies pending migrations (once, whichever process gets there first). */
  static async open(options: PostgresOptions): Promise<PostgresStore> {
    const db = new PostgresDatabase(options);
    try {
      await db.migrate(POSTGRES_MIGRATIONS);
    } catch (error) {
      await db.close().catch(() => undefined);
      throw error;
    }
    return new PostgresStore(db);
  }

  async health(): Promise<StoreHealth> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.db.query('SELECT 1'),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${HEALTH_TIMEOUT_MS} ms`)), HEALTH_TIMEOUT_MS);
        }),
      ]);
      return { backend: 'postgres', ok: true };
    } catch (error) {
      return { backend: 'postgres', ok: false, detail: (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
