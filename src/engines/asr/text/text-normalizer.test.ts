import { describe, expect, it } from 'vitest';
import { alffaScoringForm, mergeAmharicHomophones } from './alffa-scoring.js';
import { geezNumeralsToAscii, geezToNumber } from './ethiopic-numerals.js';
import { forLm, forOutput, forScoring } from './text-normalizer.js';

describe("Ge'ez numerals", () => {
  it('reads single numerals, compounds with ፻ and ፼', () => {
    expect(geezToNumber('፩')).toBe(1n);
    expect(geezToNumber('፱')).toBe(9n);
    expect(geezToNumber('፲')).toBe(10n);
    expect(geezToNumber('፺፱')).toBe(99n);
    expect(geezToNumber('፻')).toBe(100n);
    expect(geezToNumber('፲፻')).toBe(1000n);
    expect(geezToNumber('፳፻፲፭')).toBe(2015n);
    expect(geezToNumber('፼')).toBe(10000n);
    expect(geezToNumber('፲፼፳፻')).toBe(102000n);
    expect(geezToNumber('፻፼')).toBe(1000000n);
    expect(geezToNumber('፫፻፷፭')).toBe(365n);
  });

  it('rewrites runs inside text and leaves ASCII digits alone', () => {
    expect(geezNumeralsToAscii('በ፳፻፲፭ ዓ.ም. 12 ሰዎች')).toBe('በ2015 ዓ.ም. 12 ሰዎች');
    expect(() => geezToNumber('፩a')).toThrow(RangeError);
  });
});

describe('normalisation', () => {
  it('collapses a run of marks into its strongest one and drops a leading mark', () => {
    expect(forOutput('እቲ ሕማም እዩ።፣ ሰባት ገሊፁ።።', 'ti')).toBe('እቲ ሕማም እዩ። ሰባት ገሊፁ።');
    expect(forOutput('እዩ ፣ ። ሰባት', 'ti')).toBe('እዩ። ሰባት');
    expect(forOutput('።፣ ሰባት ከምዝሞቱ? ።', 'ti')).toBe('ሰባት ከምዝሞቱ?');
    expect(forOutput('ሰላም::, እንዴት', 'am')).toBe('ሰላም። እንዴት');
    expect(forOutput('akka., ta’e', 'om')).toBe("akka. ta'e");
    expect(forOutput('ሰዓት 10:30 ነው።', 'ti')).toBe('ሰዓት 10:30 ነው።');
  });

  it('regularises the case of true-case Latin output', () => {
    expect(forOutput('aka gabaasa fFayya Bilisa', 'om', { trueCase: true })).toBe('Aka gabaasa fayya bilisa');
    expect(forOutput('aka gabaasa fFayya Bilisa', 'om')).toBe('aka gabaasa fFayya Bilisa');
    expect(forOutput('ሰላም', 'am', { trueCase: true })).toBe('ሰላም');
  });

  it('maps ASCII punctuation to Ethiopic marks for am/ti output and fixes spacing', () => {
    expect(forOutput('  ሰላም , እንዴት ነህ ?  ደህና ነኝ::ቻው ', 'am')).toBe('ሰላም፣ እንዴት ነህ? ደህና ነኝ። ቻው');
    expect(forOutput('ሰዓት 10:30 ፡ ሰላም፤ሰላም ፧', 'ti')).toBe('ሰዓት 10:30 ሰላም፤ ሰላም?');
    expect(forOutput('ቃል፡፡ ሌላ', 'am')).toBe('ቃል። ሌላ');
  });

  it('keeps Oromo true case in output and maps Ethiopic marks to ASCII', () => {
    expect(forOutput('Isiraa’el  haleellaa ni bana።', 'om')).toBe("Isiraa'el haleellaa ni bana.");
    expect(forOutput('Gaaffii ፧ deebii፣ kana', 'om')).toBe('Gaaffii? deebii, kana');
  });

  it('lower-cases Oromo and drops punctuation for scoring but keeps the hudhaa apostrophe', () => {
    expect(forScoring("Humni Isiraa'el, 'haleellaa' ni bana!", 'om')).toBe("humni isiraa'el haleellaa ni bana");
  });

  it('drops punctuation and symbols for scoring and converts numerals', () => {
    expect(forScoring('በ፳፻፲፭ «ሰላም»፣ ቤት።ልጅ 😀', 'am')).toBe('በ2015 ሰላም ቤት ልጅ');
  });

  it('strips tweet markup for LM text and keeps marks when asked', () => {
    expect(forLm('@user ሰላም!! https://t.co/x #ኢትዮጵያ 😥', 'am')).toBe('ሰላም ኢትዮጵያ');
    expect(forLm('@user ሰላም ነው? አዎ።', 'am', { punctuation: 'canonical' })).toBe('ሰላም ነው? አዎ።');
    expect(forLm('Kana WAL ijaarre!', 'om')).toBe('kana wal ijaarre');
  });
});

describe('ALFFA scoring form', () => {
  it('merges the homophone rows with their vowel orders', () => {
    expect(mergeAmharicHomophones('ሐሑሒሓሔሕሖ')).toBe('ሀሁሂሃሄህሆ');
    expect(mergeAmharicHomophones('ኀኃ')).toBe('ሀሃ');
    expect(mergeAmharicHomophones('ሠሡሧ')).toBe('ሰሱሷ');
    expect(mergeAmharicHomophones('ዐዑዓ')).toBe('አኡኣ');
    expect(mergeAmharicHomophones('ፀፁፇ')).toBe('ጸጹጿ');
    expect(mergeAmharicHomophones('ሰላም')).toBe('ሰላም');
  });

  it('removes spaces and punctuation so morpheme splits do not count', () => {
    expect(alffaScoringForm('በ ተመለከተ ሐሳብ።')).toBe(alffaScoringForm('በተመለከተ ሀሳብ'));
    expect(alffaScoringForm('የ ፀሐይ ብርሃን')).toBe('የጸሀይብርሃን');
  });
});
