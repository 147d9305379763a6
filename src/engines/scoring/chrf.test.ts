import { describe, expect, it } from 'vitest';
import { chrfSentenceStatistics, corpusChrf } from './chrf.js';

describe('chrF (n = 6, beta = 2)', () => {
  it('is 100 for identical text and 0 with nothing in common', () => {
    expect(corpusChrf(['ሰላም ነው።'], ['ሰላም ነው።'])).toBeCloseTo(100, 10);
    expect(corpusChrf(['xyz'], ['abc'])).toBe(0);
  });

  it('matches a hand computation when precision equals recall', () => {
    // hyp "abc", ref "abd":
    //   n=1: hyp {a,b,c}=3, ref {a,b,d}=3, matches a,b = 2  -> P1 = R1 = 2/3
    //   n=2: hyp {ab,bc}=2, ref {ab,bd}=2, matches ab = 1  -> P2 = R2 = 1/2
    //   n=3: hyp {abc}, ref {abd}, matches 0                -> P3 = R3 = 0
    //   n=4..6: no n-grams on either side: not counted (effective order 3)
    //   P = R = (2/3 + 1/2 + 0) / 3 = 7/18; F2 = 5PR / (4P + R) = P = 7/18 = 0.388888...
    expect(corpusChrf(['abc'], ['abd'])).toBeCloseTo((100 * 7) / 18, 8);
  });

  it('removes whitespace and weighs recall over precision', () => {
    // hyp "a b" -> "ab", ref "abc":
    //   n=1: hyp 2, ref 3, matches 2 -> P1 = 1, R1 = 2/3
    //   n=2: hyp {ab} 1, ref {ab,bc} 2, matches 1 -> P2 = 1, R2 = 1/2
    //   n=3: hyp has no 3-gram, ref has 1: not counted; effective order 2
    //   P = 1, R = (2/3 + 1/2) / 2 = 7/12; F2 = 5 * 1 * 7/12 / (4 + 7/12) = 35/55 = 7/11 = 0.636363...
    expect(corpusChrf(['a b'], ['abc'])).toBeCloseTo((100 * 7) / 11, 8);
    const stats = chrfSentenceStatistics('a b', 'abc');
    expect(stats.orders.slice(0, 3)).toEqual([
      [2, 3, 2],
      [1, 2, 1],
      [0, 1, 0],
    ]);
  });

  it('sums statistics over the corpus before averaging', () => {
    // ("abc" vs "abd") + ("ab" vs "abc"):
    //   n=1: hyp 3+2 = 5, ref 3+3 = 6, matches 2+2 = 4 -> P1 = 4/5, R1 = 2/3
    //   n=2: hyp 2+1 = 3, ref 2+2 = 4, matches 1+1 = 2 -> P2 = 2/3, R2 = 1/2
    //   n=3: hyp 1, ref 2, matches 0                  -> P3 = 0,   R3 = 0
    //   P = (4/5 + 2/3) / 3 = 22/45, R = (2/3 + 1/2) / 3 = 7/18
    //   F2 = 5PR / (4P + R) = (77/81) / (211/90) = 6930/17091 = 0.405476...
    expect(corpusChrf(['abc', 'ab'], ['abd', 'abc'])).toBeCloseTo((100 * 6930) / 17091, 8);
  });

  it('counts Ethiopic syllables as one character each', () => {
    // "ሰላም" vs "ሰላሙ": n=1 P = R = 2/3, n=2 P = R = 1/2, n=3 0 -> 7/18 as for "abc"/"abd"
    expect(corpusChrf(['ሰላም'], ['ሰላሙ'])).toBeCloseTo((100 * 7) / 18, 8);
  });
});
