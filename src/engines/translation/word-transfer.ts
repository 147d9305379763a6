/**
 * Word-for-word transfer between two closely related languages that share a script (Amharic and
 * Tigrinya): the source is kept as it is, and each word the table knows is replaced by its most
 * likely translation. Served for the directions a manifest lists under `word_transfer`, instead of
 * the network, where the network scores below copying the source (docs/translation-models.md,
 * *Amharic ↔ Tigrinya*).
 *
 * Rules:
 * - A word is a maximal run of letters, marks and digits (Unicode L, M, N). Everything else
 *   (spaces, Ethiopic and Latin punctuation, symbols) is copied unchanged, so sentence
 *   boundaries, numbers' separators and line breaks survive.
 * - A word is replaced only by an entry for exactly that word with probability at least
 *   `minProbability`; otherwise it is kept. Nothing is reordered, added or dropped.
 * - A replacement that would repeat the word output just before it is not made unless the source
 *   repeats the word too (several different words often share one frequent target, and "and and
 *   and" is a degenerate output).
 * - The table is a lexical translation table in the layout of Moses' `lex.f2e` / `lex.e2f`
 *   (one `target source probability` line each, whitespace-separated; what `train-model.perl`
 *   and training/translation/word_transfer_mt.py write). A source with several lines keeps its
 *   most probable target. Empty lines and `#` comments are skipped; any other malformed line is
 *   an error naming its line number.
 * Pure; the text's length bounds the work (one pass, one map lookup a word).
 */

export interface WordTransferEntry {
  readonly target: string;
  readonly probability: number;
}

export type WordTransferTable = ReadonlyMap<string, WordTransferEntry>;

export class WordTransferTableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WordTransferTableError';
  }
}

/** Parses a Moses-layout lexical table (`target source probability` a line) into source -> best target. */
export function parseWordTransferTable(text: string): WordTransferTable {
  const table = new Map<string, WordTransferEntry>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line.length === 0 || line.startsWith('#')) continue;
    const fields = line.split(/\s+/);
    const probability = Number(fields[2]);
    if (fields.length !== 3 || !Number.isFinite(probability) || probability < 0 || probability > 1) {
      throw new WordTransferTableError(`line ${i + 1}: expected "target source probability" with a probability from 0 to 1`);
    }
    const [target, source] = fields as [string, string, string];
    const known = table.get(source);
    if (known === undefined || probability > known.probability) table.set(source, { target, probability });
  }
  return table;
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** The words of `text` as transfer sees them (runs of letters, marks and digits), in order. */
export function wordsOf(text: string): string[] {
  return text.match(WORD) ?? [];
}

/** The text with every known word (probability >= minProbability) replaced; all else unchanged. */
export function transferWords(text: string, table: WordTransferTable, minProbability: number): string {
  let previousSource: string | null = null;
  let previousOutput: string | null = null;
  return text.replace(WORD, (word) => {
    const entry = table.get(word);
    let output = entry !== undefined && entry.probability >= minProbability ? entry.target : word;
    if (output !== word && output === previousOutput && word !== previousSource) output = word;
    previousSource = word;
    previousOutput = output;
    return output;
  });
}
