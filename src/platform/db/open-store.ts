import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/config.js';
import { PostgresStore } from './postgres/postgres-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import type { Store } from './store-types.js';

/**
 * The store the configuration names: SQLite under DATA_DIR (one process), or the PostgreSQL
 * database at DATABASE_URL (shared by every gateway process). Migrations run on open.
 */
export async function openStore(config: GatewayConfig, logger?: Logger): Promise<Store> {
  if (config.store.backend === 'postgres') {
    return PostgresStore.open({
      connectionString: config.store.databaseUrl!,
      poolSize: config.store.poolSize,
      onIdleError: (error) => logger?.warn({ err: error }, 'an idle PostgreSQL connection failed; the pool replaces it'),
    });
  }
  mkdirSync(config.dataDir, { recursive: true });
  return SqliteStore.open(join(config.dataDir, 'gateway.db'));
}
