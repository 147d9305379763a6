import { describe, expect, it } from 'vitest';
import { checkKeyterms, foldForBias, KeytermBias, type BiasState } from './keyterm-bias.js';

const latin = { tokens: ['<blank>', '|', 'a', 'b', 'c', 'd', 'A', 'B', "'", '.', '<unk>'], blankId: 0, wordDelimiter: '|' };
const weights = { perChar: 1, completion: 5 };

/** Walks `text` (one token per character, space = delimiter) and returns every state. */
function walk(bias: KeytermBias, text: string, vocabulary = latin): BiasState[] {
  const states = [bias.root];
  for (const ch of text) {
    const token = vocabulary.tokens.indexOf(ch === ' ' ? '|' : ch);
    if (token < 0) throw new Error(`no token ${ch}`);
    states.push(bias.next(states[states.length - 1]!, token));
  }
  return states;
}

const scores = (states: BiasState[]): number[] => states.map((s) => s.score);

describe('KeytermBias', () => {
  it('gives the per-character bonus along a path and takes it back when the prefix leaves it', () => {
    const bias = new KeytermBias(['abc'], latin, weights);
    const states = walk(bias, 'abd');
    expect(scores(states)).toEqual([0, 1, 2, 0]);
    expect(bias.final(states[3]!)).toBe(0);
  });

  it('takes back only what the abandoned part earned: a suffix still on a path keeps its bonus', () => {
    // "aab": after "aa" the second a starts "ab" again (failure link to depth 1).
    const bias = new KeytermBias(['abc'], latin, weights);
    expect(scores(walk(bias, 'aab'))).toEqual([0, 1, 1, 2]);
  });

  it('locks in completion + per-character bonus when a term is written, kept at the end', () => {
    const bias = new KeytermBias(['abc'], latin, weights);
    const states = walk(bias, 'abcd');
    // a, b: 1, 2; c completes: +1 (path) +5 +3 (locked), then back to the root (-3).
    expect(scores(states)).toEqual([0, 1, 2, 8, 8]);
    expect(bias.final(states[4]!)).toBe(8);
  });

  it('takes back an unfinished path at the end of the utterance', () => {
    const bias = new KeytermBias(['abc'], latin, weights);
    const states = walk(bias, 'dab');
    expect(states[3]!.score).toBe(2);
    expect(bias.final(states[3]!)).toBe(0);
  });

  it('keeps going into a longer term after a shorter one completes', () => {
    const bias = new KeytermBias(['ab', 'abcd'], latin, weights);
    const full = walk(bias, 'abcd');
    // ab completes (+5 +2 locked); c, d go on; abcd completes (+5 +4 locked) and returns to the root.
    expect(bias.final(full[4]!)).toBe(7 + 9);
    const cut = walk(bias, 'abd');
    expect(bias.final(cut[3]!)).toBe(7);
  });

  it('matches across a word delimiter only where the term has a space; repeated delimiters count once', () => {
    const bias = new KeytermBias(['ab cd'], latin, weights);
    expect(bias.final(walk(bias, 'ab  cd')[6]!)).toBe(5 + 5);
    expect(bias.final(walk(bias, 'abcd')[4]!)).toBe(0);
  });

  it('folds case, punctuation and apostrophes; blank and specials are transparent', () => {
    const bias = new KeytermBias(["  A'b "], latin, weights);
    expect(bias.terms).toEqual(["a'b"]);
    const states = walk(bias, "AB'b");
    // A (a: 1), B (b: not after a' → root), ' (not a path start), b
    expect(bias.final(states[4]!)).toBe(0);
    const written = walk(bias, "a'B");
    expect(bias.final(written[3]!)).toBe(5 + 3);
    expect(bias.next(written[1]!, 0)).toBe(written[1]);
    expect(bias.next(written[1]!, latin.tokens.indexOf('<unk>'))).toBe(written[1]);
  });

  it('writes a term with the homophone the vocabulary has, and drops terms it cannot write', () => {
    const ethiopic = { tokens: ['<blank>', '|', 'ሀ', 'ረ', 'ር'], blankId: 0, wordDelimiter: '|' };
    const bias = new KeytermBias(['ሐረር', 'xyz', '!!'], ethiopic, weights);
    expect(bias.terms).toEqual(['ሀረር']);
    expect(bias.dropped).toEqual(['xyz', '!!']);
    const states = walk(bias, 'ሀረር', ethiopic);
    expect(bias.final(states[3]!)).toBe(5 + 3);
  });

  it('steps once per character of a multi-character token', () => {
    const pieces = { tokens: ['<blank>', '▁ab', 'c', 'x'], blankId: 0, wordDelimiter: null };
    const bias = new KeytermBias(['abc'], pieces, weights);
    const s1 = bias.next(bias.root, 1);
    expect(s1.score).toBe(2);
    expect(bias.final(bias.next(s1, 2))).toBe(5 + 3);
    expect(bias.final(bias.next(s1, 3))).toBe(0);
  });
});

describe('checkKeyterms', () => {
  it('cleans terms and drops duplicates', () => {
    expect(checkKeyterms(['  አዲስ   አበባ ', 'አዲስ አበባ', 'Finfinnee'])).toEqual({ keyterms: ['አዲስ አበባ', 'Finfinnee'] });
    // NFC: e + combining acute is one character.
    expect(checkKeyterms(['e\u0301'])).toEqual({ keyterms: ['\u00e9'] });
  });

  it('refuses more than 100 terms, empty terms and terms over 50 characters', () => {
    expect(checkKeyterms(Array.from({ length: 100 }, (_, i) => `t${i}`))).toHaveProperty('keyterms');
    expect(checkKeyterms(Array.from({ length: 101 }, (_, i) => `t${i}`))).toEqual({ reason: 'too_many', problem: 'must hold at most 100 items' });
    expect(checkKeyterms(['ok', '   '])).toEqual({ reason: 'empty', problem: 'must not be empty', index: 1 });
    expect(checkKeyterms(['ሀ'.repeat(50)])).toHaveProperty('keyterms');
    expect(checkKeyterms(['ሀ'.repeat(51)])).toMatchObject({ reason: 'too_long', index: 0 });
  });
});

describe('foldForBias', () => {
  it('lower-cases, keeps letters and in-word apostrophes, turns other marks into spaces', () => {
    expect(foldForBias('Ga’e, Finfinnee!')).toBe("ga'e finfinnee ");
    expect(foldForBias('ኢትዮጵያ።ሰላም')).toBe('ኢትዮጵያ ሰላም');
  });
});
