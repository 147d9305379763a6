import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Row, SqlDatabase, SqlExecutor, SqlTransaction } from '../sql/executor.js';
import { numberPlaceholders } from '../sql/placeholders.js';
import { POSTGRES_DIALECT } from './postgres-dialect.js';
import type { PostgresDatabase } from './postgres-database.js';

/** Names each distinct SQL text, so every pooled connection prepares it once and reuses the plan. */
function statementName(text: string): string {
  return `gw_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
}

interface Prepared {
  readonly name: string;
  readonly text: string;
}

/** Each distinct statement, numbered and named once (named: every pooled connection prepares it once). */
const prepared = new Map<string, Prepared>();

function prepare(sql: string): Prepared {
  let statement = prepared.get(sql);
  if (statement === undefined) {
    const text = numberPlaceholders(sql);
    statement = { name: statementName(text), text };
    prepared.set(sql, statement);
  }
  return statement;
}

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

function executorOf(target: Queryable): SqlExecutor {
  const exec = (sql: string, values: readonly unknown[]) => {
    const { name, text } = prepare(sql);
    return target.query<pg.QueryResultRow>({ name, text, values: values as unknown[] });
  };
  return {
    query: async <R>(sql: string, values: readonly unknown[] = []) => (await exec(sql, values)).rows as R[],
    one: async <R>(sql: string, values: readonly unknown[] = []) => (await exec(sql, values)).rows[0] as R | undefined,
    run: async (sql: string, values: readonly unknown[] = []) => (await exec(sql, values)).rowCount ?? 0,
  };
}

/** The PostgreSQL side of the store: statements on the pool, transactions on one connection. */
export class PostgresExecutor implements SqlDatabase {
  readonly dialect = POSTGRES_DIALECT;
  private readonly direct: SqlExecutor;

  constructor(private readonly database: PostgresDatabase) {
    this.direct = executorOf(database.pool);
  }

  query<R = Row>(sql: string, values?: readonly unknown[]): Promise<R[]> {
    return this.direct.query<R>(sql, values);
  }

  one<R = Row>(sql: string, values?: readonly unknown[]): Promise<R | undefined> {
    return this.direct.one<R>(sql, values);
  }

  run(sql: string, values?: readonly unknown[]): Promise<number> {
    return this.direct.run(sql, values);
  }

  transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    return this.database.transaction((client) => {
      const inner = executorOf(client);
      return work({
        ...inner,
        // Transaction-level: released at commit or rollback, after the transaction's writes are visible.
        lock: async (scope, key) => {
          await inner.query('SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))', [`speech-gateway:${scope}`, key]);
        },
      });
    });
  }
}
