import { describe, expect, it } from 'vitest';
import { comparableWords, countDegenerate, findDegeneracies, isDegenerate, longestLetterRun, repeatedNgram, visibleLength } from './degenerate-output.js';

const kinds = (output: string, source: string, tokens?: readonly string[]): string[] =>
  findDegeneracies(output, source, tokens === undefined ? {} : { tokens }).map((d) => d.kind);

describe('degenerate output', () => {
  it('flags the loop of issue 28 (en -> am) and passes a plain translation of the same sentence', () => {
    const source = 'The patient has a fever and a cough.';
    const looping = 'የምንምንምንንንንንንንንንንንንንንንንንንንንንንንንንንንንን';
    expect(kinds(looping, source)).toEqual(['letter-run', 'repeated-ngram']);
    expect(kinds(looping.repeat(3), source)).toEqual(['letter-run', 'repeated-ngram', 'too-long']);
    expect(findDegeneracies(looping, source)[0]).toEqual({ kind: 'letter-run', detail: `ን x${longestLetterRun(looping)[1]}` });
    expect(isDegenerate('ታካሚው ትኩሳት እና ሳል አለበት።', source)).toBe(false);
  });

  it('counts a letter run of 5 (case folded) but not 4, nor digits or punctuation', () => {
    expect(kinds('so goooood', 'so good')).toEqual(['letter-run']);
    expect(kinds('so gooood', 'so good')).toEqual([]);
    expect(kinds('AaAaA!', 'AaAaA!')).toEqual(['letter-run']);
    expect(kinds('1000000 birr ...... !!!!!', '1000000 birr ...... !!!!!')).toEqual([]);
    expect(longestLetterRun('ab1aaa2')).toEqual(['a', 3]);
    expect(longestLetterRun('12 !!')).toEqual(['', 0]);
  });

  it('finds a word n-gram three times in a row, punctuation and case aside, but not twice', () => {
    expect(findDegeneracies('He said: the the, The. fine', 'He said the fine thing')).toEqual([{ kind: 'repeated-ngram', detail: 'words "the" x3' }]);
    expect(kinds('a b c a b c a b c', 'a b c a b c a b c')).toEqual(['repeated-ngram']);
    expect(kinds('ለ ም ለ ም ለ ም', 'ለምለምለም ነው')).toEqual(['repeated-ngram']);
    expect(kinds('very very good and very good', 'very very good and very good')).toEqual([]);
    expect(kinds('a b a b x a b', 'a b a b x a b')).toEqual([]);
  });

  it('finds a repeated character unit inside a word, with a letter in the unit', () => {
    expect(findDegeneracies('hahaha', 'laugh out loud')).toEqual([{ kind: 'repeated-ngram', detail: 'characters "ha" x3' }]);
    expect(kinds('ምንምንምን', 'ምንምንምን ነው')).toEqual(['repeated-ngram']);
    expect(kinds('banana', 'banana')).toEqual([]);
    expect(kinds('1,000,000,000', '1,000,000,000')).toEqual([]);
  });

  it('checks model tokens when given', () => {
    const output = 'ab ab ab';
    expect(kinds('xyz', 'xyz', ['▁x', 'y', 'z'])).toEqual([]);
    expect(kinds('x yz yz', 'x yz yz', ['▁x', '▁y', 'z', '▁y', 'z', '▁y', 'z'])).toEqual(['repeated-ngram']);
    expect(findDegeneracies(output, output, { tokens: ['▁ab', '▁ab', '▁ab'] })).toEqual([{ kind: 'repeated-ngram', detail: 'words "ab" x3' }]);
  });

  it('flags an output over 3 times the source, whitespace not counted, an empty source by any output', () => {
    expect(findDegeneracies('abcdefghij', 'abc')).toEqual([{ kind: 'too-long', detail: '10 > 3 x 3' }]);
    expect(kinds('abc def ghi', 'abc')).toEqual([]);
    expect(kinds('x', '  ')).toEqual(['too-long']);
    expect(kinds('', '')).toEqual([]);
  });

  it('exposes its parts', () => {
    expect(comparableWords(' "Hello," World! -- ')).toEqual(['hello', 'world']);
    expect(repeatedNgram([1, 2, 1, 2, 1, 2], 3)).toEqual([1, 2]);
    expect(repeatedNgram([1, 2, 1, 2, 1], 3)).toBeNull();
    expect(visibleLength(' a b\tc\n')).toBe(3);
  });

  it('counts outputs and rules over a set', () => {
    const counts = countDegenerate([
      { output: 'fine text', source: 'fine text' },
      { output: 'aaaaa aaaaa aaaaa long long long', source: 'a' },
      { output: 'x y', source: 'x y', tokens: ['▁x', '▁x', '▁x'] },
    ]);
    expect(counts).toEqual({ outputs: 3, degenerate: 2, byKind: { 'letter-run': 1, 'repeated-ngram': 2, 'too-long': 1 } });
  });
});
