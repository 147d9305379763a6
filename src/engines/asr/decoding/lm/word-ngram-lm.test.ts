import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { salamBigramWordLm } from '../../../../../test/helpers/word-lm-file.js';
import { buildCharNgramLm } from './char-ngram-builder.js';
import { LanguageModelFormatError, writeLmChecksum } from './lm-file.js';
import { readWordLmHeader, WORD_BOS, WORD_EOS, WORD_LM_HEADER_BYTES, WORD_UNK, WordNgramLm } from './word-ngram-lm.js';

// The bigram model of test/helpers/word-lm-file.ts (its comment gives every probability).
const bytes = salamBigramWordLm();

describe('WordNgramLm', () => {
  const lm = WordNgramLm.fromBytes(bytes);
  const salam = lm.id('ሰላም');
  const new_ = lm.id('ነው');

  it('looks words up in the sorted vocabulary, <unk> for every other string', () => {
    expect(lm.order).toBe(2);
    expect(lm.words).toBe(5);
    expect(salam).toBeGreaterThan(WORD_EOS);
    expect(new_).toBeGreaterThan(WORD_EOS);
    expect(lm.word(salam)).toBe('ሰላም');
    expect(lm.word(new_)).toBe('ነው');
    for (const other of ['', 'ሰላ', 'ሰላምም', 'ቤት', 'ነ', 'ው']) expect(lm.id(other)).toBe(WORD_UNK);
  });

  it('returns stored probabilities and backs off with the stored weights', () => {
    expect(Math.exp(lm.logProb([WORD_BOS], salam))).toBeCloseTo(0.7, 6);
    expect(Math.exp(lm.logProb([salam], new_))).toBeCloseTo(0.6, 6);
    expect(Math.exp(lm.logProb([WORD_BOS], new_))).toBeCloseTo(0.5 * 0.2, 6);
    expect(Math.exp(lm.logProb([salam], WORD_UNK))).toBeCloseTo(0.2 * 0.1, 6);
    // Unseen context (no bigram starts with ነው; <unk> as context): the unigram.
    expect(Math.exp(lm.logProb([new_], salam))).toBeCloseTo(0.4, 6);
    expect(Math.exp(lm.logProb([WORD_UNK], WORD_EOS))).toBeCloseTo(0.3, 6);
    // Only the last order-1 words of a longer context count.
    expect(lm.logProb([new_, WORD_BOS], salam)).toBe(lm.logProb([WORD_BOS], salam));
  });

  it('gives distributions that sum to one in every context', () => {
    for (const context of [[], [WORD_BOS], [salam], [new_], [WORD_UNK]]) {
      let sum = 0;
      for (let w = 0; w < lm.words; w++) if (w !== WORD_BOS) sum += Math.exp(lm.logProb(context, w));
      expect(sum).toBeCloseTo(1, 6);
    }
  });

  it('loads from a file with memory equal to the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wlm-'));
    try {
      const file = join(dir, 'w.bin');
      await writeFile(file, bytes);
      const fromFile = await WordNgramLm.load(file);
      expect(fromFile.byteLength).toBe(bytes.length);
      expect(fromFile.counts()).toEqual([5, 3]);
      expect(fromFile.logProb([salam], new_)).toBe(lm.logProb([salam], new_));
      expect(readWordLmHeader(bytes).order).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects corrupt, truncated, unsorted and foreign files with a clear error', () => {
    const flipped = bytes.slice();
    flipped[bytes.length - 3]! ^= 0xff;
    expect(() => WordNgramLm.fromBytes(flipped, 'w.bin')).toThrow(/checksum mismatch/);
    const short = bytes.slice(0, bytes.length - 8);
    writeLmChecksum(short, WORD_LM_HEADER_BYTES);
    expect(() => WordNgramLm.fromBytes(short, 'w.bin')).toThrow(/truncated/);
    // Swap the two words' first code units (ሰ <-> ነ): the vocabulary is then out of order.
    const swapped = bytes.slice();
    const view = new DataView(swapped.buffer);
    const units = WORD_LM_HEADER_BYTES + 4 * 6;
    const first = view.getUint16(units, true);
    const second = view.getUint16(units + 2 * 3, true);
    view.setUint16(units, second, true);
    view.setUint16(units + 2 * 3, first, true);
    writeLmChecksum(swapped, WORD_LM_HEADER_BYTES);
    expect(() => WordNgramLm.fromBytes(swapped, 'w.bin')).toThrow(/not strictly sorted/);
    expect(() => WordNgramLm.fromBytes(buildCharNgramLm(['ሰላም'], { order: 2, minCharCount: 1 }).bytes, 'c.bin')).toThrow(LanguageModelFormatError);
    expect(() => WordNgramLm.fromBytes(buildCharNgramLm(['ሰላም'], { order: 2, minCharCount: 1 }).bytes, 'c.bin')).toThrow(/magic "HNLM"/);
  });
});
