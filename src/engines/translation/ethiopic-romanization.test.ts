import { describe, expect, it } from 'vitest';
import { romanizeEthiopic } from './ethiopic-romanization.js';

describe('romanizeEthiopic', () => {
  it('spells each syllable as consonant plus vowel, first letter capitalised', () => {
    expect(romanizeEthiopic('ኦሮሚያ')).toBe('Oromiya');
    expect(romanizeEthiopic('ትግራይ')).toBe('Tgray');
    expect(romanizeEthiopic('ሻሸመኔ')).toBe('Shashemene');
    expect(romanizeEthiopic('ጸሐይ')).toBe('Tsehey');
    expect(romanizeEthiopic('ዝተቐለወ')).toBe('Zteqelewe');
  });

  it('gives the glottal sixth order a vowel, so no word romanizes to nothing', () => {
    expect(romanizeEthiopic('እ')).toBe('E');
    expect(romanizeEthiopic('እንግሊዝ')).toBe('Engliz');
  });

  it('keeps digits, Latin letters and Ethiopic signs outside the consonant rows', () => {
    expect(romanizeEthiopic('2011')).toBe('2011');
    expect(romanizeEthiopic('ABC')).toBe('ABC');
    expect(romanizeEthiopic('፩')).toBe('፩');
    expect(romanizeEthiopic('')).toBe('');
  });
});
