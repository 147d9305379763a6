/** A row as the driver returns it: column name → value. */
export type Row = Record<string, unknown>;

/**
 * Runs SQL written once for every backend: `?` marks a parameter (rendered as `$n` for
 * PostgreSQL), booleans bind as the backend stores them, and instants come back as ISO 8601
 * text, counts as numbers and `json` columns as their text on both backends.
 */
export interface SqlExecutor {
  /** Every row the statement yields (`RETURNING` included). */
  query<R = Row>(sql: string, values?: readonly unknown[]): Promise<R[]>;
  /** The first row, or undefined. */
  one<R = Row>(sql: string, values?: readonly unknown[]): Promise<R | undefined>;
  /** The number of rows the statement changed. */
  run(sql: string, values?: readonly unknown[]): Promise<number>;
}

export interface SqlTransaction extends SqlExecutor {
  /**
   * Serialises, until this transaction ends, every transaction (in any process) that takes the
   * same lock: an advisory lock in PostgreSQL; nothing to do in SQLite, whose transactions hold
   * the database's write lock from their first statement.
   */
  lock(scope: string, key: string): Promise<void>;
}

/** What a repository needs from a backend: statements, transactions and the dialect's few differences. */
export interface SqlDatabase extends SqlExecutor {
  readonly dialect: SqlDialect;
  /**
   * Runs `work` in one transaction; commits when it resolves, rolls back when it throws. Inside
   * `work` use `tx` only: on SQLite the database's own statements wait until the transaction ends.
   */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T>;
}

/** A statement and its parameters, for the statements a dialect writes its own way. */
export interface Statement {
  readonly sql: string;
  readonly values: readonly unknown[];
}

/** The SQL that differs between SQLite and PostgreSQL; everything else is written once. */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /** A condition `column` is one of a list bound as one parameter (see `list`), so one statement serves every length. */
  inList(column: string): string;
  /** The parameter `inList` binds. */
  list(values: readonly unknown[]): unknown;
  /** The literal true of a boolean column. */
  readonly true: string;
  /**
   * Leases up to `limit` pending deliveries of active webhooks due at `now`, until `leaseUntil`,
   * returning the leased rows: concurrent claimers must take disjoint sets.
   */
  claimDueDeliveries(now: string, leaseUntil: string, limit: number): Statement;
  /** The same for pending callbacks of file translation jobs (`translation_jobs`). */
  claimDueCallbacks(now: string, leaseUntil: string, limit: number): Statement;
}
