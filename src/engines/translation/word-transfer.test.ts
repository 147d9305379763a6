import { describe, expect, it } from 'vitest';
import { parseWordTransferTable, transferWords, WordTransferTableError } from './word-transfer.js';

// Moses lex layout: target source probability.
const TABLE = parseWordTransferTable(['# am -> ti', 'ኣብ ላይ 0.61', 'ውሽጢ ውስጥ 0.55', 'ናብ ወደ 0.48', 'ኣብ ወደ 0.12', 'ሰሙናት ሳምንታት 0.15', '', 'ሓደ አንድ 0.9'].join('\n'));

describe('parseWordTransferTable', () => {
  it('keeps the most probable target of each source word', () => {
    expect(TABLE.get('ወደ')).toEqual({ target: 'ናብ', probability: 0.48 });
    expect(TABLE.get('ላይ')).toEqual({ target: 'ኣብ', probability: 0.61 });
    expect(TABLE.size).toBe(5);
  });

  it('reads the lower-probability line first as well', () => {
    const table = parseWordTransferTable('ኣብ ወደ 0.12\nናብ ወደ 0.48\n');
    expect(table.get('ወደ')?.target).toBe('ናብ');
  });

  it('names the line of a malformed entry', () => {
    expect(() => parseWordTransferTable('ኣብ ላይ 0.6\nኣብ ላይ\n')).toThrow(
      new WordTransferTableError('line 2: expected "target source probability" with a probability from 0 to 1'),
    );
    expect(() => parseWordTransferTable('ኣብ ላይ 1.5')).toThrow(/line 1/);
    expect(() => parseWordTransferTable('ኣብ ላይ much')).toThrow(/line 1/);
    expect(() => parseWordTransferTable('a b 0.5 extra')).toThrow(/line 1/);
  });
});

describe('transferWords', () => {
  it('replaces known words and keeps unknown words, spacing and punctuation as they are', () => {
    expect(transferWords('ጊኒ ውስጥ ወደ ሴኔጋል።  ላይ፣ አንድ!', TABLE, 0.2)).toBe('ጊኒ ውሽጢ ናብ ሴኔጋል።  ኣብ፣ ሓደ!');
  });

  it('keeps a word whose best target is below the threshold', () => {
    expect(transferWords('በሁለት ሳምንታት ውስጥ', TABLE, 0.2)).toBe('በሁለት ሳምንታት ውሽጢ');
    expect(transferWords('በሁለት ሳምንታት ውስጥ', TABLE, 0.1)).toBe('በሁለት ሰሙናት ውሽጢ');
  });

  it('matches whole words only, never a word inside a longer one', () => {
    expect(transferWords('ወደላይ ላይኛው ላይ', TABLE, 0.2)).toBe('ወደላይ ላይኛው ኣብ');
  });

  it('does not make a word repeat the one before it unless the source repeats it', () => {
    const and = parseWordTransferTable('እና ከምኡ 0.4\nእና እውን 0.3\nእና እቲ 0.3\nናይ ናይ 0.9');
    expect(transferWords('ከምኡ እውን እቲ ፊልም', and, 0.2)).toBe('እና እውን እና ፊልም');
    expect(transferWords('ከምኡ፣ ከምኡ', and, 0.2)).toBe('እና፣ እና');
  });

  it('keeps numbers, Latin words and line breaks the table does not know', () => {
    expect(transferWords('7,500 ፓውንድ (GBP)\nወደ 2011', TABLE, 0.2)).toBe('7,500 ፓውንድ (GBP)\nናብ 2011');
    expect(transferWords('', TABLE, 0.2)).toBe('');
  });
});
