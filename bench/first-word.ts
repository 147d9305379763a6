// Whether a transcript kept the first word of its reference: the live-accuracy benchmark's
// "first word lost" count and the turn-accuracy tests use the same rule.
import { editDistance, scoringForm } from '../src/speech/text/character-error-rate.js';

/**
 * Whether `text` begins with the reference's first word: the first reference tokens (ALFFA
 * splits morphemes) joined until 4 letters, found with at most half of its letters wrong among
 * the first letters of the text (semi-global alignment: any start within that window). Half,
 * because this counts words missing, not misrecognised: a lost word leaves nearly every letter
 * wrong, a misread one a few.
 */
export function keepsFirstWord(reference: string, text: string): boolean {
  const tokens = reference.trim().split(/\s+/);
  let word: string[] = [];
  for (const token of tokens) {
    word = [...word, ...scoringForm(token, 'am')];
    if (word.length >= 4) break;
  }
  const window = scoringForm(text, 'am').slice(0, word.length + 4);
  let best = Infinity;
  for (let start = 0; start <= Math.max(0, window.length - 1); start++) {
    for (let end = start; end <= window.length; end++) best = Math.min(best, editDistance(word, window.slice(start, end)));
  }
  return best <= Math.floor(word.length / 2);
}
