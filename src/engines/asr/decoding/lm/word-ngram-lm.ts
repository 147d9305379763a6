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
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { BackoffTrie, type TrieLevel } from './backoff-trie.js';
import { fnv1a, LanguageModelFormatError, readLmHeaderStart } from './char-ngram-lm.js';

export const WORD_LM_MAGIC = 'HWLM';
export const WORD_LM_VERSION = 1;
export const WORD_LM_HEADER_BYTES = 64;
export const WORD_LM_MAX_ORDER = 10;
export const WORD_UNK = 0;
export const WORD_BOS = 1;
export const WORD_EOS = 2;
export const FIRST_WORD = 3;

interface Level extends TrieLevel {
  readonly words: Uint32Array;
}

export interface WordLmHeader {
  readonly order: number;
  readonly words: number;
  readonly checksum: number;
  readonly counts: readonly number[];
}

const align4 = (n: number): number => (n + 3) & ~3;

/** Reads and checks the 64-byte header (enough for manifest validation without loading the file). */
export function readWordLmHeader(bytes: Uint8Array, file = '<buffer>'): WordLmHeader {
  const { view, order } = readLmHeaderStart(bytes, file, {
    magic: WORD_LM_MAGIC,
    version: WORD_LM_VERSION,
    headerBytes: WORD_LM_HEADER_BYTES,
    maxOrder: WORD_LM_MAX_ORDER,
  });
  const words = view.getUint32(12, true);
  if (words < FIRST_WORD) throw new LanguageModelFormatError(file, `word count ${words} is below ${FIRST_WORD}`);
  const counts: number[] = [];
  for (let n = 0; n < order; n++) counts.push(view.getUint32(24 + 4 * n, true));
  if (counts[0] !== words) throw new LanguageModelFormatError(file, 'order-1 entry count differs from the word count');
  return { order, words, checksum: view.getUint32(20, true), counts };
}

export class WordNgramLm {
  readonly order: number;
  /** Words including the 3 specials. */
  readonly words: number;
  /** Bytes held (the file). */
  readonly byteLength: number;
  private readonly offsets: Uint32Array;
  private readonly units: Uint16Array;
  private readonly trie: BackoffTrie;

  private constructor(header: WordLmHeader, offsets: Uint32Array, units: Uint16Array, levels: Level[], byteLength: number) {
    this.order = header.order;
    this.words = header.words;
    this.offsets = offsets;
    this.units = units;
    this.trie = new BackoffTrie(levels, header.words, WORD_UNK);
    this.byteLength = byteLength;
  }

  static async load(path: string): Promise<WordNgramLm> {
    return WordNgramLm.fromBytes(await readFile(path), path);
  }

  static loadSync(path: string): WordNgramLm {
    return WordNgramLm.fromBytes(readFileSync(path), path);
  }

  /** Indexes a whole file held in memory; throws LanguageModelFormatError on any inconsistency. */
  static fromBytes(input: Uint8Array, file = '<buffer>'): WordNgramLm {
    const header = readWordLmHeader(input, file);
    const sum = fnv1a(input.subarray(WORD_LM_HEADER_BYTES));
    if (sum !== header.checksum) throw new LanguageModelFormatError(file, 'checksum mismatch (the file is corrupt)');
    const bytes = input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
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
    const levels: Level[] = [];
    for (let n = 0; n < header.order; n++) {
      const count = header.counts[n]!;
      const last = n === header.order - 1;
      need(8 * count + (last ? 0 : 8 * count + 4), `order ${n + 1}`);
      const words = new Uint32Array(buffer, at, count);
      at += 4 * count;
      const probs = new Float32Array(buffer, at, count);
      at += 4 * count;
      let bows: Float32Array | null = null;
      let next: Uint32Array | null = null;
      if (!last) {
        bows = new Float32Array(buffer, at, count);
        at += 4 * count;
        next = new Uint32Array(buffer, at, count + 1);
        at += 4 * (count + 1);
        if (next[0] !== 0 || next[count] !== header.counts[n + 1])
          throw new LanguageModelFormatError(file, `order ${n + 1} child index does not cover order ${n + 2}`);
        for (let i = 0; i < count; i++) if (next[i]! > next[i + 1]!) throw new LanguageModelFormatError(file, `order ${n + 1} child index is not sorted`);
      }
      for (let i = 0; i < count; i++)
        if (words[i]! >= header.words) throw new LanguageModelFormatError(file, `order ${n + 1} names word ${words[i]} of ${header.words}`);
      levels.push({ words, probs, bows, next });
    }
    if (at !== end) throw new LanguageModelFormatError(file, `${end - at} bytes after the last order (padded)`);
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

  /** ln p(word | context), context = the preceding word ids, oldest first (the last order-1 are used). */
  logProb(context: ArrayLike<number>, word: number): number {
    return this.trie.logProb(context, word);
  }

  /** Entries per order (for reports). */
  counts(): number[] {
    return this.trie.counts();
  }
}
