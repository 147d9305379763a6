/**
 * Writes small HWLM files from explicit entries, for tests (the real files come from
 * training/lm/build_word_lm.py). Ids follow the file's rule: 0 <unk>, 1 <s>, 2 </s>, then the
 * vocabulary in UTF-16 code-unit order.
 */
import { align4, writeLmChecksum, writeLmHeader } from '../../src/engines/asr/decoding/lm/lm-file.js';
import { FIRST_WORD, WORD_LM_HEADER_BYTES, WORD_LM_LAYOUT } from '../../src/engines/asr/decoding/lm/word-ngram-lm.js';

/** One n-gram: its words (oldest first, by text or special name), ln p, ln backoff weight. */
export interface TestEntry {
  readonly words: readonly string[];
  readonly logProb: number;
  readonly logBow?: number;
}

const SPECIALS = ['<unk>', '<s>', '</s>'];

/** Every order-1 entry must be listed (one per special and vocabulary word). */
export function writeTestWordLm(vocabulary: readonly string[], entries: readonly TestEntry[]): Uint8Array {
  const vocab = [...vocabulary].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const idOf = new Map<string, number>([...SPECIALS.map((s, i) => [s, i] as const), ...vocab.map((w, i) => [w, i + FIRST_WORD] as const)]);
  const words = vocab.length + FIRST_WORD;
  const order = Math.max(...entries.map((e) => e.words.length));
  const levels = Array.from({ length: order }, (_, n) =>
    entries
      .filter((e) => e.words.length === n + 1)
      .map((e) => ({ ids: e.words.map((w) => idOf.get(w)!), e }))
      .sort((a, b) => {
        for (let i = 0; i < a.ids.length; i++) if (a.ids[i] !== b.ids[i]) return a.ids[i]! - b.ids[i]!;
        return 0;
      }),
  );
  if (levels[0]!.length !== words) throw new Error('every word needs an order-1 entry');
  const units = vocab.join('');
  let size = WORD_LM_HEADER_BYTES + 4 * (words + 1) + align4(2 * units.length);
  levels.forEach((l, n) => (size += 8 * l.length + (n < order - 1 ? 8 * l.length + 4 : 0)));
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  writeLmHeader(
    view,
    WORD_LM_LAYOUT,
    order,
    words,
    0,
    levels.map((l) => l.length),
  );
  let at = WORD_LM_HEADER_BYTES;
  let offset = 0;
  for (let w = 0; w <= words; w++, at += 4) {
    view.setUint32(at, offset, true);
    if (w >= FIRST_WORD && w < words) offset += vocab[w - FIRST_WORD]!.length;
  }
  for (let i = 0; i < units.length; i++) view.setUint16(at + 2 * i, units.charCodeAt(i), true);
  at += align4(2 * units.length);
  levels.forEach((level, n) => {
    for (const { ids } of level) view.setUint32(at, ids[n]!, true), (at += 4);
    for (const { e } of level) view.setFloat32(at, e.logProb, true), (at += 4);
    if (n === order - 1) return;
    for (const { e } of level) view.setFloat32(at, e.logBow ?? 0, true), (at += 4);
    const children = levels[n + 1]!;
    let child = 0;
    for (const { ids } of level) {
      view.setUint32(at, child, true), (at += 4);
      while (child < children.length && children[child]!.ids.slice(0, -1).join() === ids.join()) child++;
    }
    view.setUint32(at, child, true), (at += 4);
  });
  writeLmChecksum(bytes, WORD_LM_HEADER_BYTES);
  return bytes;
}

/**
 * The tests' bigram model, with consistent backoff weights:
 *   unigrams <unk> 0.1, </s> 0.3, ሰላም 0.4, ነው 0.2;  p(ሰላም | <s>) 0.7;  p(ነው | ሰላም) 0.6, p(</s> | ሰላም) 0.3
 *   bow(<s>) = (1 - 0.7) / (1 - 0.4) = 0.5,  bow(ሰላም) = (1 - 0.9) / (1 - 0.2 - 0.3) = 0.2
 */
export function salamBigramWordLm(): Uint8Array {
  return writeTestWordLm(
    ['ሰላም', 'ነው'],
    [
      { words: ['<unk>'], logProb: Math.log(0.1) },
      { words: ['<s>'], logProb: -99, logBow: Math.log(0.5) },
      { words: ['</s>'], logProb: Math.log(0.3) },
      { words: ['ሰላም'], logProb: Math.log(0.4), logBow: Math.log(0.2) },
      { words: ['ነው'], logProb: Math.log(0.2) },
      { words: ['<s>', 'ሰላም'], logProb: Math.log(0.7) },
      { words: ['ሰላም', 'ነው'], logProb: Math.log(0.6) },
      { words: ['ሰላም', '</s>'], logProb: Math.log(0.3) },
    ],
  );
}
