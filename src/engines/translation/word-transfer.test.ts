import { describe, expect, it } from 'vitest';
import { parseWordTransferTable, type TransferOptions, transferWords, WordTransferTableError } from './word-transfer.js';

// Moses lex layout: target source probability.
const TABLE = parseWordTransferTable(['# am -> ti', 'ኣብ ላይ 0.61', 'ውሽጢ ውስጥ 0.55', 'ናብ ወደ 0.48', 'ኣብ ወደ 0.12', 'ሰሙናት ሳምንታት 0.15', '', 'ሓደ አንድ 0.9'].join('\n'));

describe('parseWordTransferTable', () => {
  it('keeps the most probable target of each source word', () => {
    expect(TABLE.entries.get('ወደ')).toEqual({ target: 'ናብ', probability: 0.48 });
    expect(TABLE.entries.get('ላይ')).toEqual({ target: 'ኣብ', probability: 0.61 });
    expect(TABLE.entries.size).toBe(5);
  });

  it('reads the lower-probability line first as well', () => {
    const table = parseWordTransferTable('ኣብ ወደ 0.12\nናብ ወደ 0.48\n');
    expect(table.entries.get('ወደ')?.target).toBe('ናብ');
  });

  it('names the line of a malformed entry', () => {
    expect(() => parseWordTransferTable('ኣብ ላይ 0.6\nኣብ ላይ\n')).toThrow(
      new WordTransferTableError('line 2: expected "target source probability" or "source ||| target ||| scores" with a probability from 0 to 1'),
    );
    expect(() => parseWordTransferTable('ኣብ ላይ 1.5')).toThrow(/line 1/);
    expect(() => parseWordTransferTable('ኣብ ላይ much')).toThrow(/line 1/);
    expect(() => parseWordTransferTable('a b 0.5 extra')).toThrow(/line 1/);
  });
});

describe('transferWords', () => {
  it('replaces known words and keeps unknown words, spacing and punctuation as they are', () => {
    expect(transferWords('ጊኒ ውስጥ ወደ ሴኔጋል።  ላይ፣ አንድ!', TABLE, { minProbability: 0.2 })).toBe('ጊኒ ውሽጢ ናብ ሴኔጋል።  ኣብ፣ ሓደ!');
  });

  it('keeps a word whose best target is below the threshold', () => {
    expect(transferWords('በሁለት ሳምንታት ውስጥ', TABLE, { minProbability: 0.2 })).toBe('በሁለት ሳምንታት ውሽጢ');
    expect(transferWords('በሁለት ሳምንታት ውስጥ', TABLE, { minProbability: 0.1 })).toBe('በሁለት ሰሙናት ውሽጢ');
  });

  it('matches whole words only, never a word inside a longer one', () => {
    expect(transferWords('ወደላይ ላይኛው ላይ', TABLE, { minProbability: 0.2 })).toBe('ወደላይ ላይኛው ኣብ');
  });

  it('does not make a word repeat the one before it unless the source repeats it', () => {
    const and = parseWordTransferTable('እና ከምኡ 0.4\nእና እውን 0.3\nእና እቲ 0.3\nናይ ናይ 0.9');
    expect(transferWords('ከምኡ እውን እቲ ፊልም', and, { minProbability: 0.2 })).toBe('እና እውን እና ፊልም');
    expect(transferWords('ከምኡ፣ ከምኡ', and, { minProbability: 0.2 })).toBe('እና፣ እና');
  });

  it('keeps numbers, Latin words and line breaks the table does not know', () => {
    expect(transferWords('7,500 ፓውንድ (GBP)\nወደ 2011', TABLE, { minProbability: 0.2 })).toBe('7,500 ፓውንድ (GBP)\nናብ 2011');
    expect(transferWords('', TABLE, { minProbability: 0.2 })).toBe('');
  });
});

// Moses phrase-table layout: source ||| target ||| scores; a source phrase of up to three words.
const PHRASES = parseWordTransferTable(
  [
    'ጠቅላይ ሚኒስትር ||| Prime Minister ||| 0.8',
    'ጠቅላይ ||| supreme ||| 0.5',
    'ሚኒስትር ||| minister ||| 0.7',
    'ዐቢይ ||| Abiy ||| 0.9',
    'ነው ||| is ||| 0.6',
    'ዓመት ||| year ||| 0.5',
    'በአዲስ አበባ ||| in Addis Ababa ||| 0.4',
    'አዲስ ||| new ||| 0.3 0.1 0.05 0.2', // four scores: the third, p(target|source), counts
    '1989 ||| 1997 ||| 0.9',
  ].join('\n'),
);
const TO_ENGLISH: TransferOptions = { minProbability: 0, unknownWords: 'romanize', punctuation: 'to-latin', capitalizeSentences: true };

