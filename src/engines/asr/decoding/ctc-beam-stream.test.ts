import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/helpers/fixtures.js';
import { salamBigramWordLm } from '../../../../test/helpers/word-lm-file.js';
import { buildCharNgramLm } from './lm/char-ngram-builder.js';
import { CharNgramLm } from './lm/char-ngram-lm.js';
import { WordNgramLm } from './lm/word-ngram-lm.js';
import { type BeamSearchOptions, CtcBeamDecoder } from './ctc-beam-decoder.js';
import { CtcBeamStream } from './ctc-beam-stream.js';
import type { CtcScores, CtcVocabulary } from './ctc-types.js';
import { KeytermBias } from './keyterm-bias.js';

const tokens = ['<blank>', '|', 'ሰ', 'ላ', 'ም', 'ሞ', 'ነ', 'ው'];
const small: CtcVocabulary = { tokens, blankId: 0, wordDelimiter: '|' };
const smallLm = CharNgramLm.fromBytes(buildCharNgramLm(['ሰላም', 'ሰላም ነው', 'ሰላም ሰላም', 'ነው ሰላም'], { order: 3, minCharCount: 1 }).bytes);
const wordLm = WordNgramLm.fromBytes(salamBigramWordLm());

// The shipped Amharic character LM with small-am-v2's vocabulary.
const amTokens = readFileSync(join(REPO_ROOT, 'models', 'small-am-v2', 'vocab.txt'), 'utf8')
  .split('\n')
  .filter(Boolean);
const am: CtcVocabulary = { tokens: amTokens, blankId: 0, wordDelimiter: '|' };
const amLm = CharNgramLm.fromBytes(readFileSync(join(REPO_ROOT, 'models', 'lm', 'am-char-5gram.bin')));

/** Random logits (seeded): half the frames lean to blank, the rest to a token, each with a close runner-up. */
function randomLogits(seed: number, frames: number, vocabulary: CtcVocabulary, pool: readonly number[]): CtcScores {
  let s = seed;
  const rand = (): number => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  const V = vocabulary.tokens.length;
  const pick = (): number => (rand() < 0.45 ? vocabulary.blankId : pool[Math.floor(rand() * pool.length)]!);
  const data = new Float32Array(frames * V);
  for (let t = 0; t < frames; t++) {
    for (let v = 0; v < V; v++) data[t * V + v] = rand();
    data[t * V + pick()]! += 7 + rand();
    data[t * V + pick()]! += 6.5 + rand();
  }
  return { data, frames, vocabSize: V };
}

const rows = (scores: CtcScores, from: number, to: number): Float32Array => scores.data.subarray(from * scores.vocabSize, to * scores.vocabSize);
const prefix = (scores: CtcScores, frames: number): CtcScores => ({ data: rows(scores, 0, frames), frames, vocabSize: scores.vocabSize });

/** Chunk sizes 1, 3, 17 and random ones (1..25), in a seeded order, up to `frames`. */
function chunks(seed: number, frames: number): number[] {
  let s = seed * 7919 + 1;
  const sizes: number[] = [];
  for (let done = 0; done < frames; ) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const size = Math.min(frames - done, [1, 3, 17, 1 + (s % 25)][s % 4]!);
    sizes.push(size);
    done += size;
  }
  return sizes;
}

/**
 * Two streams of `decoder` fed the same chunks of `scores` (chunks(seed)); `afterChunk` runs after
 * each with both and the frames fed so far (it may peek at `tested`; `plain` is the control).
 */
function twinStreams(
  decoder: CtcBeamDecoder,
  scores: CtcScores,
  seed: number,
  afterChunk: (tested: CtcBeamStream, plain: CtcBeamStream, done: number) => void,
): { tested: CtcBeamStream; plain: CtcBeamStream } {
  const tested = new CtcBeamStream(decoder);
  const plain = new CtcBeamStream(decoder);
  let done = 0;
  for (const size of chunks(seed, scores.frames)) {
    tested.advance(rows(scores, done, done + size), size);
    plain.advance(rows(scores, done, done + size), size);
    done += size;
    afterChunk(tested, plain, done);
  }
  return { tested, plain };
}

