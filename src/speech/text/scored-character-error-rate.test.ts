import { describe, expect, it } from 'vitest';
import { characterErrorRate, editDistance, mergeHomophones, scoringForm } from './scored-character-error-rate.js';

describe('character error rate', () => {
  it('counts substitutions, insertions and deletions over reference characters', () => {
    expect(editDistance([...'abcd'], [...'abxd'])).toBe(1);
    expect(editDistance([...'abcd'], [...'abd'])).toBe(1);
    expect(editDistance([...'abc'], [...'abcde'])).toBe(2);
    expect(characterErrorRate(['abcd', 'ef'], ['abxd', 'ef'], 'om').cer).toBeCloseTo(1 / 6);
  });

  it('ignores spaces, the word delimiter and sentence punctuation', () => {
    expect(scoringForm('ሰላም ነው። እሺ፣ ደህና', 'ti').join('')).toBe('ሰላምነውእሺደህና');
    expect(scoringForm("Har'a, gaarii.", 'om').join('')).toBe('Haragaarii');
    expect(characterErrorRate(['በ ተመለከተ'], ['በተመለከተ።'], 'am').cer).toBe(0);
  });

  it("merges ALFFA's homophone letters for Amharic only, keeping the vowel order", () => {
    expect(mergeHomophones('ሐኀሠዐፀ ሑ ሡ ዑ ፁ')).toBe('ሀሀሰአጸ ሁ ሱ ኡ ጹ');
    expect(characterErrorRate(['ሀገር'], ['ሐገር'], 'am').cer).toBe(0);
    expect(characterErrorRate(['ሀገር'], ['ሐገር'], 'ti').cer).toBeCloseTo(1 / 3);
  });
});
