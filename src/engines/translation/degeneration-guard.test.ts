import { describe, expect, it } from 'vitest';
import {
  charCap,
  DEFAULT_GUARDS,
  findDegeneration,
  GuardedRow,
  letterCount,
  penalised,
  PieceTable,
  stepConstraint,
  strongerGuards,
  typicalRatio,
} from './degeneration-guard.js';

const check = (text: string, sourceText = 'a source sentence of some length', maxLetters = 1000) => findDegeneration({ text, sourceText, maxLetters });

describe('findDegeneration', () => {
  it('finds a letter repeated 5 times and keeps the text up to its first letter', () => {
    const found = check('የምንምንንንንን');
    expect(found?.kind).toBe('letter_run');
    expect('የምንምንንንንን'.slice(0, (found!.keep as { chars: number }).chars)).toBe('የምንምን');
    expect(check('ናናን ንንንን')).toBeNull();
    expect(check('Aaaaa')?.kind).toBe('letter_run');
    expect(check('766666666')?.kind).toBe('letter_run');
  });

  it('lets a run through that the source has', () => {
    expect(check('1000000 ብር', 'a cost of 1000000 birr')).toBeNull();
    expect(check('10000000 ብር', 'a cost of 1000000 birr')?.kind).toBe('letter_run');
  });

  it('finds a word n-gram 3 times in a row, case and edge punctuation aside, and keeps it once', () => {
    const text = 'ኣብ ዝሓለፈ ወርሒ ኣብ ዝሓለፈ ወርሒ ኣብ ዝሓለፈ ወርሒ ።';
    const found = check(text);
    expect(found?.kind).toBe('word_repeat');
    expect(text.slice(0, (found!.keep as { chars: number }).chars)).toBe('ኣብ ዝሓለፈ ወርሒ');
    expect(check('Yes, yes. YES!')?.kind).toBe('word_repeat');
    expect(check('ኣብ ዝሓለፈ ወርሒ ኣብ ዝሓለፈ ሰሙን')).toBeNull();
    expect(check('bye bye bye', 'he said bye bye bye')).toBeNull();
  });

  it('finds letters repeated inside one word', () => {
    expect(check('የምንምንምን ነው')?.kind).toBe('word_repeat');
    expect(check('የምንምን ነው')).toBeNull();
  });

  it('finds a token n-gram 3 times in a row when the ids are given', () => {
    const found = findDegeneration({ text: 'abcabcabc', tokens: [7, 8, 7, 8, 7, 8], sourceText: 'x', maxLetters: 100 });
    // The in-word rule sees "abc" x3 first.
    expect(found?.kind).toBe('word_repeat');
    const tokens = findDegeneration({ text: 'a b c d e f', tokens: [7, 8, 7, 8, 7, 8], sourceText: 'x', maxLetters: 100 });
    expect(tokens).toEqual({ kind: 'token_repeat', keep: { tokens: 2 } });
    expect(
      findDegeneration({ text: 'a b c d e f', tokens: [7, 8, 7, 8, 7, 8], sourceText: 'x', sourceTokens: [7, 8, 7, 8, 7, 8], maxLetters: 100 }),
    ).toBeNull();
  });

  it('finds an output over its letter cap and keeps the letters within it', () => {
    const found = check('abc def ghi', 'x', 5);
    expect(found?.kind).toBe('too_long');
    expect('abc def ghi'.slice(0, (found!.keep as { chars: number }).chars)).toBe('abc de');
    expect(check('abc de', 'x', 5)).toBeNull();
  });
});

