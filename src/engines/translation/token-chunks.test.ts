import { describe, expect, it } from 'vitest';
import { chunkIds } from './token-chunks.js';

describe('chunkIds', () => {
  it('keeps a short sentence whole', () => {
    expect(chunkIds([1, 2, 3], [true, false, true], 5)).toEqual([[1, 2, 3]]);
  });

  it('cuts before the last word start in the second half of the window', () => {
    const ids = [10, 11, 12, 13, 14, 15, 16, 17];
    const starts = [true, false, false, true, false, true, false, false];
    // limit 6: window ids[0..6); word starts at 3 and 5 (both > 3): cut before 5
    expect(chunkIds(ids, starts, 6)).toEqual([
      [10, 11, 12, 13, 14],
      [15, 16, 17],
    ]);
  });

  it('cuts at the limit when no word starts in the second half', () => {
    const ids = Array.from({ length: 10 }, (_, i) => i);
    const starts = ids.map((i) => i === 0);
    expect(chunkIds(ids, starts, 4)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
  });
});
