/**
 * Cuts a text into sentences for translation, keeping every punctuation mark attached to the
 * sentence it ends, and remembers the whitespace between sentences so the translations can be
 * joined back with the same line breaks (`joinSentences`).
 *
 * Sentence ends: the Ethiopic full stop `።` and question mark `፧` end a sentence wherever they
 * stand (Ethiopic text often has no space after them); `.`, `?` and `!` end one only when
 * whitespace or the end of the text follows (so `3.5`, `e.g.x` and URLs stay whole). Closing
 * quotes and brackets right after the mark stay with the sentence, and so do repeated marks
 * (`?!`, `...`). The Ethiopic comma `፣` and semicolon `፤` (and `:`/`;`) never end a sentence. A
 * line break always ends one. Pure.
 */

export interface Sentence {
  /** The sentence, trimmed, with its final punctuation. */
  readonly text: string;
  /** The whitespace that followed it in the input ('' for the last one). */
  readonly after: string;
}

const ALWAYS_ENDS = new Set(['።', '፧']);
const ENDS_BEFORE_SPACE = new Set(['.', '?', '!']);
const CLOSERS = new Set(['"', "'", '”', '’', '»', ')', ']', '›']);
const WHITESPACE = /\s/u;

function isEndMark(ch: string): boolean {
  return ALWAYS_ENDS.has(ch) || ENDS_BEFORE_SPACE.has(ch);
}

export function splitSentences(text: string): Sentence[] {
  const chars = Array.from(text);
  const sentences: Sentence[] = [];
  let current = '';
  let i = 0;
  const flush = (after: string): void => {
    const trimmed = current.trim();
    if (trimmed.length > 0) sentences.push({ text: trimmed, after });
    else if (sentences.length > 0 && after.length > 0) {
      // Whitespace between two sentences belongs to the previous one.
      const last = sentences[sentences.length - 1]!;
      sentences[sentences.length - 1] = { text: last.text, after: last.after + after };
    }
    current = '';
  };
  const readSpace = (): string => {
    let space = '';
    while (i < chars.length && WHITESPACE.test(chars[i]!)) space += chars[i++]!;
    return space;
  };
  while (i < chars.length) {
    const ch = chars[i]!;
    if (ch === '\n' || ch === '\r') {
      flush(readSpace());
      continue;
    }
    current += ch;
    i++;
    if (!isEndMark(ch)) continue;
    // Take further marks and closing quotes/brackets with this sentence.
    let always = ALWAYS_ENDS.has(ch);
    while (i < chars.length && (isEndMark(chars[i]!) || CLOSERS.has(chars[i]!))) {
      if (ALWAYS_ENDS.has(chars[i]!)) always = true;
      current += chars[i++]!;
    }
    if (i >= chars.length) break;
    if (WHITESPACE.test(chars[i]!)) flush(readSpace());
    else if (always) flush('');
  }
  flush('');
  return sentences;
}

/**
 * Joins translated sentences back: a break that held a line break keeps its line breaks (other
 * whitespace dropped), any other break becomes one space; an empty translation leaves no
 * separator behind. `translated[i]` stands for `sentences[i]`.
 */
export function joinSentences(sentences: readonly Sentence[], translated: readonly string[]): string {
  let out = '';
  let pending = '';
  sentences.forEach((sentence, i) => {
    const text = (translated[i] ?? '').trim();
    if (text.length > 0) {
      if (out.length > 0) out += pending.length > 0 ? pending : ' ';
      out += text;
      pending = '';
    }
    const breaks = sentence.after.replace(/[^\n]/g, '');
    if (breaks.length > pending.length) pending = breaks;
  });
  return out;
}
