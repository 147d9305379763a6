import type { ApiKeyRecord, KeyLimitOverrides, Scope } from '../../auth/principal.js';
import type { AccountStore, ApiKeyStore, NewApiKey, Store, StoreHealth, UsageDay, UsageStore } from '../store-types.js';
import { addDays } from '../dates.js';
import { newId } from '../ids.js';
import { AccountRepository } from '../repositories/account-repository.js';
import { KeyRepository } from '../repositories/key-repository.js';
import { JobRepository } from '../repositories/job-repository.js';
import { MediaRepository } from '../repositories/media-repository.js';
import { UsageRepository } from '../repositories/usage-repository.js';
import { WebhookRepository } from '../repositories/webhook-repository.js';
import { SqliteExecutor } from './sqlite-executor.js';
import { SQLITE_MIGRATIONS } from './migrations/index.js';
import { openSqlite, type SqliteDatabase } from './sqlite-database.js';
import { StatementCache } from './statement-cache.js';
import type { MediaStore } from '../media-records.js';
import type { WebhookStore } from '../webhook-records.js';
import type { JobStore } from '../job-records.js';

export { newId };

export class SqliteStore implements Store {
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly usage: UsageStore;
  readonly jobs: JobStore;
  readonly media: MediaStore;
  readonly webhooks: WebhookStore;
  private readonly sql: SqliteExecutor;

  constructor(readonly db: SqliteDatabase) {
    this.sql = new SqliteExecutor(db);
    this.jobs = new JobRepository(this.sql);
    this.media = new MediaRepository(this.sql);
    this.webhooks = new WebhookRepository(this.sql);
    this.accounts = new AccountRepository(this.sql);
    this.apiKeys = new KeyRepository(this.sql);
    this.usage = new UsageRepository(this.sql);
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
