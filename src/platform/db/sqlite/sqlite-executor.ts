import { resolve } from 'node:path';
import type { Row, SqlDatabase, SqlTransaction } from '../sql/executor.js';
import { SQLITE_DIALECT } from './sqlite-dialect.js';
import type { SqliteDatabase } from './sqlite-database.js';
import { StatementCache } from './statement-cache.js';

/**
 * One per database file in this process. A transaction spans awaits, so while one is open every
 * other statement on any connection to that file waits for it: on the same connection it would
 * run inside the transaction, and on another connection a write would block the thread in
 * SQLite's busy handler while the transaction holding the lock waits for that same thread.
 */
class FileGate {
  held = false;
  users = 0;
  private waiters: (() => void)[] = [];

  /**
   * Resolves at the next release. Callers loop `while (gate.held) await gate.released()` and then
   * act without awaiting, so no transaction can start between their check and their statement.
   */
  released(): Promise<void> {
    return new Promise<void>((wake) => this.waiters.push(wake));
  }

  release(): void {
    this.held = false;
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

const gates = new Map<string, FileGate>();

/** SQLite has no booleans: they bind as 1 and 0 (the values are copied only when one is there). */
function bind(values: readonly unknown[]): readonly unknown[] {
  for (const value of values) {
    if (typeof value === 'boolean') return values.map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
  }
  return values;
}

/**
 * The SQLite side of the store: statements prepared once per text and kept for the connection's
 * life; transactions are IMMEDIATE (the write lock is taken at BEGIN, so a read inside one cannot
 * go stale before the write that depends on it).
 */
export class SqliteExecutor implements SqlDatabase {
  readonly dialect = SQLITE_DIALECT;
  private readonly statements: StatementCache;
  private readonly gateKey: string;
  private readonly gate: FileGate;
  private closed = false;

  constructor(readonly db: SqliteDatabase) {
    this.statements = new StatementCache(db);
    // An in-memory database is private to its connection: its gate is its own.
    this.gateKey = db.memory ? '' : resolve(db.name);
    let gate = this.gateKey === '' ? undefined : gates.get(this.gateKey);
    if (gate === undefined) {
      gate = new FileGate();
      if (this.gateKey !== '') gates.set(this.gateKey, gate);
    }
    gate.users++;
    this.gate = gate;
  }

  async query<R = Row>(sql: string, values: readonly unknown[] = []): Promise<R[]> {
    while (this.gate.held) await this.gate.released();
    return this.all<R>(sql, values);
  }

  async one<R = Row>(sql: string, values: readonly unknown[] = []): Promise<R | undefined> {
    while (this.gate.held) await this.gate.released();
    return this.first<R>(sql, values);
  }

  async run(sql: string, values: readonly unknown[] = []): Promise<number> {
    while (this.gate.held) await this.gate.released();
    return this.changes(sql, values);
  }

  async transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
    while (this.gate.held) await this.gate.released();
    this.gate.held = true;
    let open = true;
    const live = (): void => {
      if (!open) throw new Error('a transaction was used after it ended');
    };
    const tx: SqlTransaction = {
      query: async <R>(sql: string, values: readonly unknown[] = []) => {
        live();
        return this.all<R>(sql, values);
      },
      one: async <R>(sql: string, values: readonly unknown[] = []) => {
        live();
        return this.first<R>(sql, values);
      },
      run: async (sql, values = []) => {
        live();
        return this.changes(sql, values);
      },
      // The IMMEDIATE transaction already holds the database's only write lock.
      lock: async () => live(),
    };
    try {
      this.statements.get('BEGIN IMMEDIATE').run();
      try {
        const result = await work(tx);
        this.statements.get('COMMIT').run();
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.statements.get('ROLLBACK').run();
        throw error;
      }
    } finally {
      open = false;
      this.gate.release();
    }
  }

  /** Forgets this connection's share of the file's gate; the caller closes the database. */
  detach(): void {
    if (this.closed) return;
    this.closed = true;
    if (--this.gate.users === 0 && gates.get(this.gateKey) === this.gate) gates.delete(this.gateKey);
  }

  private all<R>(sql: string, values: readonly unknown[]): R[] {
    const statement = this.statements.get(sql);
    if (statement.reader) return statement.all(...bind(values)) as R[];
    statement.run(...bind(values));
    return [];
  }

  private first<R>(sql: string, values: readonly unknown[]): R | undefined {
    const statement = this.statements.get(sql);
    if (statement.reader) return statement.get(...bind(values)) as R | undefined;
    statement.run(...bind(values));
    return undefined;
  }

  private changes(sql: string, values: readonly unknown[]): number {
    return this.statements.get(sql).run(...bind(values)).changes;
  }
}
