/**
 * Decoding guards: a translation never degenerates into a loop or runs on far past its source
 * (issue 28; `TRANSLATION_DECODING_GUARDS`, docs/translation-models.md "Decoding guards"). Pure.
 *
 * Degenerate output (`findDegeneration`), the definition the held-out measurement counts:
 * - a letter or digit repeated 5 times or more in a row (`ንንንንን`, `66666`), unless the source
 *   has a run of that character at least as long (`1000000` may be copied);
 * - a word n-gram or a token n-gram repeated 3 times in a row (`ኣብ ዝሓለፈ ኣብ ዝሓለፈ ኣብ ዝሓለፈ`), unless
 *   the source repeats the same unit as often;
 * - more letters than the row's cap (`charCap`).
 * Letters are counted as code points other than white space (`letterCount`), so that spacing
 * does not change a length.
 *
 * While decoding, every hypothesis is held to rules that make the first two kinds impossible
 * token by token (`stepConstraint`), as in common seq2seq toolkits (`no_repeat_ngram_size`,
 * `repetition_penalty`):
 * - no token n-gram (n = `noRepeatNgram`) occurs more often than in the source (at most once
 *   when the source lacks it);
 * - no token more than `maxTokenRun` times in a row (more when the source has a longer run);
 * - no letter or digit more than `maxLetterRun` times in a row (more when the source has one);
 * - no token that would take the output past `charCap` letters;
 * - tokens already in the hypothesis have their logit divided (positive) or multiplied
 *   (negative) by `repetitionPenalty` (1: off).
 * End-of-sentence is never blocked, so every hypothesis can finish.
 *
 * The letter cap of a row is `min(3 x source letters, maxRatio x source letters + 8)`, maxRatio
 * per direction being twice the median letter ratio of the language pair (`DIRECTION_RATIOS`,
 * measured on the 2,030 four-way aligned HornMT snippets) and at most 3, the bound of a
 * degenerate output. A fallback prefix (a greedy output cut before its loop) is kept only when it
 * holds at least half the letters a typical translation of the source has.
 */

export interface GuardSettings {
  /** Token n-grams (this n) occur at most as often as in the source; 0: off. */
  readonly noRepeatNgram: number;
  /** A token at most this many times in a row. */
  readonly maxTokenRun: number;
  /** A letter or digit at most this many times in a row. */
  readonly maxLetterRun: number;
  /** Penalty on the logits of tokens already generated; 1: none. */
  readonly repetitionPenalty: number;
}

/** The degenerate-output definition: letter runs of 5, units repeated 3 times, 3 x the source letters. */
export const DEGENERATE = { letterRun: 5, repeats: 3, lengthRatio: 3 } as const;

/** Default guards; the stronger ones re-decode a greedy row whose output still degenerated. */
export const DEFAULT_GUARDS: GuardSettings = { noRepeatNgram: 3, maxTokenRun: 2, maxLetterRun: DEGENERATE.letterRun - 1, repetitionPenalty: 1 };

export function strongerGuards(settings: GuardSettings): GuardSettings {
  return {
    noRepeatNgram: settings.noRepeatNgram === 0 ? 2 : Math.max(2, Math.min(settings.noRepeatNgram, 2)),
    maxTokenRun: 1,
    maxLetterRun: Math.min(settings.maxLetterRun, 3),
    repetitionPenalty: Math.max(settings.repetitionPenalty, 1.3),
  };
}

/**
 * Median letter ratio (target letters / source letters) per direction, HornMT (2,030 snippets
 * aligned across am, en, ti; sources of 10 letters or more).
 */
export const DIRECTION_RATIOS: Readonly<Record<string, number>> = {
  'am-en': 1.57,
  'ti-en': 1.52,
  'en-am': 0.64,
  'en-ti': 0.66,
  'am-ti': 1.02,
  'ti-am': 0.98,
};

/** Letters allowed beyond the ratio, so a short source ("Yes.") keeps room for its translation. */
const CAP_EXTRA_LETTERS = 8;

export function typicalRatio(direction: string, overrides: Readonly<Record<string, number>> | null = null): number {
  const max = overrides?.[direction];
  if (max !== undefined) return max / 2;
  return DIRECTION_RATIOS[direction] ?? 1;
}

/** Most letters a row's output may hold. */
export function charCap(sourceLetters: number, direction: string, overrides: Readonly<Record<string, number>> | null = null): number {
  const ratio = Math.min(DEGENERATE.lengthRatio, overrides?.[direction] ?? 2 * typicalRatio(direction));
  return Math.max(1, Math.min(DEGENERATE.lengthRatio * sourceLetters, Math.floor(ratio * sourceLetters + CAP_EXTRA_LETTERS)));
}

