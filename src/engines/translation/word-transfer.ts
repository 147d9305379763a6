/**
 * Word and phrase transfer: a translation that keeps the source's order and replaces each word or
 * short phrase the direction's table knows by its most likely translation. Served for the
 * directions a manifest lists under `word_transfer`, instead of the network, where the network
 * scores below it on held-out text (docs/translation-models.md, *Transfer directions*): Amharic
 * <-> Tigrinya (close languages sharing a script: unknown words kept) and Amharic / Tigrinya <->
 * English (a gloss: the English reads in the source's word order).
 *
 * Rules:
 * - A word is a maximal run of letters, marks and digits (Unicode L, M, N), an apostrophe between
 *   two of them included ("doesn't", as training/translation/phrase_transfer_mt.py reads words). What lies between
 *   words (spaces, punctuation, symbols, line breaks) is copied, except as `punctuation` says.
 * - Matching, left to right: the longest run of at most `maxSourceWords` words, separated by
 *   spaces or tabs only (never across a line break or punctuation), whose lowercased text has an
 *   entry with probability at least `minProbability`, is replaced by the entry's target. A word
 *   made of digits only is never looked up (numbers are copied, never "translated"), and an entry
 *   whose target holds a digit serves only a source that holds one (no number is invented).
 * - A word no entry covers is kept (`unknownWords: 'keep'`) or written in Latin letters
 *   (`'romanize'`, ethiopic-romanization.ts). Nothing is dropped and nothing is reordered.
 * - A replacement that would repeat the output just before it (the same text, or a first word that
 *   ended it) is not made unless the source repeats too (several words often share one frequent
 *   target, and "and and and" is a degenerate output): a shorter phrase is tried, else the word is
 *   treated as unknown.
 * - `punctuation: 'to-latin'` writes Ethiopic full stop, comma, semicolons, colon and question
 *   mark as Latin ones; `'to-ethiopic'` the reverse for . , ; : — only where the mark is followed
 *   by whitespace or ends the text (so "3.5", "1,000" and "U.S" stay), and never a full stop right
 *   after a one-letter word (an initial: "U.S. officials"). `'keep'` copies them.
 * - `capitalizeSentences` upper-cases the first letter output at the text's start, after . ? !
 *   followed by whitespace and after a line break (for a cased target such as English).
 * - Tables: a Moses lexical table (`lex.f2e` layout: `target source probability` a line; what
 *   `train-model.perl` and training/translation/word_transfer_mt.py write) or a Moses phrase
 *   table (`source ||| target ||| scores [||| ...]`; with four or more scores the third,
 *   p(target|source), as `train-model.perl` orders them, else the first; what
 *   training/translation/phrase_transfer_mt.py writes). A source with several lines keeps its most
 *   probable target; an entry whose target holds one word twice in a row ("road road", alignment
 *   noise) is skipped. Sources are matched lowercased. Empty lines and `#` comments are skipped;
 *   any other malformed line is an error naming its line number.
 * Pure; the text's length times `maxSourceWords` bounds the work (a map lookup per candidate).
 */
import { romanizeEthiopic } from './ethiopic-romanization.js';

export interface WordTransferEntry {
  readonly target: string;
  readonly probability: number;
}

export interface WordTransferTable {
  /** Lowercased source word or phrase (words joined by one space) -> its most probable target. */
  readonly entries: ReadonlyMap<string, WordTransferEntry>;
  /** Words in the longest source phrase (1 for a lexical table). */
  readonly maxSourceWords: number;
}

export type UnknownWords = 'keep' | 'romanize';
export type PunctuationMapping = 'keep' | 'to-latin' | 'to-ethiopic';

export interface TransferOptions {
  readonly minProbability: number;
  readonly unknownWords?: UnknownWords;
  readonly punctuation?: PunctuationMapping;
  readonly capitalizeSentences?: boolean;
}

export class WordTransferTableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WordTransferTableError';
  }
}

const LEX_LINE = 'expected "target source probability" or "source ||| target ||| scores" with a probability from 0 to 1';

/** Parses a Moses lexical or phrase table into lowercased source -> best target. */
export function parseWordTransferTable(text: string): WordTransferTable {
  const entries = new Map<string, WordTransferEntry>();
  let maxSourceWords = 1;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.length === 0 || line.startsWith('#')) continue;
    const parsed = line.includes('|||') ? phraseLine(line) : lexLine(line);
    if (parsed === null) throw new WordTransferTableError(`line ${i + 1}: ${LEX_LINE}`);
    const { source, target, probability } = parsed;
    if (repeatsAWord(target)) continue;
    maxSourceWords = Math.max(maxSourceWords, source.split(' ').length);
    const known = entries.get(source);
    if (known === undefined || probability > known.probability) entries.set(source, { target, probability });
  }
  return { entries, maxSourceWords };
}

interface TableLine {
  readonly source: string;
  readonly target: string;
  readonly probability: number;
}

function lexLine(line: string): TableLine | null {
  const fields = line.split(/\s+/);
  const probability = Number(fields[2]);
  if (fields.length !== 3 || !isProbability(probability)) return null;
  return { target: fields[0]!, source: fields[1]!.toLowerCase(), probability };
}

