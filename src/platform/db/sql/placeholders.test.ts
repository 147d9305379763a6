import { describe, expect, it } from 'vitest';
import { numberPlaceholders } from './placeholders.js';

describe('numberPlaceholders', () => {
  it('numbers the marks in order', () => {
    expect(numberPlaceholders('UPDATE t SET a = ?, b = ? WHERE id = ? LIMIT ?')).toBe('UPDATE t SET a = $1, b = $2 WHERE id = $3 LIMIT $4');
    expect(numberPlaceholders('SELECT 1')).toBe('SELECT 1');
  });

  it('leaves marks inside strings, quoted names and comments alone', () => {
    expect(numberPlaceholders(`SELECT '?', 'it''s ?', "a?b" FROM t WHERE x = ? -- why?\nAND y = ? /* ? */ AND z = ?`)).toBe(
      `SELECT '?', 'it''s ?', "a?b" FROM t WHERE x = $1 -- why?\nAND y = $2 /* ? */ AND z = $3`,
    );
  });
});