/** Code points that are not white space. */
export function letterCount(text: string): number {
  let n = 0;
  for (const ch of text) if (!/\s/u.test(ch)) n++;
  return n;
}

const RUN_CHAR = /[\p{L}\p{N}]/u;

/** Per letter or digit (lower case), its longest run in `text`, case folded. */
export function letterRuns(text: string): Map<string, number> {
  const runs = new Map<string, number>();
  let last = '';
  let count = 0;
  for (const ch of text.toLowerCase()) {
    count = ch === last ? count + 1 : 1;
    last = ch;
    if (RUN_CHAR.test(ch) && count > (runs.get(ch) ?? 0)) runs.set(ch, count);
  }
  return runs;
}

/** What one token's text adds: letters, and the runs at its edges. */
interface PieceShape {
  readonly letters: number;
  readonly first: string;
  /** How often `first` repeats at the start. */
  readonly lead: number;
  readonly last: string;
  readonly tail: number;
  /** The whole text is one character repeated. */
  readonly uniform: boolean;
  /** Its longest inner run: [character, length]. */
  readonly inner: readonly [string, number];
}

function shapeOf(text: string): PieceShape {
  const chars = [...text];
  if (chars.length === 0) return { letters: 0, first: '', lead: 0, last: '', tail: 0, uniform: false, inner: ['', 0] };
  let lead = 1;
  while (lead < chars.length && chars[lead] === chars[0]) lead++;
  let tail = 1;
  while (tail < chars.length && chars[chars.length - 1 - tail] === chars[chars.length - 1]) tail++;
  let inner: [string, number] = ['', 0];
  let count = 0;
  chars.forEach((ch, i) => {
    count = i > 0 && ch === chars[i - 1] ? count + 1 : 1;
    if (count > inner[1]) inner = [ch, count];
  });
  return {
    letters: letterCount(text),
    first: chars[0]!,
    lead,
    last: chars[chars.length - 1]!,
    tail,
    uniform: lead === chars.length,
    inner,
  };
}

/** The text of every output id (TranslationTokenizer.pieceTexts), measured once per model. */
export class PieceTable {
  private readonly shapes: PieceShape[];
  constructor(readonly texts: readonly string[]) {
    this.shapes = texts.map(shapeOf);
  }
  text(id: number): string {
    return this.texts[id] ?? '';
  }
  shape(id: number): PieceShape {
    return this.shapes[id] ?? shapeOf('');
  }
  /** The text of ids as SentencePiece joins it (spaces kept; the caller trims). */
  join(ids: readonly number[]): string {
    return ids.map((id) => this.text(id)).join('');
  }
  letters(ids: readonly number[]): number {
    let n = 0;
    for (const id of ids) n += this.shape(id).letters;
    return n;
  }
}

/** What a row's guards know of its source. */
export interface RowSource {
  /** Source piece ids (no language tokens, no end). */
  readonly ids: readonly number[];
  /** Source text (for letter runs and word repeats). */
  readonly text: string;
  /** Most output letters (`charCap`). */
  readonly maxLetters: number;
}

/** A row's source, measured once: the n-gram counts and runs the guards allow beyond their defaults. */
export class GuardedRow {
  readonly runs: ReadonlyMap<string, number>;
  private readonly ngrams = new Map<string, number>();
  private readonly tokenRuns = new Map<number, number>();
  constructor(
    readonly source: RowSource,
    readonly n: number,
  ) {
    this.runs = letterRuns(source.text);
    const ids = source.ids;
    if (n > 0) {
      for (let i = 0; i + n <= ids.length; i++) {
        const key = ids.slice(i, i + n).join(',');
        this.ngrams.set(key, (this.ngrams.get(key) ?? 0) + 1);
      }
    }
    let run = 0;
    ids.forEach((id, i) => {
      run = i > 0 && ids[i - 1] === id ? run + 1 : 1;
      if (run > (this.tokenRuns.get(id) ?? 0)) this.tokenRuns.set(id, run);
    });
  }
  ngramAllowance(key: string): number {
    return Math.max(1, this.ngrams.get(key) ?? 0);
  }
  tokenRunAllowance(id: number, fallback: number): number {
    return Math.max(fallback, this.tokenRuns.get(id) ?? 0);
  }
  letterRunAllowance(ch: string, fallback: number): number {
    return RUN_CHAR.test(ch) ? Math.max(fallback, this.runs.get(ch.toLowerCase()) ?? 0) : Number.POSITIVE_INFINITY;
  }
}

