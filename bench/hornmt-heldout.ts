/**
 * The held-out HornMT sentences of the shipped translation model (models/translate-am-en-ti-v1),
 * rebuilt as training/translation/prepare_mt.py split them: the same seed (20261124), the same
 * order of random draws (one block shuffle per crawled corpus: MarsPanther news, legal, history,
 * Travis Wikipedia; then the shuffle of the HornMT lines: the first 150 are dev, the next 300 test),
 * the same line reading (NFC, whitespace runs as one space, lines as Python's text files split
 * them) and the same filter (both sides non-empty and at most 400 code points). HornMT is aligned
 * in all its languages, so one line gives a sentence for each of the six directions between am,
 * en and ti; none of the test lines was trained on. Reads ../shared/data; otherwise pure.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PythonRandom } from './python-random.js';

export const TRANSLATION_SPLIT_SEED = 20_261_124;
const BLOCK = 40;
const CRAWLED = [
  ['parallel/am-en/news', 'am'],
  ['parallel/am-en/legal', 'am'],
  ['parallel/am-en/history', 'am'],
  ['parallel/ti-en/wikipedia', 'ti'],
] as const;
export const HORNMT_FILES = { am: 'amh.txt', en: 'eng.txt', ti: 'tir.txt' } as const;
export type MtLanguage = keyof typeof HORNMT_FILES;
export const DIRECTIONS = [
  ['am', 'en'],
  ['en', 'am'],
  ['ti', 'en'],
  ['en', 'ti'],
  ['am', 'ti'],
  ['ti', 'am'],
] as const satisfies ReadonlyArray<readonly [MtLanguage, MtLanguage]>;

/** Python's `str.split()` whitespace. */
const PY_WHITESPACE = /[\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/u;

/** Lines as `for line in open(path)` yields them (universal newlines), each NFC with whitespace collapsed. */
export function readLinesLikePython(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  if (text === '') return [];
  const lines = text.split(/\r\n|\r|\n/);
  if (/(\r\n|\r|\n)$/.test(text)) lines.pop();
  return lines.map((line) =>
    line
      .normalize('NFC')
      .split(PY_WHITESPACE)
      .filter((w) => w !== '')
      .join(' '),
  );
}

/** prepare_mt.py's `usable`: both sides non-empty and at most 400 code points. */
export const usablePair = (a: string, b: string): boolean => a !== '' && b !== '' && [...a].length <= 400 && [...b].length <= 400;

/** HornMT line numbers (0-based) of the dev and test splits. */
export function hornmtSplit(dataDir: string, seed = TRANSLATION_SPLIT_SEED): { dev: number[]; test: number[] } {
  const random = new PythonRandom(seed);
  for (const [stem, language] of CRAWLED) {
    // block_split shuffles the corpus's block numbers; which blocks it keeps does not matter here.
    const n = readLinesLikePython(join(dataDir, `${stem}.${language}`)).length;
    random.shuffle(Array.from({ length: Math.ceil(n / BLOCK) }, (_, i) => i));
  }
  const lines = readLinesLikePython(join(dataDir, 'text', 'hornmt', HORNMT_FILES.am)).length;
  const order = Array.from({ length: lines }, (_, i) => i);
  random.shuffle(order);
  const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
  return { dev: sorted(order.slice(0, 150)), test: sorted(order.slice(150, 450)) };
}

export interface HeldoutSentence {
  readonly line: number;
  readonly source: string;
  readonly reference: string;
}

/** Per direction (`am-en`, ...), the usable held-out HornMT sentences of `split`, in line order. */
export function hornmtHeldout(dataDir: string, split: 'dev' | 'test' = 'test'): Record<string, HeldoutSentence[]> {
  const text = Object.fromEntries(
    (Object.keys(HORNMT_FILES) as MtLanguage[]).map((l) => [l, readLinesLikePython(join(dataDir, 'text', 'hornmt', HORNMT_FILES[l]))]),
  ) as Record<MtLanguage, string[]>;
  const lines = hornmtSplit(dataDir)[split];
  return Object.fromEntries(
    DIRECTIONS.map(([source, target]) => [
      `${source}-${target}`,
      lines
        .filter((i) => usablePair(text[source][i] ?? '', text[target][i] ?? ''))
        .map((i) => ({ line: i, source: text[source][i]!, reference: text[target][i]! })),
    ]),
  );
}
