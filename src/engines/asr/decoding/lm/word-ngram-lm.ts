/**
 * Word n-gram language model in a compact binary trie (backoff form, natural-log probs), with
 * an open vocabulary: words outside it are `<unk>`, a word of the model with its own
 * probability (the decoder spells such a word with a character LM).
 *
 * File layout (HWLM v1, built by training/lm/build_word_lm.py), little-endian, every section
 * 4-byte aligned:
 *   header (64 bytes)
 *     0  magic "HWLM"             4  u16 version (1)        6  u16 header bytes (64)
 *     8  u32 order (1..10)        12 u32 word count (3 specials + vocabulary)
 *     16 u32 flags (0)            20 u32 FNV-1a of every byte after the header
 *     24 u32[10] entries per order (order 1 = word count)
 *   vocabulary  u32 offsets[words + 1] into the code units, then u16 UTF-16 code units (padded);
 *               ids 0 <unk>, 1 <s>, 2 </s> are empty; words 3.. sorted by code units
 *   per order n = 1..N, entries sorted by (context..., word):
 *     words u32[count]   probs f32[count] ln p(word | context)
 *     n < N: bows f32[count] ln backoff weight   next u32[count+1] first child in order n+1
 * p(w | h) = p(hw) if stored, else bow(h) * p(w | h minus its oldest word), bow(h) = 1 when h is
 * not stored. Word lookup is a binary search over the sorted vocabulary: loading builds no map,
 * only typed-array views on the file's one Buffer, so memory = file size.
 */
import type { TrieLevel } from './backoff-trie.js';
import { align4, checkedAlignedBytes, LanguageModelFormatError, type LmHeaderLayout, readLmHeaderStart, readTrieLevels, TrieLm } from './lm-file.js';

export const WORD_LM_MAGIC = 'HWLM';
export const WORD_LM_VERSION = 1;
export const WORD_LM_HEADER_BYTES = 64;
export const WORD_LM_MAX_ORDER = 10;
export const WORD_UNK = 0;
export const WORD_BOS = 1;
export const WORD_EOS = 2;
export const FIRST_WORD = 3;
export const WORD_LM_LAYOUT: LmHeaderLayout = {
  magic: WORD_LM_MAGIC,
  version: WORD_LM_VERSION,
  headerBytes: WORD_LM_HEADER_BYTES,
  maxOrder: WORD_LM_MAX_ORDER,
};

export interface WordLmHeader {
  readonly order: number;
  readonly words: number;
  readonly checksum: number;
  readonly counts: readonly number[];
}

/** Reads and checks the 64-byte header (enough for manifest validation without loading the file). */
export function readWordLmHeader(bytes: Uint8Array, file = '<buffer>'): WordLmHeader {
  const { view, order } = readLmHeaderStart(bytes, file, WORD_LM_LAYOUT);
  const words = view.getUint32(12, true);
  if (words < FIRST_WORD) throw new LanguageModelFormatError(file, `word count ${words} is below ${FIRST_WORD}`);
  const counts: number[] = [];
  for (let n = 0; n < order; n++) counts.push(view.getUint32(24 + 4 * n, true));
  if (counts[0] !== words) throw new LanguageModelFormatError(file, 'order-1 entry count differs from the word count');
  return { order, words, checksum: view.getUint32(20, true), counts };
}

export class WordNgramLm extends TrieLm {
  /** Words including the 3 specials. */
  readonly words: number;
  private readonly offsets: Uint32Array;
  private readonly units: Uint16Array;

  private constructor(header: WordLmHeader, offsets: Uint32Array, units: Uint16Array, levels: readonly TrieLevel[], byteLength: number) {
    super(levels, header.words, WORD_UNK, byteLength);
    this.words = header.words;
    this.offsets = offsets;
    this.units = units;
  }

  /** Indexes a whole file held in memory; throws LanguageModelFormatError on any inconsistency. */
  static fromBytes(input: Uint8Array, file = '<buffer>'): WordNgramLm {
    const header = readWordLmHeader(input, file);
    const bytes = checkedAlignedBytes(input, WORD_LM_HEADER_BYTES, header.checksum, file);
    const buffer = bytes.buffer;
    const end = bytes.byteOffset + bytes.length;
    let at = bytes.byteOffset + WORD_LM_HEADER_BYTES;
    const need = (n: number, what: string): void => {
      if (at + n > end) throw new LanguageModelFormatError(file, `truncated in ${what}`);
    };
    need(4 * (header.words + 1), 'the vocabulary offsets');
    const offsets = new Uint32Array(buffer, at, header.words + 1);
    at += 4 * (header.words + 1);
    const unitCount = offsets[header.words]!;
    for (let i = 0; i < header.words; i++) if (offsets[i]! > offsets[i + 1]!) throw new LanguageModelFormatError(file, 'vocabulary offsets are not sorted');
    need(align4(2 * unitCount), 'the vocabulary');
    const units = new Uint16Array(buffer, at, unitCount);
    at += align4(2 * unitCount);
    const { levels, at: levelsEnd } = readTrieLevels({ file, buffer, at, end, counts: header.counts, vocabularySize: header.words, noun: 'word' }, Uint32Array);
    if (levelsEnd !== end) throw new LanguageModelFormatError(file, `${end - levelsEnd} bytes after the last order (padded)`);
    const lm = new WordNgramLm(header, offsets, units, levels, input.length);
    for (let w = FIRST_WORD + 1; w < header.words; w++)
      if (!lm.before(w - 1, w)) throw new LanguageModelFormatError(file, `vocabulary is not strictly sorted at word ${w}`);
    return lm;
  }

  /** The text of a word id ('' for the specials). */
  word(id: number): string {
    const start = this.offsets[id]!;
    return String.fromCharCode(...this.units.subarray(start, this.offsets[id + 1]!));
  }

  /** Whether word a sorts strictly before word b (code-unit order). */
  private before(a: number, b: number): boolean {
    const sa = this.offsets[a]!;
    const la = this.offsets[a + 1]! - sa;
    const sb = this.offsets[b]!;
    const lb = this.offsets[b + 1]! - sb;
    for (let i = 0; i < Math.min(la, lb); i++) {
      const d = this.units[sa + i]! - this.units[sb + i]!;
      if (d !== 0) return d < 0;
    }
    return la < lb;
  }

  /** Sign of (text - word id) in code-unit order. */
  private compare(text: string, id: number): number {
    const start = this.offsets[id]!;
    const len = this.offsets[id + 1]! - start;
    const n = Math.min(len, text.length);
    for (let i = 0; i < n; i++) {
      const d = text.charCodeAt(i) - this.units[start + i]!;
      if (d !== 0) return d;
    }
    return text.length - len;
  }

  /** Id of a word, WORD_UNK when it is outside the vocabulary. */
  id(text: string): number {
    let lo = FIRST_WORD;
    let hi = this.words;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.compare(text, mid);
      if (c === 0) return mid;
      if (c > 0) lo = mid + 1;
      else hi = mid;
    }
    return WORD_UNK;
  }
}
