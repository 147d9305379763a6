import { SqlStore } from '../repositories/sql-store.js';
import type { StoreHealth } from '../store-types.js';
import { POSTGRES_MIGRATIONS } from './migrations/index.js';
import { PostgresDatabase, type PostgresOptions } from './postgres-database.js';
import { PostgresExecutor } from './postgres-executor.js';

const HEALTH_TIMEOUT_MS = 2_000;

/** The distributed store: every gateway process shares one PostgreSQL database. */
export class PostgresStore extends SqlStore<PostgresExecutor> {
  constructor(readonly db: PostgresDatabase) {
    super(new PostgresExecutor(db));
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
        this.sql.one('SELECT 1'),
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
