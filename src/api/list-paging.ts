// The paging rules every list route shares: the page size and the keyset cursor.
import { Type, type TSchema } from '@sinclair/typebox';
import { InvalidCursorError } from '../platform/db/cursor.js';
import { ApiError } from '../platform/errors/api-error.js';
import { named, Nullable } from '../platform/http/named-schema.js';

/** The page size a list asked for (default 50); over `max` (LIST_MAX_LIMIT) → 422 validation_error on `limit`. */
export function listLimit(requested: number | undefined, max: number): number {
  const limit = requested ?? 50;
  if (limit > max) throw new ApiError('validation_error', { message: `'limit' must be at most ${max}.`, param: 'limit' });
  return limit;
}

/** Reads one page of a keyset-paged list; a cursor this API did not issue → 422 validation_error on `cursor`. */
export async function readPage<T>(list: () => Promise<T>): Promise<T> {
  try {
    return await list();
  } catch (error) {
    if (error instanceof InvalidCursorError) throw new ApiError('validation_error', { message: "'cursor' is not a cursor this API issued.", param: 'cursor' });
    throw error;
  }
}

/**
 * The keyset page a list query asks for (`limit` checked by listLimit against `max`, `cursor` by
 * readPage): `list` reads it with the page size and the cursor, when one was sent.
 */
export async function readKeysetPage<T>(
  query: { readonly limit?: number; readonly cursor?: string },
  max: number,
  list: (page: { limit: number; cursor?: string }) => Promise<T>,
): Promise<T> {
  const limit = listLimit(query.limit, max);
  return readPage(() => list({ limit, ...(query.cursor !== undefined ? { cursor: query.cursor } : {}) }));
}

/** The list envelope of a keyset page: its items, whether more follow, the cursor to them and the total. */
export function cursorPageBody<T>(data: T[], page: { readonly nextCursor: string | null; readonly total: number }) {
  return { data, has_more: page.nextCursor !== null, next_cursor: page.nextCursor, total: page.total };
}

/** The schema of that envelope for `item`, named `name` in /openapi.json. */
export function cursorListSchema<T extends TSchema>(name: string, item: T) {
  return named(name, Type.Object({ data: Type.Array(item), has_more: Type.Boolean(), next_cursor: Nullable(Type.String()), total: Type.Integer() }));
}
