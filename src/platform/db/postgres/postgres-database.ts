import pg from 'pg';
import type { Migration } from '../migration.js';

export interface PostgresOptions {
  readonly connectionString: string;
  /** Connections kept at most (DATABASE_POOL_SIZE). */
  readonly poolSize?: number;
  /** Errors of idle connections (the server restarted, the network dropped): logged, never thrown. */
  readonly onIdleError?: (error: Error) => void;
}

const { TIMESTAMPTZ, TIMESTAMP, DATE, INT8, NUMERIC, JSON: JSON_OID } = pg.types.builtins;

/**
 * Rows come back in the shapes the SQLite backend returns: instants as ISO 8601 text (UTC,
 * milliseconds), dates as `YYYY-MM-DD`, 64-bit counts as numbers, `json` documents as their
 * text (the repositories parse them, as they do SQLite's). Per pool, never global.
 */
const parseDate = pg.types.getTypeParser(TIMESTAMPTZ) as (value: string) => Date;
const TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (format === undefined || format === 'text') {
      if (oid === TIMESTAMPTZ || oid === TIMESTAMP) return (value: string) => parseDate(value).toISOString();
      if (oid === DATE || oid === JSON_OID) return (value: string) => value;
      if (oid === INT8 || oid === NUMERIC) return (value: string) => Number(value);
    }
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * The pool (statements and transactions run through PostgresExecutor), and migrations applied
 * once under an advisory lock.
 */
export class PostgresDatabase {
  readonly pool: pg.Pool;

  constructor(options: PostgresOptions) {
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 10,
      // Waiting longer than this for a free connection means the database or the pool is saturated: fail the request.
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      // A runaway statement must not hold a connection (and its locks) forever.
      statement_timeout: 30_000,
      idle_in_transaction_session_timeout: 60_000,
      application_name: 'speech-gateway',
      keepAlive: true,
      types: TYPES,
    });
    this.pool.on('error', (error) => options.onIdleError?.(error));
  }

  /**
   * Applies the migrations not yet recorded, all in one transaction, under a transaction-level
   * advisory lock keyed on the schema: processes starting together wait for the first, then
   * find nothing left to do. Returns the ids this call applied.
   */
  async migrate(migrations: readonly Migration[]): Promise<string[]> {
    return this.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('speech-gateway:migrations:' || current_schema()))");
      await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (id text PRIMARY KEY, applied_at timestamptz NOT NULL)');
      const applied = new Set((await client.query<{ id: string }>('SELECT id FROM schema_migrations')).rows.map((r) => r.id));
      const ran: string[] = [];
      for (const migration of migrations) {
        if (applied.has(migration.id)) continue;
        // Several statements in one text: the simple protocol (no name, no parameters).
        await client.query(migration.sql);
        await client.query('INSERT INTO schema_migrations (id, applied_at) VALUES ($1, $2)', [migration.id, new Date().toISOString()]);
        ran.push(migration.id);
      }
      return ran;
    });
  }

  /** Runs `work` in one transaction on one connection; commits when it resolves, rolls back when it throws. */
  async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
      throw error;
    } finally {
      // A connection that could not roll back is in an unknown state: destroy it.
      client.release(broken);
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