function phraseLine(line: string): TableLine | null {
  const fields = line.split('|||').map((f) => f.trim());
  if (fields.length < 3) return null;
  const source = wordsOf(fields[0]!.toLowerCase()).join(' ');
  const target = fields[1]!.split(/\s+/).join(' ');
  const scores = fields[2]!.split(/\s+/).map(Number);
  const probability = scores.length >= 4 ? scores[2]! : scores[0]!;
  if (source.length === 0 || target.length === 0 || !isProbability(probability)) return null;
  return { source, target, probability };
}

const isProbability = (p: number): boolean => Number.isFinite(p) && p >= 0 && p <= 1;

const WORD = /[\p{L}\p{M}\p{N}]+(?:['\u2019][\p{L}\p{M}\p{N}]+)*/gu;
const DIGITS = /^\p{N}+$/u;
const HAS_DIGIT = /\p{N}/u;
const INITIAL = /^\p{L}$/u;
const INSIDE_PHRASE = /^[ \t]+$/;
const SENTENCE_END = /[.?!።፧]\s+$|\n/u;
const TO_LATIN: Readonly<Record<string, string>> = { '።': '.', '፣': ',', '፤': ';', '፥': ':', '፦': ':', '፧': '?' };
const TO_ETHIOPIC: Readonly<Record<string, string>> = { '.': '።', ',': '፣', ';': '፤', ':': '፥' };

/** The words of `text` as transfer sees them (runs of letters, marks and digits, inner apostrophes included), in order. */
export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The text with every known word or phrase replaced; all else as the options say (header). */
export function transferWords(text: string, table: WordTransferTable, options: TransferOptions): string {
  const words: { text: string; start: number; end: number }[] = [];
  for (const m of text.matchAll(WORD)) words.push({ text: m[0], start: m.index!, end: m.index! + m[0].length });
  const mapping = options.punctuation ?? 'keep';
  // The gap after word k (-1: before the first word) up to `to`.
  const gap = (k: number, to: number): string => {
    const from = k < 0 ? 0 : words[k]!.end;
    return mapPunctuation(text.slice(from, to), mapping, to === text.length, k >= 0 && INITIAL.test(words[k]!.text));
  };
  let out = '';
  let previousSource: string | null = null;
  let previousOutput: string | null = null;
  for (let i = 0; i < words.length; ) {
    const before = gap(i - 1, words[i]!.start);
    const sentenceStart = i === 0 || SENTENCE_END.test(before);
    out += before;
    let taken = 1;
    let source = words[i]!.text.toLowerCase();
    let output: string | null = null;
    for (let n = Math.min(table.maxSourceWords, words.length - i); n >= 1 && output === null; n--) {
      const span = words.slice(i, i + n);
      if (span.some((w) => DIGITS.test(w.text))) continue;
      if (span.some((w, k) => k > 0 && !INSIDE_PHRASE.test(text.slice(span[k - 1]!.end, w.start)))) continue;
      const key = span.map((w) => w.text.toLowerCase()).join(' ');
      const entry = table.entries.get(key);
      if (entry === undefined || entry.probability < options.minProbability) continue;
      if (key !== previousSource && repeats(entry.target, previousOutput)) continue;
      if (HAS_DIGIT.test(entry.target) && !HAS_DIGIT.test(key)) continue;
      output = entry.target;
      taken = n;
      source = key;
    }
    if (output === null) output = options.unknownWords === 'romanize' && !DIGITS.test(words[i]!.text) ? romanizeEthiopic(words[i]!.text) : words[i]!.text;
    if (options.capitalizeSentences === true && sentenceStart) output = output[0]!.toUpperCase() + output.slice(1);
    out += output;
    previousSource = source;
    previousOutput = output;
    i += taken;
  }
  return out + gap(words.length - 1, text.length);
}

/** True when the phrase holds one word twice in a row ("road road"): such an entry is never used. */
function repeatsAWord(phrase: string): boolean {
  const words = phrase.toLowerCase().split(' ');
  return words.some((word, k) => k > 0 && word === words[k - 1]);
}

/** True when `target` would repeat the output before it, case aside: the same text, or its first word that output's last. */
function repeats(target: string, previous: string | null): boolean {
  if (previous === null) return false;
  const [next, last] = [target.toLowerCase(), previous.toLowerCase()];
  return next === last || next.split(' ', 1)[0] === last.slice(last.lastIndexOf(' ') + 1);
}

/**
 * The gap between two words (or after the last) with its sentence marks mapped; a mark is mapped only
 * before whitespace or the text's end, and a full stop right after a one-letter word (an initial:
 * "U.S. officials", "J. K.") never.
 */
function mapPunctuation(gap: string, mapping: PunctuationMapping, endsText: boolean, afterInitial: boolean): string {
  if (mapping === 'keep' || gap.length === 0) return gap;
  const table = mapping === 'to-latin' ? TO_LATIN : TO_ETHIOPIC;
  let out = '';
  for (let k = 0; k < gap.length; k++) {
    const mapped = k === 0 && afterInitial && gap[0] === '.' ? undefined : table[gap[k]!];
    const followedBySpace = k + 1 === gap.length ? endsText : /\s/.test(gap[k + 1]!);
    out += mapped !== undefined && followedBySpace ? mapped : gap[k]!;
  }
  return out;
}
