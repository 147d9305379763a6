import { describe, expect, it } from 'vitest';
import { corpusBleu, tokenize13a } from './bleu.js';

describe('tokenize13a', () => {
  it('splits punctuation, keeps decimals and splits Ethiopic punctuation', () => {
    expect(tokenize13a('Hello, world.')).toEqual(['Hello', ',', 'world', '.']);
    expect(tokenize13a('It costs 3.5 birr')).toEqual(['It', 'costs', '3.5', 'birr']);
    expect(tokenize13a('ቡና፣ ሻይ ነው።')).toEqual(['ቡና', '፣', 'ሻይ', 'ነው', '።']);
  });
});

describe('corpusBleu', () => {
  it('matches a hand computation without brevity penalty', () => {
    // hyp "the cat sat on the mat", ref "the cat sat on a mat" (6 tokens each, BP = 1)
    //   p1 = 5/6 (the clipped to 1), p2 = 3/5, p3 = 2/4, p4 = 1/3
    //   BLEU = (5/6 * 3/5 * 1/2 * 1/3)^(1/4) = (1/12)^(1/4) = 0.537284...
    const result = corpusBleu(['the cat sat on the mat'], ['the cat sat on a mat']);
    expect(result.precisions).toEqual([5 / 6, 3 / 5, 2 / 4, 1 / 3]);
    expect(result.brevityPenalty).toBe(1);
    expect(result.score).toBeCloseTo(100 * (1 / 12) ** 0.25, 8);
  });

  it('applies the brevity penalty', () => {
    // hyp "a b c d" (c = 4), ref "a b c d e f" (r = 6): every p_n = 1, BP = exp(1 - 6/4) = exp(-0.5)
    expect(corpusBleu(['a b c d'], ['a b c d e f']).score).toBeCloseTo(100 * Math.exp(-0.5), 8);
  });

  it('smooths an order without matches the sacreBLEU "exp" way', () => {
    // hyp "a b c d e", ref "a b c x e": p1 = 4/5, p2 = 2/4, p3 = 1/3, p4 = 0/2 -> 1/(2 * 2) = 1/4
    //   BLEU = (4/5 * 1/2 * 1/3 * 1/4)^(1/4) = (1/30)^(1/4) = 0.427287...
    expect(corpusBleu(['a b c d e'], ['a b c x e']).score).toBeCloseTo(100 * (1 / 30) ** 0.25, 8);
  });

  it('sums counts over the corpus, and is 0 when a hypothesis is too short for 4-grams overall', () => {
    // two copies of the first case: same precisions and BP, same score
    expect(corpusBleu(['the cat sat on the mat', 'the cat sat on the mat'], ['the cat sat on a mat', 'the cat sat on a mat']).score).toBeCloseTo(
      100 * (1 / 12) ** 0.25,
      8,
    );
    // "the cat" has no 3- or 4-grams: p3 = p4 = 0 -> 0
    expect(corpusBleu(['the cat'], ['the cat sat']).score).toBe(0);
    expect(corpusBleu(['x y z w'], ['a b c d']).score).toBe(0);
  });
});
