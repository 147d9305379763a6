import { decodeCursor, encodeCursor } from '../cursor.js';
import type { Row, SqlExecutor } from '../sql/executor.js';

export interface PageQuery {
  readonly table: string;
  /** Conditions joined with AND, and their parameters in order. */
  readonly where: readonly string[];
  readonly values: readonly unknown[];
  readonly cursor?: string;
  readonly limit: number;
}

export interface KeysetPage<R> {
  readonly rows: R[];
  readonly nextCursor: string | null;
}

/**
 * One page of a list ordered by (created_at DESC, id DESC), which stays stable under inserts;
 * a row past `limit` tells whether another page follows. Throws InvalidCursorError for a
 * cursor this API did not issue.
 */
export async function keysetPage<R extends object = Row>(sql: SqlExecutor, query: PageQuery): Promise<KeysetPage<R>> {
  const where = [...query.where];
  const values = [...query.values];
  if (query.cursor !== undefined) {
    const position = decodeCursor(query.cursor);
    where.push('(created_at < ? OR (created_at = ? AND id < ?))');
    values.push(position.createdAt, position.createdAt, position.id);
  }
  const rows = await sql.query<R>(`SELECT * FROM ${query.table} WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT ?`, [
    ...values,
    query.limit + 1,
  ]);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1] as Row | undefined;
  const more = rows.length > query.limit && last !== undefined;
  return { rows: page, nextCursor: more ? encodeCursor({ createdAt: last['created_at'] as string, id: last['id'] as string }) : null };
}

/** How many rows of `table` meet every condition. */
export async function countWhere(sql: SqlExecutor, table: string, where: readonly string[], values: readonly unknown[]): Promise<number> {
  return (await sql.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where.join(' AND ')}`, values))!.n;
}
