/**
 * True-case output for Latin-script models (Oromo). A CTC model with upper- and lower-case
 * letters in its vocabulary is unsure of case: it lower-cases sentence starts, capitalises
 * words mid-sentence and doubles a letter in both cases ("fFayya", "namMoota"). The rules:
 *
 * - a lower-case letter followed by its own upper-case twin is one (lower-case) letter;
 * - an all-capitals word of two or more letters (before an apostrophe suffix: "ENA'tti") is an
 *   acronym and kept as written;
 * - every other word is lower case, except that the first letter of a sentence is a capital:
 *   the first word of the text when `sentenceStart` is set (each recognised piece is an
 *   utterance between pauses) and every word after `.`, `?` or `!`.
 */
export function trueCaseLatin(text: string, options: { readonly sentenceStart: boolean }): string {
  let startsSentence = options.sentenceStart;
  return text
    .split(' ')
    .map((raw) => {
      if (raw === '') return raw;
      let word = raw.replace(/(\p{Ll})(\p{Lu})/gu, (pair, lower: string, upper: string) => (upper.toLowerCase() === lower ? lower : pair));
      if (!isAcronym(word)) {
        word = word.toLowerCase();
        if (startsSentence) word = word.replace(/\p{L}/u, (first) => first.toUpperCase());
      }
      startsSentence = /[.?!]$/u.test(word);
      return word;
    })
    .join(' ');
}

function isAcronym(word: string): boolean {
  const stem = word.split("'")[0]!.replace(/[^\p{L}]/gu, '');
  return stem.length >= 2 && stem === stem.toUpperCase() && stem !== stem.toLowerCase();
}
