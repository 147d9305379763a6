// The paging rules every list route shares: the page size and the keyset cursor.
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { InvalidCursorError } from '../platform/db/cursor.js';
import { ApiError } from '../platform/errors/api-error.js';
import { named, Nullable } from '../platform/http/named-schema.js';
import { rangeMessage } from '../platform/http/schema-validation.js';

/**
 * A list query with its `limit` bounded by the configured `max` (LIST_MAX_LIMIT): one range, so
 * 0 and max + 1 get the same message ("must be between 1 and 200"), and OpenAPI shows it.
 */
export function withPageSize<T extends TObject>(query: T, max: number): T {
  const limit = Type.Optional(Type.Integer({ minimum: 1, maximum: max, default: 50, description: `Page size: 1 to ${max} (LIST_MAX_LIMIT), default 50` }));
  return { ...query, properties: { ...query.properties, limit } };
}

/** The page size a list asked for (default 50); outside 1..`max` (LIST_MAX_LIMIT) → 422 validation_error on `limit`. */
export function listLimit(requested: number | undefined, max: number): number {
  const limit = requested ?? 50;
  if (limit < 1 || limit > max) throw new ApiError('validation_error', { message: rangeMessage('limit', { min: 1, max }), param: 'limit' });
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
