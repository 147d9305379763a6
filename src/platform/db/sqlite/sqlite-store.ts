import { SqlStore } from '../repositories/sql-store.js';
import type { StoreHealth } from '../store-types.js';
import { SQLITE_MIGRATIONS } from './migrations/index.js';
import { openSqlite, type SqliteDatabase } from './sqlite-database.js';
import { SqliteExecutor } from './sqlite-executor.js';

/** The single-process store: one SQLite file under DATA_DIR. */
export class SqliteStore extends SqlStore<SqliteExecutor> {
  constructor(readonly db: SqliteDatabase) {
    super(new SqliteExecutor(db));
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