/** Why a token was refused at a step: `cap` (past the row's letters), `letter_run`, or null when allowed. */
export type Refusal = 'cap' | 'letter_run' | null;

/** The rules for the next token of one hypothesis. */
export interface StepConstraint {
  /** Tokens the n-gram and token-run rules block. */
  readonly blocked: ReadonlySet<number>;
  /** Tokens already generated (the repetition penalty), or null without a penalty. */
  readonly seen: ReadonlySet<number> | null;
  readonly penalty: number;
  /** Letter-run and cap rules for `token` (checked only for tokens that would be chosen). */
  refuses(token: number): Refusal;
}

/** The constraint on the token after `tokens` (a hypothesis's generated ids). */
export function stepConstraint(tokens: readonly number[], row: GuardedRow, table: PieceTable, settings: GuardSettings): StepConstraint {
  const blocked = new Set<number>();
  const n = settings.noRepeatNgram;
  if (n > 0 && tokens.length >= n - 1) {
    const start = tokens.length - (n - 1);
    const counts = new Map<number, number>();
    for (let i = 0; i + n <= tokens.length; i++) {
      let match = true;
      for (let j = 0; j < n - 1; j++) {
        if (tokens[i + j] !== tokens[start + j]) {
          match = false;
          break;
        }
      }
      if (match) counts.set(tokens[i + n - 1]!, (counts.get(tokens[i + n - 1]!) ?? 0) + 1);
    }
    const prefix = tokens.slice(start);
    for (const [token, count] of counts) if (count >= row.ngramAllowance([...prefix, token].join(','))) blocked.add(token);
  }
  if (tokens.length > 0) {
    const last = tokens[tokens.length - 1]!;
    let run = 0;
    for (let i = tokens.length - 1; i >= 0 && tokens[i] === last; i--) run++;
    if (run >= row.tokenRunAllowance(last, settings.maxTokenRun)) blocked.add(last);
  }
  // The trailing run of letters and the letters so far.
  let letters = 0;
  let runChar = '';
  let runLength = 0;
  for (const id of tokens) {
    const shape = table.shape(id);
    letters += shape.letters;
    if (shape.first === '') continue;
    if (shape.uniform && shape.first === runChar) runLength += shape.lead;
    else {
      runChar = shape.last;
      runLength = shape.tail;
    }
  }
  return {
    blocked,
    seen: settings.repetitionPenalty === 1 ? null : new Set(tokens),
    penalty: settings.repetitionPenalty,
    refuses(token: number): Refusal {
      const shape = table.shape(token);
      if (shape.first === '') return null;
      if (letters + shape.letters > row.source.maxLetters) return 'cap';
      if (shape.first === runChar && runLength + shape.lead > row.letterRunAllowance(runChar, settings.maxLetterRun)) return 'letter_run';
      const [ch, length] = shape.inner;
      if (length > row.letterRunAllowance(ch, settings.maxLetterRun)) return 'letter_run';
      return null;
    },
  };
}

/** A logit after the repetition penalty. */
export function penalised(constraint: StepConstraint, token: number, logit: number): number {
  if (constraint.seen === null || !constraint.seen.has(token)) return logit;
  return logit > 0 ? logit / constraint.penalty : logit * constraint.penalty;
}

export type DegenerationKind = 'letter_run' | 'word_repeat' | 'token_repeat' | 'too_long';

export interface Degeneration {
  readonly kind: DegenerationKind;
  /**
   * The sound prefix, ending where the loop starts repeating (its unit kept once) or where the
   * letters pass the cap: `text.slice(0, chars)`, or for a token repeat the first `tokens` ids.
   */
  readonly keep: { readonly chars: number } | { readonly tokens: number };
}

const EDGE_PUNCTUATION = /^[\p{P}\p{S}]+|[\p{P}\p{S}]+$/gu;

/** A word as the repeat rule compares it: NFC, lower case, no punctuation at its ends. */
function comparable(word: string): string {
  return word.normalize('NFC').toLowerCase().replace(EDGE_PUNCTUATION, '');
}

/** A unit of `n` items at `i` repeated `times` times in a row. */
function repeatAt<T>(items: readonly T[], i: number, n: number, times: number): boolean {
  for (let r = 1; r < times; r++) for (let j = 0; j < n; j++) if (items[i + j] !== items[i + r * n + j]) return false;
  return true;
}

