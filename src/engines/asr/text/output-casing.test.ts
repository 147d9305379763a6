import { describe, expect, it } from 'vitest';
import { trueCaseLatin } from './output-casing.js';

describe('trueCaseLatin', () => {
  it('capitalises the sentence start and lower-cases stray capitals mid-sentence and mid-word', () => {
    expect(trueCaseLatin('aka gabaasa dhabbata fFayya addunyaa', { sentenceStart: true })).toBe('Aka gabaasa dhabbata fayya addunyaa');
    expect(trueCaseLatin('irra Bilisa baasuummata', { sentenceStart: true })).toBe('Irra bilisa baasuummata');
    expect(trueCaseLatin('barajjeena datti lakkoofsinamMoota hara', { sentenceStart: true })).toBe('Barajjeena datti lakkoofsinamoota hara');
    expect(trueCaseLatin('bandau abadDiin Dabala dhufeen', { sentenceStart: false })).toBe('bandau abadiin dabala dhufeen');
  });

  it('keeps acronyms, capitalises after sentence punctuation, keeps apostrophes', () => {
    expect(trueCaseLatin("akka barbaachisu ENA'tti himan. Haara'umsi", { sentenceStart: true })).toBe("Akka barbaachisu ENA'tti himan. Haara'umsi");
    expect(trueCaseLatin('maal? eeyyee! tole', { sentenceStart: false })).toBe('maal? Eeyyee! Tole');
    expect(trueCaseLatin('', { sentenceStart: true })).toBe('');
  });
});
