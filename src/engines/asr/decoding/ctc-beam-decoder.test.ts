import { describe, expect, it } from 'vitest';
import { ctcFrames } from '../../../../test/helpers/ctc-frames.js';
import { salamBigramWordLm } from '../../../../test/helpers/word-lm-file.js';
import { buildCharNgramLm } from './lm/char-ngram-builder.js';
import { CharNgramLm } from './lm/char-ngram-lm.js';
import { WordNgramLm } from './lm/word-ngram-lm.js';
import { alignTokens } from './ctc-alignment.js';
import { CtcBeamDecoder } from './ctc-beam-decoder.js';
import { CtcGreedyDecoder } from './ctc-greedy-decoder.js';
import type { CtcScores } from './ctc-types.js';

const tokens = ['<blank>', '|', 'ሰ', 'ላ', 'ም', 'ሞ', 'ነ', 'ው'];
const vocabulary = { tokens, blankId: 0, wordDelimiter: '|' };
const id = (t: string): number => tokens.indexOf(t);

/** Frames of probabilities (each row: token -> p, rest spread evenly), as log-probabilities. */
const frames = (rows: Array<Record<string, number>>): CtcScores => ctcFrames(tokens, rows);

function randomPeaky(seed: number, T: number): CtcScores {
  let s = seed;
  const rand = (): number => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  const V = tokens.length;
  const data = new Float32Array(T * V);
  for (let t = 0; t < T; t++) {
    const top = rand() < 0.5 ? 0 : Math.floor(rand() * V);
    for (let v = 0; v < V; v++) data[t * V + v] = (v === top ? 4 : 0) + rand();
  }
  return { data, frames: T, vocabSize: V };
}

const lm = CharNgramLm.fromBytes(buildCharNgramLm(['ሰላም', 'ሰላም ነው', 'ሰላም ሰላም', 'ነው ሰላም'], { order: 3, minCharCount: 1 }).bytes);

