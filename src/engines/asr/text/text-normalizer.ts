/**
 * Text normalisation for am (Amharic), ti (Tigrinya) — Ethiopic script — and om (Oromo) —
 * Latin script. One function, three presets, so LM building, scoring and output agree:
 *
 * - `forOutput`  what the gateway returns: Unicode NFC, whitespace collapsed, punctuation in the
 *   language's canonical form (below), numerals as the model wrote them; case as written, or
 *   regularised for true-case models (output-casing.ts).
 * - `forLm`      text an n-gram LM is built from and queried with: numerals as ASCII digits,
 *   tweet markup (@user, URLs, #) and symbols outside the canonical set removed, punctuation kept
 *   (canonical) or dropped to match the model's vocabulary, Oromo lower-cased unless asked.
 * - `forScoring` text compared by CER/WER: numerals as ASCII digits, every punctuation mark and
 *   symbol removed, lower case (Oromo's true case is for output only).
 *
 * Numerals: a run of Ge'ez numerals (፩..፼) becomes its value in ASCII digits wherever numerals
 * are `ascii`; ASCII digits are never turned into Ge'ez numerals (the corpora write numbers in
 * ASCII digits: HornMT and AfriSenti hold no Ge'ez numerals at all).
 *
 * Punctuation (canonical form):
 * - Ethiopic script (am, ti): ። ፣ ፤ ፥ ፦ ? ! are the marks. ASCII `,` → ፣, `;` → ፤, `::` and
 *   `፡፡` → ።, a `:` not between digits → ፥, ፧ → `?` (the corpora use `?` about 1000x more),
 *   ፡ (word space) → space. `.` is kept as written (abbreviations, decimals).
 * - Latin script (om): Ethiopic marks become ASCII (። → `.`, ፣ → `,`, ፤ → `;`, ፥ ፦ → `:`,
 *   ፧ → `?`, ፡ → space); apostrophe variants (’ ‘ ` ʼ) → `'`, which is a letter in Oromo
 *   (hudhaa: ga'e) and is kept inside words even when punctuation is dropped.
 * - No space before a mark, one space after it.
 * - A run of marks (a decoder's `።፣`, a doubled `።።`, `., `) is one mark, the strongest of the
 *   run (`?` `!` > `።`/`.` > `፤`/`;` > `፥` `፦`/`:` > `፣`/`,`); a mark that opens the text is dropped.
 * Dropped punctuation becomes a space (so "ቤት።ልጅ" → "ቤት ልጅ"), then whitespace is collapsed.
 */
import { geezNumeralsToAscii } from './ethiopic-numerals.js';
import { trueCaseLatin } from './output-casing.js';

export interface NormalizeOptions {
  readonly numerals: 'ascii' | 'keep';
  readonly punctuation: 'canonical' | 'drop';
  readonly casing: 'keep' | 'lower';
  /** Remove @mentions, URLs, '#' and symbols (emoji, quotes, brackets) outside the canonical marks. */
  readonly stripSymbols: boolean;
}

const ETHIOPIC_LANGUAGES = new Set(['am', 'ti', 'gez', 'tig']);

/** True for languages written in Ethiopic script (am, ti); others are treated as Latin script. */
export function usesEthiopicScript(language: string): boolean {
  return ETHIOPIC_LANGUAGES.has(language);
}

