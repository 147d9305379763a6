import { describe, expect, it } from 'vitest';
import { matchWords } from './word-matches.js';

describe('matchWords', () => {
  it('pairs the words both sequences share, in order, across insertions, deletions and substitutions', () => {
    const reference = ['a', 'b', 'c', 'd', 'e'];
    const hypothesis = ['x', 'a', 'c', 'q', 'e'];
    expect(matchWords(reference, hypothesis)).toEqual([
      { reference: 0, hypothesis: 1 },
      { reference: 2, hypothesis: 2 },
      { reference: 4, hypothesis: 4 },
    ]);
  });

  it('matches nothing when a side is empty or nothing is shared', () => {
    expect(matchWords([], ['a'])).toEqual([]);
    expect(matchWords(['a'], [])).toEqual([]);
    expect(matchWords(['a', 'b'], ['c', 'd'])).toEqual([]);
  });

  it('never pairs a word twice nor crosses pairs when a word repeats', () => {
    const matches = matchWords(['a', 'b', 'a'], ['a', 'a']);
    expect(matches).toHaveLength(2);
    expect(matches[0]!.reference).toBeLessThan(matches[1]!.reference);
    expect(matches[0]!.hypothesis).toBeLessThan(matches[1]!.hypothesis);
  });
});
