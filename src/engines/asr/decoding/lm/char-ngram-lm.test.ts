import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildCharNgramLm } from './char-ngram-builder.js';
import { BOS, CharNgramLm, EOS, readLmHeader, UNK } from './char-ngram-lm.js';
import { LanguageModelFormatError } from './lm-file.js';

const corpus = ['ሰላም ነው', 'ሰላም ነህ', 'ሰው ነው', 'ቤት ነው', 'ሰላም ሰላም', 'ልጅ ቤት ሄደ', 'ሰላም'];

function sumOver(lm: CharNgramLm, context: number[]): number {
  let sum = 0;
  for (let s = 0; s < lm.symbols; s++) if (s !== BOS) sum += Math.exp(lm.logProb(context, s));
  return sum;
}

describe('CharNgramLm', () => {
  it('matches interpolated Witten-Bell on a hand-computed example', () => {
    const lm = CharNgramLm.fromBytes(buildCharNgramLm(['ab', 'ab', 'b'], { order: 2, minCharCount: 1 }).bytes);
    const a = lm.symbol('a');
    const b = lm.symbol('b');
    // unigrams: a 2, b 3, </s> 3; c = 8, T = 3, uniform over 4 symbols (<unk> a b </s>).
    const pb = (3 + 3 / 4) / 11;
    expect(Math.exp(lm.logProb([], a))).toBeCloseTo(2.75 / 11, 6);
    expect(Math.exp(lm.logProb([], UNK))).toBeCloseTo(0.75 / 11, 6);
    // after a: c(a) = 2 continuations, all "b": T = 1.
    expect(Math.exp(lm.logProb([a], b))).toBeCloseTo((2 + pb) / 3, 6);
    // unseen after a: backoff weight T / (c + T) = 1/3 times the unigram.
    expect(Math.exp(lm.logProb([a], a))).toBeCloseTo((1 / 3) * (2.75 / 11), 6);
  });

  it('gives distributions that sum to one, seen and unseen contexts, pruned or not', () => {
    for (const minCounts of [undefined, [1, 1, 2, 2]]) {
      const lm = CharNgramLm.fromBytes(buildCharNgramLm(corpus, { order: 4, minCharCount: 1, minCounts }).bytes);
      const sym = (text: string): number[] => Array.from(text, (c) => lm.symbol(c));
      for (const context of [[], [BOS], [BOS, ...sym('ሰላ')], sym('ም ነ'), sym('ውው'), [UNK, UNK, UNK]]) {
        expect(sumOver(lm, context)).toBeCloseTo(1, 5);
      }
    }
  });

  it('prefers seen continuations and uses backoff for unseen ones', () => {
    const lm = CharNgramLm.fromBytes(buildCharNgramLm(corpus, { order: 3, minCharCount: 1 }).bytes);
    const [sa, la, ma] = Array.from('ሰላም', (c) => lm.symbol(c));
    expect(lm.logProb([sa!, la!], ma!)).toBeGreaterThan(Math.log(0.5));
    expect(lm.logProb([sa!, la!], lm.symbol('ቤ'))).toBeLessThan(lm.logProb([], lm.symbol('ቤ')));
    expect(lm.symbol('x')).toBe(UNK);
    expect(Number.isFinite(lm.sentenceLogProb(Array.from('ሰላም', (c) => lm.symbol(c))))).toBe(true);
    expect(lm.logProb([sa!], EOS)).toBeLessThan(0);
  });

  it('round-trips through a file and is read back identically', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lm-'));
    try {
      const { bytes, report } = buildCharNgramLm(corpus, { order: 5, minCharCount: 1, flags: 1 });
      const file = join(dir, 'x.bin');
      await writeFile(file, bytes);
      const fromFile = await CharNgramLm.load(file);
      const fromMemory = CharNgramLm.fromBytes(bytes);
      expect(fromFile.order).toBe(5);
      expect(fromFile.lowercase).toBe(true);
      expect(fromFile.counts()).toEqual(report.counts);
      expect(fromFile.byteLength).toBe(report.bytes);
      const sym = Array.from('ሰላም ነው', (c) => fromFile.symbol(c));
      expect(fromFile.sentenceLogProb(sym)).toBe(fromMemory.sentenceLogProb(sym));
      expect(readLmHeader(bytes).order).toBe(5);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects corrupt, truncated and foreign files with a clear error', () => {
    const { bytes } = buildCharNgramLm(corpus, { order: 3, minCharCount: 1 });
    const flipped = bytes.slice();
    flipped[bytes.length - 5]! ^= 0xff;
    expect(() => CharNgramLm.fromBytes(flipped, 'x.bin')).toThrow(/checksum mismatch/);
    expect(() => CharNgramLm.fromBytes(bytes.subarray(0, bytes.length - 8), 'x.bin')).toThrow(/truncated/);
    expect(() => CharNgramLm.fromBytes(new TextEncoder().encode('\\data\\\nngram 1=3\n'.padEnd(80)), 'lm.arpa')).toThrow(LanguageModelFormatError);
    const version = bytes.slice();
    version[4] = 9;
    expect(() => CharNgramLm.fromBytes(version, 'x.bin')).toThrow(/version 9/);
  });
});
