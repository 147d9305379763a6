import { describe, expect, it } from 'vitest';
import { joinSentences, splitSentences } from './sentence-splitter.js';

const texts = (input: string): string[] => splitSentences(input).map((s) => s.text);

describe('splitSentences', () => {
  it('splits Amharic at the full stop and keeps it attached, with or without a following space', () => {
    expect(texts('ሰላም ነው። እንዴት ነህ?')).toEqual(['ሰላም ነው።', 'እንዴት ነህ?']);
    expect(texts('ሰላም ነው።እንዴት ነህ፧ደህና ነኝ።')).toEqual(['ሰላም ነው።', 'እንዴት ነህ፧', 'ደህና ነኝ።']);
  });

  it('keeps the Ethiopic comma and semicolon inside a sentence', () => {
    expect(texts('ቡና፣ ሻይ፤ ውሃ ገዛሁ። ተመለስኩ።')).toEqual(['ቡና፣ ሻይ፤ ውሃ ገዛሁ።', 'ተመለስኩ።']);
  });

  it('splits Latin text at . ? ! followed by space or the end, not inside numbers or words', () => {
    expect(texts('It costs 3.5 birr. Really? Yes!')).toEqual(['It costs 3.5 birr.', 'Really?', 'Yes!']);
    expect(texts('see example.com now')).toEqual(['see example.com now']);
  });

  it('keeps repeated marks and closing quotes with the sentence', () => {
    expect(texts('He said "stop!" Then he left... Why?!')).toEqual(['He said "stop!"', 'Then he left...', 'Why?!']);
    expect(texts('«ና።» አለ።')).toEqual(['«ና።»', 'አለ።']);
  });

  it('treats a line break as a sentence end and drops empty lines', () => {
    const sentences = splitSentences('First line\n\nSecond line.  Third\n');
    expect(sentences).toEqual([
      { text: 'First line', after: '\n\n' },
      { text: 'Second line.', after: '  ' },
      { text: 'Third', after: '\n' },
    ]);
  });

  it('returns nothing for blank text and one sentence without punctuation', () => {
    expect(splitSentences('   \n ')).toEqual([]);
    expect(texts('no punctuation here')).toEqual(['no punctuation here']);
  });
});

describe('joinSentences', () => {
  it('joins with one space, keeping line breaks', () => {
    const sentences = splitSentences('A. B.\n\nC?');
    expect(joinSentences(sentences, ['x.', 'y.', 'z?'])).toBe('x. y.\n\nz?');
  });

  it('leaves no separator for an empty translation', () => {
    const sentences = splitSentences('A. B.\n\nC? D.');
    expect(joinSentences(sentences, ['x.', '', 'z?', 'w.'])).toBe('x.\n\nz? w.');
    expect(joinSentences(sentences, ['', '', '', 'w.'])).toBe('w.');
  });
});
