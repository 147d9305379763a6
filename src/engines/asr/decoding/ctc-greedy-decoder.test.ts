import { describe, expect, it } from 'vitest';
import { CtcGreedyDecoder } from './ctc-greedy-decoder.js';

const vocabulary = { tokens: ['<blank>', '|', 'a', 'b'], blankId: 0, wordDelimiter: '|' };

function scoresFor(path: number[], vocabSize = 4): Float32Array {
  const data = new Float32Array(path.length * vocabSize).fill(-10);
  path.forEach((id, t) => (data[t * vocabSize + id] = 0));
  return data;
}

describe('CtcGreedyDecoder', () => {
  it('merges repeats, drops blanks and splits words at the delimiter', () => {
    const path = [2, 2, 0, 2, 3, 1, 1, 0, 3, 3];
    const hyp = new CtcGreedyDecoder(vocabulary).decode({ data: scoresFor(path), frames: path.length, vocabSize: 4 });
    expect(hyp.text).toBe('aab b');
    expect(hyp.words.map((w) => [w.text, w.startFrame, w.endFrame])).toEqual([
      ['aab', 0, 5],
      ['b', 8, 10],
    ]);
    expect(hyp.confidence).toBeGreaterThan(0.99);
  });

  it('returns an empty hypothesis for all-blank input', () => {
    const hyp = new CtcGreedyDecoder(vocabulary).decode({ data: scoresFor([0, 0, 0]), frames: 3, vocabSize: 4 });
    expect(hyp.text).toBe('');
    expect(hyp.words).toEqual([]);
  });

  it('rejects scores whose class count differs from the vocabulary', () => {
    expect(() => new CtcGreedyDecoder(vocabulary).decode({ data: new Float32Array(6), frames: 2, vocabSize: 3 })).toThrow();
  });
});
