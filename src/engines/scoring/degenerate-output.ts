/**
 * Degenerate generated text (issue 28): the signs of a decoder that loops or runs on, checked on
 * one output against its source. An output is degenerate when it has any of:
 * - a letter run: one letter (Unicode letter, case folded) `letterRun` (5) or more times in a row,
 *   as `ንንንንን` or `aaaaa`; digits and punctuation are not letters (`1000000` is not a run);
 * - a repeated n-gram: some n-gram repeated `repeats` (3) times in a row, of
 *   - words (split at whitespace, punctuation stripped from each word's ends, case folded;
 *     `the the the`, `ለ ም ለ ም ለ ም`),
 *   - characters inside one word (a unit of 2 or more characters with at least one letter:
 *     `ምንምንምን`, `hahaha`; single characters are the letter-run rule),
 *   - tokens, when the caller passes the model's pieces (`tokens`);
 * - too long: more than `maxRatio` (3) times the source's length, lengths in code points without
 *   whitespace (an empty source: any output). Held-out references of HornMT exceed 3x in under
 *   0.5% of lines in every direction between am, en and ti (misaligned lines), so the rule does
 *   not flag translations for being in a wordier script.
 * Text is compared in Unicode NFC. Pure; used by benchmarks and tests, never by shipped code.
 */

export type DegeneracyKind = 'letter-run' | 'repeated-ngram' | 'too-long';

export interface Degeneracy {
  readonly kind: DegeneracyKind;
  /** What was found, for reports: the run, the repeated n-gram, or the two lengths. */
  readonly detail: string;
}

export interface DegeneracyOptions {
  /** A letter this many times in a row is a run. Default 5. */
  readonly letterRun?: number;
  /** An n-gram this many times in a row is a loop. Default 3. */
  readonly repeats?: number;
  /** Output over this many times the source's length is too long. Default 3. */
  readonly maxRatio?: number;
  /** The output's model tokens (SentencePiece pieces, ...), checked for repeated n-grams too. */
  readonly tokens?: readonly string[];
}

const WHITESPACE = /\s+/u;
const EDGE_PUNCTUATION = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;
const LETTER = /\p{L}/u;

/** The first n-gram of `units` (n >= minN) repeated `repeats` times in a row, or null. */
export function repeatedNgram<T>(units: readonly T[], repeats: number, minN = 1, accept: (gram: readonly T[]) => boolean = () => true): readonly T[] | null {
  for (let n = minN; n * repeats <= units.length; n++) {
    for (let i = 0; i + n * repeats <= units.length; i++) {
      let copies = 1;
      while (copies < repeats && sameSpan(units, i, i + copies * n, n)) copies++;
      if (copies === repeats) {
        const gram = units.slice(i, i + n);
        if (accept(gram)) return gram;
      }
    }
  }
  return null;
}

function sameSpan<T>(units: readonly T[], a: number, b: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (units[a + k] !== units[b + k]) return false;
  return true;
}

/** The longest run of one letter in `text` (case folded) as [letter, length]; ['', 0] without letters. */
export function longestLetterRun(text: string): readonly [string, number] {
  let best: readonly [string, number] = ['', 0];
  let current = '';
  let length = 0;
  for (const ch of text.normalize('NFC').toLowerCase()) {
    if (LETTER.test(ch) && ch === current) length++;
    else {
      current = LETTER.test(ch) ? ch : '';
      length = current === '' ? 0 : 1;
    }
    if (length > best[1]) best = [current, length];
  }
  return best;
}

/** Code points of `text` without whitespace. */
export function visibleLength(text: string): number {
  let n = 0;
  for (const ch of text) if (!WHITESPACE.test(ch)) n++;
  return n;
}

/** The words of `text` as the repeated-word rule compares them. */
export function comparableWords(text: string): string[] {
  return text
    .normalize('NFC')
    .toLowerCase()
    .split(WHITESPACE)
    .map((w) => w.replace(EDGE_PUNCTUATION, ''))
    .filter((w) => w !== '');
}

/** Every rule `output` breaks against `source` (empty: not degenerate). */
export function findDegeneracies(output: string, source: string, options: DegeneracyOptions = {}): Degeneracy[] {
  const letterRun = options.letterRun ?? 5;
  const repeats = options.repeats ?? 3;
  const maxRatio = options.maxRatio ?? 3;
  const found: Degeneracy[] = [];
  const [letter, run] = longestLetterRun(output);
  if (run >= letterRun) found.push({ kind: 'letter-run', detail: `${letter} x${run}` });

  const words = comparableWords(output);
  const wordGram = repeatedNgram(words, repeats);
  if (wordGram !== null) found.push({ kind: 'repeated-ngram', detail: `words "${wordGram.join(' ')}" x${repeats}` });
  else {
    for (const word of words) {
      const characters = [...word];
      const gram = repeatedNgram(characters, repeats, 2, (g) => g.some((ch) => LETTER.test(ch)));
      if (gram !== null) {
        found.push({ kind: 'repeated-ngram', detail: `characters "${gram.join('')}" x${repeats}` });
        break;
      }
    }
  }
  if (options.tokens !== undefined && !found.some((d) => d.kind === 'repeated-ngram')) {
    const tokenGram = repeatedNgram(options.tokens, repeats);
    if (tokenGram !== null) found.push({ kind: 'repeated-ngram', detail: `tokens "${tokenGram.join(' ')}" x${repeats}` });
  }

  const outputLength = visibleLength(output);
  const sourceLength = visibleLength(source);
  if (outputLength > maxRatio * sourceLength) found.push({ kind: 'too-long', detail: `${outputLength} > ${maxRatio} x ${sourceLength}` });
  return found;
}

export function isDegenerate(output: string, source: string, options: DegeneracyOptions = {}): boolean {
  return findDegeneracies(output, source, options).length > 0;
}

export interface DegeneracyCounts {
  readonly outputs: number;
  /** Outputs with at least one rule broken. */
  readonly degenerate: number;
  /** Outputs breaking each rule (one output may count under several). */
  readonly byKind: Readonly<Record<DegeneracyKind, number>>;
}

/** Counts over pairs of output and source (each with its output's tokens when known). */
export function countDegenerate(
  pairs: ReadonlyArray<{ readonly output: string; readonly source: string; readonly tokens?: readonly string[] }>,
  options: Omit<DegeneracyOptions, 'tokens'> = {},
): DegeneracyCounts {
  const byKind: Record<DegeneracyKind, number> = { 'letter-run': 0, 'repeated-ngram': 0, 'too-long': 0 };
  let degenerate = 0;
  for (const { output, source, tokens } of pairs) {
    const found = findDegeneracies(output, source, tokens === undefined ? options : { ...options, tokens });
    if (found.length > 0) degenerate++;
    for (const kind of new Set(found.map((d) => d.kind))) byKind[kind]++;
  }
  return { outputs: pairs.length, degenerate, byKind };
}