interface Case {
  readonly name: string;
  readonly vocabulary: CtcVocabulary;
  readonly options: BeamSearchOptions;
  /** Tokens the random frames lean to besides the blank. */
  readonly pool: readonly number[];
}

const amPool = ['|', 'ሰ', 'ላ', 'ም', 'ነ', 'ው', 'አ', 'ዲ', 'ስ', 'በ', 'ት', 'ያ'].map((t) => amTokens.indexOf(t));
const cases: Case[] = [
  {
    name: 'shipped am 5-gram LM + keyterms, beam 16',
    vocabulary: am,
    options: { beamWidth: 16, lm: { model: amLm, alpha: 0.5, beta: 2.5 }, keyterms: new KeytermBias(['አዲስ', 'ሰላም'], am, { perChar: 2.5, completion: 2 }) },
    pool: amPool,
  },
  {
    name: 'small char LM + word LM (replace) + keyterms, beam 8',
    vocabulary: small,
    options: {
      beamWidth: 8,
      lm: { model: smallLm, alpha: 0.7, beta: 1, word: { model: wordLm, weight: 1, mode: 'replace', bonus: 0.5 } },
      keyterms: new KeytermBias(['ሰላሞ'], small, { perChar: 1, completion: 2 }),
    },
    pool: [1, 2, 3, 4, 5, 6, 7],
  },
  { name: 'no LM, beam 4', vocabulary: small, options: { beamWidth: 4 }, pool: [1, 2, 3, 4, 5, 6, 7] },
];