const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff\u00ad]/gu;
const APOSTROPHES = /[\u2018\u2019\u02bc\u02bb`\u2032\u00b4]/gu;
const MENTION_OR_URL = /(?:@\w+|https?:\/\/\S+|www\.\S+)/gu;
const ETHIOPIC_MARKS = '።፣፤፥፦?!';
const LATIN_MARKS = '.,;:?!';

function canonicalEthiopic(text: string): string {
  return text
    .replace(/፡፡|::/gu, '።')
    .replace(/፡/gu, ' ')
    .replace(/,/gu, '፣')
    .replace(/;/gu, '፤')
    .replace(/፧/gu, '?')
    .replace(/(?<!\d):|:(?!\d)/gu, '፥');
}

function canonicalLatin(text: string): string {
  return text.replace(/፡፡|።/gu, '.').replace(/፡/gu, ' ').replace(/፣/gu, ',').replace(/፤/gu, ';').replace(/[፥፦]/gu, ':').replace(/፧/gu, '?');
}

export function normalizeText(text: string, language: string, options: NormalizeOptions): string {
  const ethiopic = usesEthiopicScript(language);
  let s = text.normalize('NFC').replace(ZERO_WIDTH, '');
  if (!ethiopic) s = s.replace(APOSTROPHES, "'");
  if (options.numerals === 'ascii') s = geezNumeralsToAscii(s);
  if (options.stripSymbols) s = s.replace(MENTION_OR_URL, ' ');
  s = ethiopic ? canonicalEthiopic(s) : canonicalLatin(s);
  const marks = ethiopic ? ETHIOPIC_MARKS : LATIN_MARKS;
  if (options.punctuation === 'drop') {
    // Letters, combining marks and digits stay; in Latin script an apostrophe between letters stays.
    if (!ethiopic) s = s.replace(/(?<=\p{L})'(?=\p{L})/gu, '\u0001');
    s = s.replace(/[^\p{L}\p{M}\p{Nd}\s\u0001]/gu, ' ').replace(/\u0001/gu, "'");
  } else if (options.stripSymbols) {
    const keep = new RegExp(`[^\\p{L}\\p{M}\\p{Nd}\\s${escapeClass(marks)}${ethiopic ? '.' : "'"}]`, 'gu');
    s = s.replace(keep, ' ');
    if (!ethiopic) s = s.replace(/(?<!\p{L})'|'(?!\p{L})/gu, ' ');
  }
  if (options.casing === 'lower') s = s.toLowerCase();
  s = s.replace(/\s+/gu, ' ').trim();
  if (options.punctuation !== 'drop') {
    const markClass = `[${escapeClass(marks)}]`;
    s = collapseMarkRuns(s, ethiopic ? ETHIOPIC_STRENGTH : LATIN_STRENGTH);
    s = s.replace(new RegExp(`\\s+(${markClass})`, 'gu'), '$1').replace(new RegExp(`(${markClass})(?=[^\\s${escapeClass(marks)}\\d])`, 'gu'), '$1 ');
  }
  return s;
}

const ETHIOPIC_STRENGTH: Readonly<Record<string, number>> = { '?': 5, '!': 5, '።': 4, '፤': 3, '፥': 2, '፦': 2, '፣': 1 };
const LATIN_STRENGTH: Readonly<Record<string, number>> = { '?': 5, '!': 5, '.': 4, ';': 3, ':': 2, ',': 1 };

function collapseMarkRuns(text: string, strength: Readonly<Record<string, number>>): string {
  const marks = escapeClass(Object.keys(strength).join(''));
  const run = new RegExp(`[${marks}](?:\\s*[${marks}])+`, 'gu');
  return text
    .replace(run, (found) => {
      let best = '';
      for (const mark of found.replace(/\s+/gu, '')) if (best === '' || strength[mark]! > strength[best]!) best = mark;
      return best;
    })
    .replace(new RegExp(`^\\s*[${marks}]\\s*`, 'u'), '');
}

function escapeClass(chars: string): string {
  return chars.replace(/[\\\]^-]/g, '\\$&');
}

/**
 * Text as the gateway returns it. `trueCase`: the model writes upper and lower case (Oromo's
 * `true_case` models); its casing is then made regular (see output-casing.ts), with a capital
 * at the start when `sentenceStart` (default true: a recognised piece is an utterance).
 */
export function forOutput(text: string, language: string, options: { readonly trueCase?: boolean; readonly sentenceStart?: boolean } = {}): string {
  const out = normalizeText(text, language, { numerals: 'keep', punctuation: 'canonical', casing: 'keep', stripSymbols: false });
  if (!options.trueCase || usesEthiopicScript(language)) return out;
  return trueCaseLatin(out, { sentenceStart: options.sentenceStart ?? true });
}

/** Text for building or querying an n-gram LM; see the module comment. */
export function forLm(text: string, language: string, options: { punctuation?: 'canonical' | 'drop'; casing?: 'keep' | 'lower' } = {}): string {
  return normalizeText(text, language, {
    numerals: 'ascii',
    punctuation: options.punctuation ?? 'drop',
    casing: options.casing ?? (usesEthiopicScript(language) ? 'keep' : 'lower'),
    stripSymbols: true,
  });
}

/** Text for CER/WER: no punctuation or symbols, ASCII digits, lower case. */
export function forScoring(text: string, language: string): string {
  return normalizeText(text, language, { numerals: 'ascii', punctuation: 'drop', casing: 'lower', stripSymbols: true });
}