describe('phrase tables', () => {
  it('reads source phrases lowercased, their length and the Moses score order', () => {
    expect(PHRASES.maxSourceWords).toBe(2);
    expect(PHRASES.entries.get('ጠቅላይ ሚኒስትር')).toEqual({ target: 'Prime Minister', probability: 0.8 });
    expect(PHRASES.entries.get('አዲስ')?.probability).toBe(0.05);
    expect(parseWordTransferTable('The Cat ||| ድመቷ ||| 1').entries.get('the cat')?.target).toBe('ድመቷ');
    expect(() => parseWordTransferTable('a ||| b ||| 0.5\na ||| ||| 0.5')).toThrow(/line 2/);
    expect(() => parseWordTransferTable('a ||| b')).toThrow(/line 1/);
  });

  it('takes the longest known phrase, left to right, and matches case-insensitively', () => {
    expect(transferWords('ጠቅላይ ሚኒስትር ዐቢይ', PHRASES, TO_ENGLISH)).toBe('Prime Minister Abiy');
    expect(transferWords('ሚኒስትር ጠቅላይ', PHRASES, TO_ENGLISH)).toBe('Minister supreme');
    const cased = parseWordTransferTable('the cat ||| ድመቷ ||| 1');
    expect(transferWords('The CAT sat', cased, { minProbability: 0 })).toBe('ድመቷ sat');
  });

  it('never matches a phrase across punctuation or a line break', () => {
    expect(transferWords('ጠቅላይ፣ ሚኒስትር', PHRASES, TO_ENGLISH)).toBe('Supreme, minister');
    expect(transferWords('ጠቅላይ\nሚኒስትር', PHRASES, TO_ENGLISH)).toBe('Supreme\nMinister');
  });

  it('romanizes unknown Ethiopic words, copies numbers and maps sentence marks before spaces', () => {
    expect(transferWords('ዐቢይ በአዲስ አበባ ነው። ኦሮሚያ 1989 ዓ.ም ነው፣ 3.5', PHRASES, TO_ENGLISH)).toBe('Abiy in Addis Ababa is. Oromiya 1989 A.M is, 3.5');
  });

  it('keeps unknown words with `keep` and leaves marks alone with `keep`', () => {
    expect(transferWords('ኦሮሚያ ነው።', PHRASES, { minProbability: 0 })).toBe('ኦሮሚያ is።');
  });

  it('maps Latin marks to Ethiopic ones only at the end of a sentence or clause', () => {
    const toAmharic = parseWordTransferTable('is ||| ነው ||| 0.9\nit ||| እሱ ||| 0.9');
    const options: TransferOptions = { minProbability: 0, punctuation: 'to-ethiopic' };
    expect(transferWords('It is, it is. 1,000 and 3.5 U.S.', toAmharic, options)).toBe('እሱ ነው፣ እሱ ነው። 1,000 and 3.5 U.S.');
    expect(transferWords('U.S. it is. J. K. it is', toAmharic, options)).toBe('U.S. እሱ ነው። J. K. እሱ ነው');
  });

  it('capitalizes the first word of every sentence only when asked', () => {
    expect(transferWords('ነው። ነው? ነው', PHRASES, TO_ENGLISH)).toBe('Is. Is? Is');
    expect(transferWords('ነው። ነው', PHRASES, { ...TO_ENGLISH, capitalizeSentences: false })).toBe('is. is');
  });

  it('skips an entry whose target repeats a word back to back', () => {
    const road = parseWordTransferTable('ኣውራ ጎዳና ||| Road Road Road ||| 0.9\nጎዳና ||| road ||| 0.5\nኣውራ ||| major ||| 0.5');
    expect(road.entries.has('ኣውራ ጎዳና')).toBe(false);
    expect(transferWords('ኣውራ ጎዳና', road, { minProbability: 0 })).toBe('major road');
  });

  it('treats a phrase that would repeat the output before it as unknown', () => {
    const year = parseWordTransferTable('ዓመት ||| year ||| 0.9\nዓመቱ ||| year ||| 0.9');
    expect(transferWords('ዓመት ዓመቱ ዓመት ዓመት', year, { minProbability: 0, unknownWords: 'romanize' })).toBe('year Ametu year year');
  });
});

describe('words', () => {
  it('keeps an apostrophe between letters inside the word', () => {
    const negation = parseWordTransferTable("doesn't ||| አይደለም ||| 0.9");
    expect(transferWords("It doesn't. 'Quoted'", negation, { minProbability: 0 })).toBe("It አይደለም. 'Quoted'");
  });
});