describe('CtcBeamDecoder', () => {
  it('equals greedy decoding with beam 1 and no LM on peaked posteriors', () => {
    const greedy = new CtcGreedyDecoder(vocabulary);
    const beam = new CtcBeamDecoder(vocabulary, { beamWidth: 1 });
    for (let seed = 1; seed <= 20; seed++) {
      const scores = randomPeaky(seed, 60);
      const g = greedy.decode(scores);
      const b = beam.decode(scores);
      expect(b.text).toBe(g.text);
      expect(b.tokens.map((t) => t.id)).toEqual(g.tokens.map((t) => t.id));
    }
  });

  it('finds the exact most probable labelling when nothing is pruned (brute force over all paths)', () => {
    const small = { tokens: ['<blank>', 'a', 'b'], blankId: 0, wordDelimiter: null };
    const T = 6;
    for (let seed = 1; seed <= 10; seed++) {
      let x = seed;
      const data = Float32Array.from({ length: T * 3 }, () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 3);
      const logp = Array.from({ length: T }, (_, t) => {
        const z = Math.log([0, 1, 2].reduce((n, v) => n + Math.exp(data[t * 3 + v]!), 0));
        return [0, 1, 2].map((v) => data[t * 3 + v]! - z);
      });
      const byLabel = new Map<string, number>();
      for (let path = 0; path < 3 ** T; path++) {
        let label = '';
        let prev = 0;
        let lp = 0;
        for (let t = 0, p = path; t < T; t++, p = Math.floor(p / 3)) {
          const v = p % 3;
          lp += logp[t]![v]!;
          if (v !== 0 && v !== prev) label += small.tokens[v];
          prev = v;
        }
        byLabel.set(label, (byLabel.get(label) ?? 0) + Math.exp(lp));
      }
      const best = [...byLabel].reduce((a, b) => (b[1] > a[1] ? b : a))[0];
      const hyp = new CtcBeamDecoder(small, { beamWidth: 200, tokenMinLogProb: -Infinity, maxCandidates: 3, beamPruneLogProb: Infinity }).decode({
        data,
        frames: T,
        vocabSize: 3,
      });
      expect(hyp.tokens.map((t) => small.tokens[t.id]).join('')).toBe(best);
    }
  });

  it('finds the more probable labelling that best-path decoding misses', () => {
    // Each frame: blank 0.6, ሰ 0.4. Best path is blank-blank ("", 0.36); "ሰ" sums to 0.64.
    const scores = frames([
      { '<blank>': 0.6, ሰ: 0.4 },
      { '<blank>': 0.6, ሰ: 0.4 },
    ]);
    expect(new CtcGreedyDecoder(vocabulary).decode(scores).text).toBe('');
    const hyp = new CtcBeamDecoder(vocabulary, { beamWidth: 4 }).decode(scores);
    expect(hyp.text).toBe('ሰ');
    expect(hyp.tokens[0]!.startFrame).toBeGreaterThanOrEqual(0);
  });

  it('lets the LM choose between acoustically close hypotheses', () => {
    const scores = frames([{ ሰ: 0.95 }, { '<blank>': 0.95 }, { ላ: 0.95 }, { '<blank>': 0.95 }, { ሞ: 0.5, ም: 0.45 }, { '<blank>': 0.95 }]);
    expect(new CtcBeamDecoder(vocabulary, { beamWidth: 8 }).decode(scores).text).toBe('ሰላሞ');
    const withLm = new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: { model: lm, alpha: 0.5, beta: 0 } }).decode(scores);
    expect(withLm.text).toBe('ሰላም');
    // Times and confidence survive: ም spans frame 4.
    expect(withLm.tokens.map((t) => [tokens[t.id], t.startFrame, t.endFrame])).toEqual([
      ['ሰ', 0, 1],
      ['ላ', 2, 3],
      ['ም', 4, 5],
    ]);
    expect(withLm.tokens[2]!.probability).toBeCloseTo(0.45, 2);
    expect(withLm.words).toHaveLength(1);
  });

  it('splits words at the delimiter with frame times', () => {
    const scores = frames([{ ሰ: 0.9 }, { ሰ: 0.9 }, { '|': 0.9 }, { ነ: 0.9 }, { '<blank>': 0.9 }, { ው: 0.9 }, { ው: 0.9 }]);
    const hyp = new CtcBeamDecoder(vocabulary, { beamWidth: 4, lm: { model: lm, alpha: 0.3, beta: 0.5 } }).decode(scores);
    expect(hyp.text).toBe('ሰ ነው');
    expect(hyp.words.map((w) => [w.text, w.startFrame, w.endFrame])).toEqual([
      ['ሰ', 0, 2],
      ['ነው', 3, 7],
    ]);
  });

  it('decodes empty input to no text', () => {
    const decoder = new CtcBeamDecoder(vocabulary, { beamWidth: 6, lm: { model: lm, alpha: 0.5, beta: 0.2 } });
    expect(decoder.decode({ data: new Float32Array(0), frames: 0, vocabSize: tokens.length }).text).toBe('');
  });

  it('maps Oromo tokens to a lower-cased LM, keeps the apostrophe and skips unknown marks', () => {
    const omTokens = ['<blank>', '|', 'G', 'g', 'a', 'e', "'", '.'];
    const omVocabulary = { tokens: omTokens, blankId: 0, wordDelimiter: '|' };
    const omLm = CharNgramLm.fromBytes(buildCharNgramLm(["ga'e", "ga'e ga'e", 'gaa'], { order: 4, minCharCount: 1, flags: 1 }).bytes);
    const V = omTokens.length;
    const row = (probs: Record<string, number>): number[] => omTokens.map((t) => Math.log(probs[t] ?? 0.01));
    // "G a ' e ." with the apostrophe frame acoustically tied with "a".
    const rows = [
      row({ G: 0.9 }),
      row({ '<blank>': 0.9 }),
      row({ a: 0.9 }),
      row({ '<blank>': 0.9 }),
      row({ a: 0.45, "'": 0.44 }),
      row({ '<blank>': 0.9 }),
      row({ e: 0.9 }),
      row({ '.': 0.9 }),
    ];
    const scores = { data: Float32Array.from(rows.flat()), frames: rows.length, vocabSize: V };
    expect(new CtcBeamDecoder(omVocabulary, { beamWidth: 8 }).decode(scores).text).toBe('Gaae.');
    expect(new CtcBeamDecoder(omVocabulary, { beamWidth: 8, lm: { model: omLm, alpha: 1, beta: 0 } }).decode(scores).text).toBe("Ga'e.");
  });

  it('leaves word delimiters to the acoustics with a letters-only LM (no space symbol)', () => {
    const letters = CharNgramLm.fromBytes(buildCharNgramLm(['ሰላምነው', 'ሰላምነው', 'ሰላም'], { order: 4, minCharCount: 1 }).bytes);
    expect(letters.symbol(' ')).toBe(0); // <unk>: the LM has no space
    // "ሰ ላ ም | ነ ው", the delimiter frame only 0.6 likely: a delimiter costing p(<unk>) at a high
    // weight would be dropped; a transparent one is kept, and the LM context runs across it.
    const scores = frames([{ ሰ: 0.9 }, { ላ: 0.9 }, { ም: 0.9 }, { '|': 0.6, '<blank>': 0.39 }, { ሞ: 0.45, ነ: 0.44 }, { ው: 0.9 }]);
    expect(new CtcBeamDecoder(vocabulary, { beamWidth: 8 }).decode(scores).text).toBe('ሰላም ሞው');
    expect(new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: { model: letters, alpha: 3, beta: 0 } }).decode(scores).text).toBe('ሰላም ነው');
  });

  it('aligns a label sequence to its frames', () => {
    const scores = frames([{ ሰ: 0.9 }, { ሰ: 0.9 }, { '<blank>': 0.9 }, { ሰ: 0.9 }]);
    const aligned = alignTokens([id('ሰ'), id('ሰ')], scores.data, 4, tokens.length, 0);
    expect(aligned.map((t) => [t.startFrame, t.endFrame])).toEqual([
      [0, 2],
      [3, 4],
    ]);
  });
});

