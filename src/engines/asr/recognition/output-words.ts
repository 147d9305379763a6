/**
 * The words of a recognised piece's output text, each with its time and confidence from the
 * decoded path's CTC alignment (the decoders give every emitted token its frames: the greedy
 * decoder its argmax run, the beam decoder a Viterbi alignment of its best labels; ctc-types.ts).
 * Pure.
 *
 * Rules:
 * - The words are the output text (text-normalizer.ts `forOutput`: canonical punctuation, no space
 *   before a mark, true case) split at its single spaces, so they join back to the text exactly,
 *   whatever the normalisation did to the decoder's words (a mark attached to the word before it,
 *   `ቤት።ልጅ` split in two, a doubled letter of a true-case model merged, a capital after `.`).
 * - A word's time spans the tokens of its letters, combining marks and digits (its "significant"
 *   characters): start = the first such token's first frame, end = the last one's end frame, times
 *   `frameMs`, plus `startMs`, rounded to ms. Punctuation and the word delimiter do not count (a
 *   mark emitted in the pause after a word does not stretch it). Times are capped at `endMs`, the
 *   piece's end (its last frame may reach past the audio; a short piece is padded).
 * - Confidence: the mean posterior of those tokens (each counted once), to 4 decimals.
 * - Matching output characters to tokens: the significant characters of the output and of the
 *   tokens (NFC, lower-cased) are walked in step; an output character that does not match the next
 *   token character is looked for a few characters ahead (a merged doubled letter), else taken as
 *   a substitution. A word with no significant character (a lone symbol) is placed, zero-length,
 *   at the end of the word before it (the start of the first token when it is first) with
 *   confidence null. Starts never decrease and no word ends before it starts.
 */
import type { CtcToken, CtcVocabulary } from '../decoding/ctc-types.js';

export interface OutputWord {
  readonly text: string;
  readonly start_ms: number;
  readonly end_ms: number;
  /** Mean posterior of the word's tokens (0..1); null for a word without letters or digits. */
  readonly confidence: number | null;
}

export interface WordTiming {
  /** Milliseconds per output frame (the model's frame stride). */
  readonly frameMs: number;
  /** Time of the piece's first sample, ms. */
  readonly startMs: number;
  /** Time of the piece's end, ms: no word ends after it (the last frame may reach past the audio, and padding adds frames). */
  readonly endMs?: number;
}

const SIGNIFICANT = /[\p{L}\p{M}\p{N}]/u;
/** How far ahead an unmatched output character is looked for among the tokens' characters. */
const LOOKAHEAD = 3;

interface RawChar {
  readonly ch: string;
  /** Index into the tokens. */
  readonly token: number;
}

/** The significant characters of the emitted tokens, in order, each with its token. */
function tokenCharacters(tokens: readonly CtcToken[], vocabulary: CtcVocabulary): RawChar[] {
  const out: RawChar[] = [];
  tokens.forEach((token, index) => {
    if (token.id === vocabulary.blankId) return;
    const symbol = vocabulary.tokens[token.id] ?? '';
    if (symbol === vocabulary.wordDelimiter) return;
    for (const ch of symbol.normalize('NFC')) if (SIGNIFICANT.test(ch)) out.push({ ch: ch.toLowerCase(), token: index });
  });
  return out;
}

const significant = (word: string): string[] => [...word.normalize('NFC')].filter((ch) => SIGNIFICANT.test(ch)).map((ch) => ch.toLowerCase());

/** The words of `text` with times and confidences from `tokens` (see the module comment). */
export function outputWords(text: string, tokens: readonly CtcToken[], vocabulary: CtcVocabulary, timing: WordTiming): OutputWord[] {
  const texts = text.split(' ').filter((w) => w.length > 0);
  if (texts.length === 0) return [];
  const raw = tokenCharacters(tokens, vocabulary);
  const limit = timing.endMs ?? Number.POSITIVE_INFINITY;
  const ms = (frame: number): number => Math.min(limit, Math.round(timing.startMs + frame * timing.frameMs));
  let cursor = 0;
  let previousEnd: number | null = null;
  let previousStart = Number.NEGATIVE_INFINITY;
  const words: OutputWord[] = [];
  for (const word of texts) {
    const used: number[] = [];
    for (const ch of significant(word)) {
      if (cursor >= raw.length) break;
      let at = -1;
      for (let j = cursor; j < Math.min(raw.length, cursor + 1 + LOOKAHEAD); j++) {
        if (raw[j]!.ch === ch) {
          at = j;
          break;
        }
      }
      if (at < 0) at = cursor; // a substitution
      const token = raw[at]!.token;
      if (used[used.length - 1] !== token) used.push(token);
      cursor = at + 1;
    }
    if (used.length === 0) {
      const at = previousEnd ?? (tokens.length > 0 ? ms(tokens[0]!.startFrame) : Math.min(limit, Math.round(timing.startMs)));
      const start = Math.max(at, previousStart);
      words.push({ text: word, start_ms: start, end_ms: start, confidence: null });
      previousStart = start;
      previousEnd = start;
      continue;
    }
    const first = tokens[used[0]!]!;
    const last = tokens[used[used.length - 1]!]!;
    const start = Math.max(ms(first.startFrame), previousStart);
    const end = Math.max(ms(last.endFrame), start);
    let sum = 0;
    for (const index of used) sum += tokens[index]!.probability;
    words.push({ text: word, start_ms: start, end_ms: end, confidence: Math.round((sum / used.length) * 10_000) / 10_000 });
    previousStart = start;
    previousEnd = end;
  }
  return words;
}
