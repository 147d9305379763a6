import { describe, expect, it } from 'vitest';
import { forceAlign, wordLabels } from './ctc-forced-alignment.js';
import type { CtcVocabulary } from './ctc-types.js';

const VOCAB: CtcVocabulary = { tokens: ['<b>', '|', 'a', 'b', 'c', 'ab'], blankId: 0, wordDelimiter: '|' };

/** Logits that favour `path[t]` in frame t by `margin` (nats) over every other class. */
function scoresOf(path: readonly string[], margin = 6): { data: Float32Array; frames: number; vocabSize: number } {
  const vocabSize = VOCAB.tokens.length;
  const data = new Float32Array(path.length * vocabSize);
  path.forEach((symbol, t) => {
    data[t * vocabSize + VOCAB.tokens.indexOf(symbol)] = margin;
  });
  return { data, frames: path.length, vocabSize };
}

describe('wordLabels', () => {
  it('takes the longest token first and skips characters the vocabulary lacks', () => {
    expect(wordLabels('abc', VOCAB)).toEqual([5, 4]);
    expect(wordLabels('xbx', VOCAB)).toEqual([3]);
  });
});

describe('forceAlign', () => {
  it('places each word on the frames where the model emits its tokens, with the delimiter between words', () => {
    // _ ab ab _ | | c _ _ c b _
    const path = ['<b>', 'ab', 'ab', '<b>', '|', '|', 'c', '<b>', '<b>', 'c', 'b', '<b>'];
    const aligned = forceAlign('ab ccb', scoresOf(path), VOCAB);
    expect(aligned.feasible).toBe(true);
    expect(aligned.words.map((w) => [w.text, w.startFrame, w.endFrame])).toEqual([
      ['ab', 1, 3],
      ['ccb', 6, 11],
    ]);
    for (const w of aligned.words) expect(w.confidence).toBeGreaterThan(0.9);
  });

  it('aligns the reference text even where the model would emit something else', () => {
    // The model says "a" then "c"; the reference says "b c": "b" takes the frames around "a".
    const path = ['<b>', 'a', 'a', '<b>', '|', '<b>', 'c', '<b>'];
    const aligned = forceAlign('b c', scoresOf(path, 3), VOCAB);
    expect(aligned.words.map((w) => w.text)).toEqual(['b', 'c']);
    expect(aligned.words[0]!.startFrame).toBeLessThan(aligned.words[1]!.startFrame);
    expect(aligned.words[1]!.startFrame).toBe(6);
    expect(aligned.words[0]!.confidence).toBeLessThan(aligned.words[1]!.confidence);
  });

  it('skips words without tokens and says when the frames are too few', () => {
    const aligned = forceAlign('xyz a', scoresOf(['a', '<b>']), VOCAB);
    expect(aligned.skippedWords).toBe(1);
    expect(aligned.words.map((w) => [w.index, w.text])).toEqual([[1, 'a']]);
    expect(forceAlign('aa a', scoresOf(['a', 'a']), VOCAB).feasible).toBe(false);
  });
});