describe('charCap', () => {
  it('is twice the median ratio of the direction plus 8 letters, never over 3 times the source', () => {
    expect(charCap(100, 'en-am')).toBe(136);
    expect(charCap(100, 'am-en')).toBe(300);
    expect(charCap(2, 'am-en')).toBe(6);
    expect(charCap(4, 'en-am')).toBe(12);
    expect(charCap(0, 'en-am')).toBe(1);
    for (const direction of ['am-en', 'ti-en', 'en-am', 'en-ti', 'am-ti', 'ti-am', 'xx-yy'])
      for (const n of [1, 5, 20, 80, 400]) expect(charCap(n, direction)).toBeLessThanOrEqual(3 * n);
  });

  it('takes a manifest override per direction, at most 3', () => {
    expect(charCap(100, 'en-am', { 'en-am': 2 })).toBe(208);
    expect(typicalRatio('en-am', { 'en-am': 2 })).toBe(1);
    expect(typicalRatio('en-am')).toBe(0.64);
  });

  it('counts letters without white space', () => {
    expect(letterCount(' a  b\tc\n')).toBe(3);
    expect(letterCount('ሰላም ነው።')).toBe(6);
  });
});

describe('stepConstraint', () => {
  // ids: 0 pad, 1 eos, 2 start, 3 "ን", 4 " ምን", 5 " ነው", 6 "ንን", 7 "abcdefghij"
  const table = new PieceTable(['', '', '', 'ን', ' ምን', ' ነው', 'ንን', 'abcdefghij']);
  const row = (text = 'source text here', ids: number[] = [9, 10], maxLetters = 100) => new GuardedRow({ ids, text, maxLetters }, DEFAULT_GUARDS.noRepeatNgram);

  it('blocks the token that would repeat a 3-gram, and a token a third time in a row', () => {
    const c = stepConstraint([4, 5, 3, 4, 5], row(), table, DEFAULT_GUARDS);
    expect(c.blocked.has(3)).toBe(true);
    expect(stepConstraint([4, 3, 3], row(), table, DEFAULT_GUARDS).blocked.has(3)).toBe(true);
    expect(stepConstraint([4, 3], row(), table, DEFAULT_GUARDS).blocked.has(3)).toBe(false);
  });

  it('allows as many repeats as the source has', () => {
    const source = row('x', [4, 5, 3, 4, 5, 3]);
    expect(stepConstraint([4, 5, 3, 4, 5], source, table, DEFAULT_GUARDS).blocked.has(3)).toBe(false);
    expect(stepConstraint([4, 5, 3, 4, 5, 3, 4, 5], source, table, DEFAULT_GUARDS).blocked.has(3)).toBe(true);
  });

  it('refuses a token that makes a letter run of 5, or passes the letter cap; never the end', () => {
    const c = stepConstraint([4, 6], row(), table, DEFAULT_GUARDS); // " ምንንን": ን x3 at the end
    expect(c.refuses(3)).toBeNull(); // x4
    expect(c.refuses(6)).toBe('letter_run'); // x5
    expect(c.refuses(1)).toBeNull();
    const capped = stepConstraint([7], row('x', [9], 12), table, DEFAULT_GUARDS);
    expect(capped.refuses(4)).toBeNull(); // 10 + 2 letters
    expect(capped.refuses(7)).toBe('cap');
    expect(capped.refuses(1)).toBeNull();
  });

  it('penalises tokens already generated only with a penalty above 1', () => {
    const none = stepConstraint([3], row(), table, DEFAULT_GUARDS);
    expect(penalised(none, 3, 2)).toBe(2);
    const c = stepConstraint([3], row(), table, { ...DEFAULT_GUARDS, repetitionPenalty: 2 });
    expect(penalised(c, 3, 2)).toBe(1);
    expect(penalised(c, 3, -2)).toBe(-4);
    expect(penalised(c, 4, 2)).toBe(2);
  });

  it('stronger guards block pairs and any token twice in a row', () => {
    const stronger = strongerGuards(DEFAULT_GUARDS);
    expect(stronger).toMatchObject({ noRepeatNgram: 2, maxTokenRun: 1 });
    expect(stronger.repetitionPenalty).toBeGreaterThan(1);
    const c = stepConstraint([4, 5, 4], new GuardedRow({ ids: [], text: 'x', maxLetters: 100 }, 2), table, stronger);
    expect(c.blocked.has(5)).toBe(true);
    expect(c.blocked.has(4)).toBe(true);
  });
});
