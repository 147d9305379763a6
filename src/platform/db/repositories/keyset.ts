import { decodeCursor } from '../cursor.js';

/** A condition and the parameters it binds. */
export interface Condition {
  readonly clause: string;
  readonly values: readonly unknown[];
}

/**
 * The condition that continues a (created_at DESC, id DESC) list after a cursor this API
 * issued. Throws InvalidCursorError for any other cursor.
 */
export function afterCursor(cursor: string): Condition {
  const position = decodeCursor(cursor);
  return { clause: '(created_at < ? OR (created_at = ? AND id < ?))', values: [position.createdAt, position.createdAt, position.id] };
}
