import { describe, expect, it } from 'vitest';
import { CerAccumulator, characterErrorRate, editDistance, mergeHomophones, scoredCharacterErrorRate, scoringForm } from './character-error-rate.js';

describe('character error rate', () => {
  it('counts substitutions, insertions and deletions over code points', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('abc', '')).toBe(3);
    expect(editDistance('ሰላም', 'ሰላም')).toBe(0);
    // Ethiopic syllables are one code point each (three UTF-16 units would be wrong for astral).
    expect(editDistance('ሰላም', 'ሰለም')).toBe(1);
    expect(editDistance('a😀b', 'ab')).toBe(1);
  });

  it('divides by the reference length and handles empty references', () => {
    expect(characterErrorRate('abcd', 'abxd')).toBe(0.25);
    expect(characterErrorRate('ab', 'abcd')).toBe(1);
    expect(characterErrorRate('', '')).toBe(0);
    expect(characterErrorRate('', 'a')).toBe(1);
  });

  it('pools edits over a corpus', () => {
    const acc = new CerAccumulator();
    acc.add('abcd', 'abcd');
    acc.add('ab', 'xb');
    expect(acc.cer).toBeCloseTo(1 / 6);
    expect(acc.utterances).toBe(2);
  });
});

describe('scored character error rate', () => {
  it('counts substitutions, insertions and deletions over reference characters', () => {
    expect(editDistance([...'abcd'], [...'abxd'])).toBe(1);
    expect(editDistance([...'abcd'], [...'abd'])).toBe(1);
    expect(editDistance([...'abc'], [...'abcde'])).toBe(2);
    expect(editDistance([...'a😀b'], [...'ab'])).toBe(1);
    expect(scoredCharacterErrorRate(['abcd', 'ef'], ['abxd', 'ef'], 'om').cer).toBeCloseTo(1 / 6);
  });

  it('ignores spaces, the word delimiter and sentence punctuation', () => {
    expect(scoringForm('ሰላም ነው። እሺ፣ ደህና', 'ti').join('')).toBe('ሰላምነውእሺደህና');
    expect(scoringForm("Har'a, gaarii.", 'om').join('')).toBe('Haragaarii');
    expect(scoredCharacterErrorRate(['በ ተመለከተ'], ['በተመለከተ።'], 'am').cer).toBe(0);
  });

  it("merges ALFFA's homophone letters for Amharic only, keeping the vowel order", () => {
    expect(mergeHomophones('ሐኀሠዐፀ ሑ ሡ ዑ ፁ')).toBe('ሀሀሰአጸ ሁ ሱ ኡ ጹ');
    expect(scoredCharacterErrorRate(['ሀገር'], ['ሐገር'], 'am').cer).toBe(0);
    expect(scoredCharacterErrorRate(['ሀገር'], ['ሐገር'], 'ti').cer).toBeCloseTo(1 / 3);
  });
});