/** The first unit repeated `times` times in a row: [start, length], or null. */
function firstRepeat<T>(items: readonly T[], times: number, exempt: (unit: readonly T[]) => boolean): [number, number] | null {
  for (let i = 0; i < items.length; i++) {
    for (let n = 1; i + times * n <= items.length; n++) {
      if (repeatAt(items, i, n, times) && !exempt(items.slice(i, i + n))) return [i, n];
    }
  }
  return null;
}

function containsRun<T>(items: readonly T[], unit: readonly T[], times: number): boolean {
  const n = unit.length;
  for (let i = 0; i + times * n <= items.length; i++) {
    let ok = true;
    for (let r = 0; r < times && ok; r++) for (let j = 0; j < n && ok; j++) ok = items[i + r * n + j] === unit[j];
    if (ok) return true;
  }
  return false;
}

export interface DegenerationCheck {
  /** The output text. */
  readonly text: string;
  /** The output ids, when the caller has them (token n-gram repeats). */
  readonly tokens?: readonly number[];
  readonly sourceText: string;
  readonly sourceTokens?: readonly number[];
  /** Most letters allowed (`charCap`, or 3 x the source letters). */
  readonly maxLetters: number;
  /** Letter-run length that is degenerate (default 5). */
  readonly letterRun?: number;
}

/** The first way `text` is degenerate, or null. */
export function findDegeneration(check: DegenerationCheck): Degeneration | null {
  const { text, sourceText } = check;
  const limit = check.letterRun ?? DEGENERATE.letterRun;
  const times = DEGENERATE.repeats;
  const sourceRuns = letterRuns(sourceText);
  // Letter runs.
  const chars = [...text];
  const folded = chars.map((ch) => ch.toLowerCase());
  let count = 0;
  for (let i = 0; i < chars.length; i++) {
    count = i > 0 && folded[i] === folded[i - 1] ? count + 1 : 1;
    const ch = chars[i]!;
    if (count >= limit && RUN_CHAR.test(ch) && count > (sourceRuns.get(folded[i]!) ?? 0)) {
      // Keep the run's first letter.
      const start = i - count + 1;
      return { kind: 'letter_run', keep: { chars: chars.slice(0, start + 1).join('').length } };
    }
  }
  // Word n-grams, words compared case-folded without the punctuation at their ends.
  const words: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  for (const match of text.matchAll(/\S+/gu)) {
    const word = comparable(match[0]);
    if (word === '') continue;
    words.push(word);
    starts.push(match.index);
    ends.push(match.index + match[0].length);
  }
  const sourceWords = (sourceText.match(/\S+/gu) ?? []).map(comparable).filter((w) => w !== '');
  const wordRepeat = firstRepeat(words, times, (unit) => containsRun(sourceWords, unit, times));
  if (wordRepeat !== null) {
    const [i, n] = wordRepeat;
    // Keep the unit once.
    return { kind: 'word_repeat', keep: { chars: ends[i + n - 1]! } };
  }
  // Letters repeated inside one word (`ምንምንምን`): a unit of 2 or more characters with a letter.
  const sourceLower = sourceText.normalize('NFC').toLowerCase();
  for (let w = 0; w < words.length; w++) {
    const letters = [...words[w]!];
    const found = firstRepeat(
      letters,
      times,
      (unit) => unit.length < 2 || !unit.some((ch) => /\p{L}/u.test(ch)) || sourceLower.includes(unit.join('').repeat(times)),
    );
    if (found !== null) {
      const [i, n] = found;
      // Keep the word up to the unit's first copy.
      const original = text.slice(starts[w]!, ends[w]!);
      const cut = [...original.normalize('NFC')].slice(0, i + n).join('');
      return { kind: 'word_repeat', keep: { chars: starts[w]! + Math.min(cut.length, original.length) } };
    }
  }
  if (check.tokens !== undefined) {
    const sourceTokens = check.sourceTokens ?? [];
    const tokenRepeat = firstRepeat(check.tokens, times, (unit) => containsRun(sourceTokens, unit, times));
    if (tokenRepeat !== null) return { kind: 'token_repeat', keep: { tokens: tokenRepeat[0] + tokenRepeat[1] } };
  }
  if (letterCount(text) > check.maxLetters) {
    let letters = 0;
    let keep = 0;
    for (const ch of text) {
      if (!/\s/u.test(ch)) letters++;
      if (letters > check.maxLetters) break;
      keep += ch.length;
    }
    return { kind: 'too_long', keep: { chars: keep } };
  }
  return null;
}