// Word LM (test/helpers/word-lm-file.ts): vocabulary ሰላም, ነው; p(ሰላም | <s>) 0.7, p(<unk> | <s>) 0.05, p(ነው | ሰላም) 0.6, p(<unk> | ሰላም) 0.02.
const wordLm = WordNgramLm.fromBytes(salamBigramWordLm());
const repeat = (text: string, n: number): string[] => Array.from({ length: n }, () => text);

describe('CtcBeamDecoder word fusion', () => {
  // ም and ሞ tie for the character LM; the acoustics lean to ሞ.
  const evenLm = CharNgramLm.fromBytes(buildCharNgramLm([...repeat('ሰላም ነው', 5), ...repeat('ሰላሞ ነው', 5)], { order: 4, minCharCount: 1 }).bytes);

  it('adds nothing with weight 0 and no bonus: the same text as the character LM alone', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const scores = randomPeaky(seed, 50);
      const char = new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: { model: lm, alpha: 0.7, beta: 1 } }).decode(scores);
      const fused = new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: { model: lm, alpha: 0.7, beta: 1, word: { model: wordLm, weight: 0, mode: 'add' } } });
      expect(fused.decode(scores).text).toBe(char.text);
    }
  });

  it('lets the word LM pick the in-vocabulary word at a delimiter and at the end', () => {
    const atEnd = frames([{ ሰ: 0.95 }, { '<blank>': 0.95 }, { ላ: 0.95 }, { '<blank>': 0.95 }, { ሞ: 0.5, ም: 0.45 }, { '<blank>': 0.95 }]);
    const midway = frames([{ ሰ: 0.95 }, { ላ: 0.95 }, { ሞ: 0.5, ም: 0.45 }, { '|': 0.95 }, { ነ: 0.95 }, { ው: 0.95 }]);
    const charOnly = new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: { model: evenLm, alpha: 1, beta: 0 } });
    expect(charOnly.decode(atEnd).text).toBe('ሰላሞ');
    expect(charOnly.decode(midway).text).toBe('ሰላሞ ነው');
    for (const mode of ['add', 'replace'] as const) {
      const fused = new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: { model: evenLm, alpha: 1, beta: 0, word: { model: wordLm, weight: 1, mode } } });
      expect(fused.decode(atEnd).text).toBe('ሰላም');
      expect(fused.decode(midway).text).toBe('ሰላም ነው');
    }
  });

  it('replace takes back the character score of in-vocabulary words, add keeps it', () => {
    // The character LM strongly prefers ሰላሞ (40:1), more than the word LM prefers ሰላም over <unk> (14:1).
    const skewed = CharNgramLm.fromBytes(buildCharNgramLm([...repeat('ሰላሞ', 40), 'ሰላም'], { order: 4, minCharCount: 1 }).bytes);
    const tied = frames([{ ሰ: 0.95 }, { '<blank>': 0.95 }, { ላ: 0.95 }, { '<blank>': 0.95 }, { ሞ: 0.47, ም: 0.47 }, { '<blank>': 0.95 }]);
    const decode = (mode: 'add' | 'replace'): string =>
      new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: { model: skewed, alpha: 1, beta: 0, word: { model: wordLm, weight: 1, mode } } }).decode(tied).text;
    expect(decode('add')).toBe('ሰላሞ');
    expect(decode('replace')).toBe('ሰላም');
  });

  it('charges a per-word bonus: a large penalty joins words, a large bonus splits them', () => {
    const gap = frames([{ ሰ: 0.95 }, { ላ: 0.95 }, { ም: 0.95 }, { '|': 0.5, '<blank>': 0.45 }, { ነ: 0.95 }, { ው: 0.95 }]);
    const decode = (bonus: number): string =>
      new CtcBeamDecoder(vocabulary, { beamWidth: 8, lm: { model: evenLm, alpha: 0, beta: 0, word: { model: wordLm, weight: 0, mode: 'add', bonus } } }).decode(
        gap,
      ).text;
    expect(decode(0)).toBe('ሰላም ነው');
    expect(decode(-5)).toBe('ሰላምነው');
    // A large bonus buys a delimiter even where the acoustics put a letter.
    expect(decode(5).split(' ').length).toBeGreaterThan(2);
  });
});
