import type { Row, SqlDialect, SqlExecutor } from '../sql/executor.js';

/**
 * The kind of a column: `json` holds a document (as text on both backends), `bool` a flag (bound
 * as each backend stores it), `time` an instant (ISO 8601 text in SQLite, timestamptz in
 * PostgreSQL), `plain` a value stored as it is.
 */
export type ColumnKind = 'plain' | 'json' | 'bool' | 'time';

/** A condition of a conditional write and the parameters it binds, in order. */
export interface SqlCondition {
  readonly sql: string;
  readonly values: readonly unknown[];
}

/** `column` is one of `values` (one parameter, whatever their number). */
export const inListCondition = (dialect: SqlDialect, column: string, values: readonly unknown[]): SqlCondition => ({
  sql: dialect.inList(column),
  values: [dialect.list(values)],
});

/** `id = ?` and every condition after it. */
const whereId = (id: string, conditions: readonly SqlCondition[]): SqlCondition => ({
  sql: ['id = ?', ...conditions.map((c) => c.sql)].join(' AND '),
  values: [id, ...conditions.flatMap((c) => c.values)],
});

interface Column {
  readonly field: string;
  readonly column: string;
  readonly kind: ColumnKind;
}

/** A field as its column stores it: documents as JSON text, flags as booleans, nothing as NULL. */
function toColumn(kind: ColumnKind, value: unknown): unknown {
  if (kind === 'bool') return value === true;
  if (value === undefined || value === null) return null;
  return kind === 'json' ? JSON.stringify(value) : value;
}

/**
 * How a record is stored: its table and the kind of each field's column, named as the field in
 * snake_case (`accountId` → `account_id`), in declaration order. Every repository reads rows,
 * inserts records and writes patches through one, so a column is declared once and the
 * conversions are written once.
 */
export class RecordTable<T extends object> {
  private readonly columns: readonly Column[];
  private readonly byField: ReadonlyMap<string, Column>;
  private readonly rowMarks: string;

  constructor(
    readonly name: string,
    kinds: { readonly [K in keyof Required<T>]: ColumnKind },
  ) {
    this.columns = Object.entries<ColumnKind>(kinds).map(([field, kind]) => ({ field, column: field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), kind }));
    this.byField = new Map(this.columns.map((c) => [c.field, c]));
    this.rowMarks = `(${this.columns.map(() => '?').join(', ')})`;
  }

  /** The record a row holds. */
  readonly fromRow = (row: Row): T => {
    const record: Record<string, unknown> = {};
    for (const { field, column, kind } of this.columns) {
      const value = row[column] ?? null;
      record[field] = kind === 'json' ? (value === null ? null : JSON.parse(value as string)) : kind === 'bool' ? value === true || value === 1 : value;
    }
    return record as T;
  };

  /** The record of the row a `one` found, or null when it found none. */
  readonly fromRowOrNull = (row: Row | undefined): T | null => (row === undefined ? null : this.fromRow(row));

  /** The record whose `id` column is `id`, or null. */
  async byId(sql: Pick<SqlExecutor, 'one'>, id: string): Promise<T | null> {
    return this.fromRowOrNull(await sql.one(`SELECT * FROM ${this.name} WHERE id = ?`, [id]));
  }

  /** UPDATEs the row whose `id` column is `id` with `patch` (as `setClause`) where every condition holds; the updated row, or undefined when none matched. */
  updateRow(sql: Pick<SqlExecutor, 'one'>, id: string, patch: Partial<T>, conditions: readonly SqlCondition[] = []): Promise<Row | undefined> {
    const values: unknown[] = [];
    const sets = this.setClause(patch, values);
    const where = whereId(id, conditions);
    return sql.one(`UPDATE ${this.name} SET ${sets} WHERE ${where.sql} RETURNING *`, [...values, ...where.values]);
  }

  /** DELETEs the row whose `id` column is `id` where every condition holds; whether there was one. */
  async deleteRow(sql: Pick<SqlExecutor, 'run'>, id: string, conditions: readonly SqlCondition[] = []): Promise<boolean> {
    const where = whereId(id, conditions);
    return (await sql.run(`DELETE FROM ${this.name} WHERE ${where.sql}`, where.values)) > 0;
  }

  /** INSERTs `records` in one statement, `suffix` after it (e.g. ` ON CONFLICT DO NOTHING`); returns the rows inserted. */
  insert(sql: Pick<SqlExecutor, 'run'>, records: readonly T[], suffix = ''): Promise<number> {
    const values = records.flatMap((record) => this.columns.map(({ field, kind }) => toColumn(kind, (record as Record<string, unknown>)[field])));
    const columns = this.columns.map((c) => c.column).join(', ');
    return sql.run(`INSERT INTO ${this.name} (${columns}) VALUES ${records.map(() => this.rowMarks).join(', ')}${suffix}`, values);
  }

  /** The SET list of a patch, its parameters appended to `values`; fields left undefined (or of no column) are not written. */
  setClause(patch: Partial<T>, values: unknown[]): string {
    const sets: string[] = [];
    for (const [field, value] of Object.entries(patch)) {
      const spec = this.byField.get(field);
      if (spec === undefined || value === undefined) continue;
      sets.push(`${spec.column} = ?`);
      values.push(toColumn(spec.kind, value));
    }
    return sets.join(', ');
  }
}