describe('CtcBeamStream', () => {
  for (const c of cases) {
    describe(c.name, () => {
      const decoder = new CtcBeamDecoder(c.vocabulary, c.options);

      it('advance in chunks of any size + finish is exactly decode over all frames', () => {
        for (let seed = 1; seed <= 4; seed++) {
          const scores = randomLogits(seed, 150, c.vocabulary, c.pool);
          const stream = new CtcBeamStream(decoder);
          let done = 0;
          for (const size of chunks(seed, scores.frames)) {
            stream.advance(rows(scores, done, done + size), size);
            done += size;
          }
          const expected = decoder.decode(scores);
          expect(expected.tokens.length).toBeGreaterThan(10);
          expect(stream.finish()).toEqual(expected);
        }
      });

      it('peek(tail) is exactly decode(committed + tail) and leaves the stream as it was', () => {
        for (let seed = 11; seed <= 12; seed++) {
          const scores = randomLogits(seed, 120, c.vocabulary, c.pool);
          const { tested, plain } = twinStreams(decoder, scores, seed, (peeking, plain, done) => {
            const tail = Math.min(scores.frames - done, 40);
            expect(peeking.peek(rows(scores, done, done + tail), tail)).toEqual(decoder.decode(prefix(scores, done + tail)));
            expect(peeking.peek()).toEqual(decoder.decode(prefix(scores, done)));
            // the text alone, without the alignment
            expect(peeking.peekText(rows(scores, done, done + tail), tail)).toBe(decoder.decode(prefix(scores, done + tail)).text);
            expect(peeking.stablePrefix()).toEqual(plain.stablePrefix());
          });
          expect(tested.finish()).toEqual(plain.finish());
        }
      });

      it('peekText with a narrower tail beam changes only that peek: later peeks, the stable prefix and finish are as without it', () => {
        const width = c.options.beamWidth;
        let differs = 0;
        for (let seed = 31; seed <= 33; seed++) {
          const scores = randomLogits(seed, 120, c.vocabulary, c.pool);
          const { tested, plain } = twinStreams(decoder, scores, seed, (narrowed, plain, done) => {
            const tail = Math.min(scores.frames - done, 40);
            const tailRows = rows(scores, done, done + tail);
            const full = plain.peekText(tailRows, tail);
            // the decoder's own width is the plain peek
            expect(narrowed.peekText(tailRows, tail, width)).toBe(full);
            if (narrowed.peekText(tailRows, tail, 1) !== full) differs++;
            // no tail: nothing to narrow
            expect(narrowed.peekText(new Float32Array(0), 0, 1)).toBe(plain.peekText());
            expect(narrowed.peekText(tailRows, tail)).toBe(full);
            expect(narrowed.stablePrefix()).toEqual(plain.stablePrefix());
          });
          expect(tested.finish()).toEqual(plain.finish());
        }
        // not vacuous: a beam of 1 over the tail reads differently somewhere (beam 4 without an LM rarely does)
        if (width > 4) expect(differs).toBeGreaterThan(0);
      });

      it('refuses a tail beam narrower than 1 or wider than the decoder', () => {
        const stream = new CtcBeamStream(decoder);
        const tail = randomLogits(41, 5, c.vocabulary, c.pool);
        expect(() => stream.peekText(tail.data, 5, 0)).toThrow(RangeError);
        expect(() => stream.peekText(tail.data, 5, c.options.beamWidth + 1)).toThrow(RangeError);
        expect(() => stream.peekText(tail.data, 5, 1.5)).toThrow(RangeError);
        expect(() => stream.peekText(tail.data, 5, 1)).not.toThrow();
      });

      it("stablePrefix grows monotonically and starts every later peek's and the final labels", () => {
        let nonTrivial = 0;
        for (let seed = 21; seed <= 24; seed++) {
          const scores = randomLogits(seed, 150, c.vocabulary, c.pool);
          const stream = new CtcBeamStream(decoder);
          const stable: (readonly number[])[] = [];
          let lastText = '';
          let done = 0;
          for (const size of chunks(seed, scores.frames)) {
            stream.advance(rows(scores, done, done + size), size);
            done += size;
            const now = stream.stablePrefix();
            const previous = stable.at(-1) ?? [];
            expect(now.labels.slice(0, previous.length)).toEqual(previous);
            const peeked = stream.peek(rows(scores, done, scores.frames), scores.frames - done).tokens.map((t) => t.id);
            expect(peeked.slice(0, now.labels.length)).toEqual(now.labels);
            stable.push(now.labels);
            lastText = now.text;
          }
          const final = stream.finish();
          const labels = final.tokens.map((t) => t.id);
          for (const s of stable) expect(labels.slice(0, s.length)).toEqual(s);
          // Not vacuous: the beam agreed on something while some of the final was still open.
          if (stable.some((s) => s.length > 0 && s.length < labels.length)) nonTrivial++;
          expect(final.text.startsWith(lastText)).toBe(true);
        }
        expect(nonTrivial).toBeGreaterThan(2);
      });
    });
  }

  it('gives the text of the stable labels, words joined by a space', () => {
    const decoder = new CtcBeamDecoder(small, { beamWidth: 1 });
    const stream = new CtcBeamStream(decoder);
    const V = tokens.length;
    const frame = (token: string): number[] => tokens.map((t) => (t === token ? 5 : 0));
    const data = Float32Array.from(['ሰ', 'ላ', 'ም', '|', 'ነ', 'ው'].flatMap(frame));
    stream.advance(data, data.length / V);
    expect(stream.stablePrefix()).toEqual({ labels: [2, 3, 4, 1, 6, 7], text: 'ሰላም ነው' });
  });

  it('checks its input and is closed by finish', () => {
    const stream = new CtcBeamStream(new CtcBeamDecoder(small, { beamWidth: 4 }));
    expect(() => stream.advance(new Float32Array(tokens.length), 2)).toThrow(RangeError);
    expect(() => stream.peek(new Float32Array(tokens.length), 1.5)).toThrow(RangeError);
    expect(stream.finish().text).toBe('');
    expect(() => stream.advance(new Float32Array(tokens.length), 1)).toThrow(/finished/);
    expect(() => stream.stablePrefix()).toThrow(/finished/);
  });
});
