import type { ApiKeyRecord, KeyLimitOverrides, Scope } from '../../auth/principal.js';
import type { JobStore } from '../job-records.js';
import type { MediaStore } from '../media-records.js';
import type { WebhookStore } from '../webhook-records.js';
import { addDays } from '../dates.js';
import { newId } from '../ids.js';
import type { AccountStore, ApiKeyStore, NewApiKey, Store, StoreHealth, UsageDay, UsageStore } from '../store-types.js';
import { AccountRepository } from '../repositories/account-repository.js';
import { KeyRepository } from '../repositories/key-repository.js';
import { JobRepository } from '../repositories/job-repository.js';
import { MediaRepository } from '../repositories/media-repository.js';
import { UsageRepository } from '../repositories/usage-repository.js';
import { WebhookRepository } from '../repositories/webhook-repository.js';
import { PostgresExecutor } from './postgres-executor.js';
import { POSTGRES_MIGRATIONS } from './migrations/index.js';
import { PostgresDatabase, type PostgresOptions } from './postgres-database.js';

type Row = Record<string, any>;

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
    this.usage = new UsageRepository(sql);
    this.jobs = new JobRepository(sql);
    this.media = new MediaRepository(sql);
    this.webhooks = new WebhookRepository(sql);
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
