/** Thrown by a store's list for a cursor it did not issue; routes answer 400. */
export class InvalidCursorError extends Error {
  constructor() {
    super('invalid cursor');
  }
}

/** A position in a list ordered by (created_at DESC, id DESC): stable under inserts. */
export interface KeysetPosition {
  readonly createdAt: string;
  readonly id: string;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.createdAt}|${position.id}`).toString('base64url');
}

/**
 * Reads a cursor this API issued; anything else (not base64url, no separator, no instant)
 * throws InvalidCursorError, so no backend ever compares against a malformed time.
 */
export function decodeCursor(cursor: string): KeysetPosition {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const bar = text.indexOf('|');
  if (bar < 0) throw new InvalidCursorError();
  const createdAt = text.slice(0, bar);
  const id = text.slice(bar + 1);
  if (!ISO_INSTANT.test(createdAt) || Number.isNaN(Date.parse(createdAt)) || id === '') throw new InvalidCursorError();
  return { createdAt, id };
}
