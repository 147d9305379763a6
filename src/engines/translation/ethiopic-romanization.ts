/**
 * Ethiopic (Ge'ez script) letters in Latin letters, for words a phrase-transfer table does not know
 * when the target is English: names and rare words then reach an English reader as something
 * pronounceable ("ኦሮሚያ" -> "Oromiya") rather than as a script they may not read, or as nothing.
 *
 * Rules:
 * - A syllable is its consonant's Latin letters plus its order's vowel (ä e, u, i, a, ē e, ə none,
 *   o, wa), a simplified, diacritic-free SERA-like spelling: ejectives and the letters that Amharic
 *   pronounces alike share one spelling (ሀ ሐ ኀ h, ሰ ሠ s, ጸ ፀ ts, ተ ጠ t, ቸ ጨ ch), as do Tigrinya's
 *   ቐ (q) and ኸ (h).
 * - Glottal ("አ") and pharyngeal ("ዐ") rows give the vowel alone, their sixth order ("እ") "e".
 * - Letters outside the consonant rows (Ethiopic digits, punctuation, rows without a Latin spelling
 *   here) and every non-Ethiopic character are kept as they are.
 * - The first letter of a romanized word is capitalised (most unknown words are names).
 * Pure and allocation-light: one pass over the word.
 */

/** The Latin spelling of each consonant row's first code point (rows of 8: orders 1-8). */
const ROWS: ReadonlyMap<number, string> = new Map([
  [0x1200, 'h'],
  [0x1208, 'l'],
  [0x1210, 'h'],
  [0x1218, 'm'],
  [0x1220, 's'],
  [0x1228, 'r'],
  [0x1230, 's'],
  [0x1238, 'sh'],
  [0x1240, 'q'],
  [0x1248, 'qu'],
  [0x1250, 'q'],
  [0x1258, 'qu'],
  [0x1260, 'b'],
  [0x1268, 'v'],
  [0x1270, 't'],
  [0x1278, 'ch'],
  [0x1280, 'h'],
  [0x1288, 'hu'],
  [0x1290, 'n'],
  [0x1298, 'ny'],
  [0x12a0, ''],
  [0x12a8, 'k'],
  [0x12b0, 'ku'],
  [0x12b8, 'h'],
  [0x12c0, 'hu'],
  [0x12c8, 'w'],
  [0x12d0, ''],
  [0x12d8, 'z'],
  [0x12e0, 'zh'],
  [0x12e8, 'y'],
  [0x12f0, 'd'],
  [0x12f8, 'd'],
  [0x1300, 'j'],
  [0x1308, 'g'],
  [0x1310, 'gu'],
  [0x1320, 't'],
  [0x1328, 'ch'],
  [0x1330, 'p'],
  [0x1338, 'ts'],
  [0x1340, 'ts'],
  [0x1348, 'f'],
  [0x1350, 'p'],
]);
const VOWELS = ['e', 'u', 'i', 'a', 'e', '', 'o', 'wa'] as const;

/** `word` with its Ethiopic syllables in Latin letters, first letter capitalised; other characters kept. */
export function romanizeEthiopic(word: string): string {
  let out = '';
  for (const char of word) {
    const code = char.codePointAt(0)!;
    const row = code >= 0x1200 && code <= 0x1357 ? ROWS.get(code - ((code - 0x1200) % 8)) : undefined;
    const vowel = VOWELS[(code - 0x1200) % 8]!;
    out += row === undefined ? char : row === '' && vowel === '' ? 'e' : row + vowel;
  }
  return out.length > 0 ? out[0]!.toUpperCase() + out.slice(1) : out;
}
