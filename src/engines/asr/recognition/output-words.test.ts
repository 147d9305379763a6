import { describe, expect, it } from 'vitest';
import { CtcGreedyDecoder } from '../decoding/ctc-greedy-decoder.js';
import type { CtcToken, CtcVocabulary } from '../decoding/ctc-types.js';
import { forOutput } from '../text/text-normalizer.js';
import { outputWords } from './output-words.js';

const VOCAB: CtcVocabulary = { tokens: ['<b>', '|', 'ሰ', 'ላ', 'ም', 'ቤ', 'ት', '።', 'a', 'b', 'A', 'B', '.', 'c'], blankId: 0, wordDelimiter: '|' };
const id = (symbol: string): number => VOCAB.tokens.indexOf(symbol);

/** Tokens for `symbols`, each on frames [2i, 2i+1) with probability `p`. */
function tokensOf(symbols: readonly string[], p = 0.8): CtcToken[] {
  return symbols.map((symbol, i) => ({ id: id(symbol), startFrame: 2 * i, endFrame: 2 * i + 1, probability: p }));
}

const timing = { frameMs: 40, startMs: 1000 };

describe('outputWords', () => {
  it('times each word by its tokens: first frame to the last token end, offset by the piece start', () => {
    const tokens = tokensOf(['ሰ', 'ላ', 'ም', '|', 'ቤ', 'ት']);
    expect(outputWords('ሰላም ቤት', tokens, VOCAB, timing)).toEqual([
      { text: 'ሰላም', start_ms: 1000, end_ms: 1000 + 5 * 40, confidence: 0.8 },
      { text: 'ቤት', start_ms: 1000 + 8 * 40, end_ms: 1000 + 11 * 40, confidence: 0.8 },
    ]);
  });

  it('keeps the words of the normalised text: a mark emitted as its own word joins the word before it and does not stretch it', () => {
    const tokens = tokensOf(['ሰ', 'ላ', 'ም', '|', '።', '|', 'ቤ', 'ት']);
    const text = forOutput('ሰላም ። ቤት', 'am');
    expect(text).toBe('ሰላም። ቤት');
    const words = outputWords(text, tokens, VOCAB, timing);
    expect(words.map((w) => w.text).join(' ')).toBe(text);
    expect(words[0]).toMatchObject({ start_ms: 1000, end_ms: 1200 });
    expect(words[1]).toMatchObject({ start_ms: 1000 + 12 * 40 });
  });

  it('splits a decoded word that the normaliser splits (a mark inside it), each part with its own tokens', () => {
    const tokens = tokensOf(['ሰ', 'ላ', 'ም', '።', 'ቤ', 'ት']);
    const text = forOutput('ሰላም።ቤት', 'am');
    expect(text).toBe('ሰላም። ቤት');
    const words = outputWords(text, tokens, VOCAB, timing);
    expect(words.map((w) => [w.text, w.start_ms, w.end_ms])).toEqual([
      ['ሰላም።', 1000, 1200],
      ['ቤት', 1000 + 8 * 40, 1000 + 11 * 40],
    ]);
  });

  it('follows true casing: a merged doubled letter and a capital after a full stop keep their tokens', () => {
    const tokens = tokensOf(['a', 'A', 'b', '.', '|', 'c', 'a', 'b']);
    const text = forOutput('aAb. cab', 'om', { trueCase: true });
    expect(text).toBe('Ab. Cab');
    const words = outputWords(text, tokens, VOCAB, timing);
    expect(words.map((w) => [w.text, w.start_ms, w.end_ms])).toEqual([
      ['Ab.', 1000, 1000 + 5 * 40],
      ['Cab', 1000 + 10 * 40, 1000 + 15 * 40],
    ]);
  });

  it("never ends a word after the piece's end (the last frame reaches past the audio, padding adds frames)", () => {
    const words = outputWords('ሰላም ቤት', tokensOf(['ሰ', 'ላ', 'ም', '|', 'ቤ', 'ት']), VOCAB, { ...timing, endMs: 1000 + 410 });
    expect(words.map((w) => [w.start_ms, w.end_ms])).toEqual([
      [1000, 1200],
      [1320, 1410],
    ]);
    const late = outputWords('ቤት', [{ id: id('ቤ'), startFrame: 20, endFrame: 21, probability: 0.5 }], VOCAB, { ...timing, endMs: 1500 });
    expect(late[0]).toMatchObject({ start_ms: 1500, end_ms: 1500 });
  });

  it('gives the mean probability of the word tokens as its confidence', () => {
    const tokens: CtcToken[] = [
      { id: id('ሰ'), startFrame: 0, endFrame: 1, probability: 0.9 },
      { id: id('ላ'), startFrame: 3, endFrame: 4, probability: 0.5 },
    ];
    expect(outputWords('ሰላ', tokens, VOCAB, timing)[0]!.confidence).toBe(0.7);
  });

  it('answers no words for empty text and places a lone symbol at the end of the word before it', () => {
    expect(outputWords('', [], VOCAB, timing)).toEqual([]);
    const words = outputWords('ሰላ -', tokensOf(['ሰ', 'ላ']), VOCAB, timing);
    expect(words[1]).toEqual({ text: '-', start_ms: words[0]!.end_ms, end_ms: words[0]!.end_ms, confidence: null });
  });

  it('agrees with the greedy decoder on real frames: words in order, inside the span, one per output word', () => {
    // 12 frames of logits: ሰ ሰ _ ላ ም | | ቤ _ ት _ _
    const path = ['ሰ', 'ሰ', '<b>', 'ላ', 'ም', '|', '|', 'ቤ', '<b>', 'ት', '<b>', '<b>'];
    const data = new Float32Array(path.length * VOCAB.tokens.length).fill(-5);
    path.forEach((symbol, t) => {
      data[t * VOCAB.tokens.length + id(symbol)] = 5;
    });
    const hypothesis = new CtcGreedyDecoder(VOCAB).decode({ data, frames: path.length, vocabSize: VOCAB.tokens.length });
    const text = forOutput(hypothesis.text, 'am');
    const words = outputWords(text, hypothesis.tokens, VOCAB, { frameMs: 40, startMs: 0 });
    expect(words.map((w) => [w.text, w.start_ms, w.end_ms])).toEqual([
      ['ሰላም', 0, 5 * 40],
      ['ቤት', 7 * 40, 10 * 40],
    ]);
    for (const w of words) expect(w.confidence).toBeGreaterThan(0.99);
  });
});
