/**
 * Character n-gram language model in a compact binary trie (backoff form, natural-log probs).
 *
 * File layout, little-endian, every section 4-byte aligned:
 *   header (64 bytes)
 *     0  magic "HNLM"             4  u16 version (1)        6  u16 header bytes (64)
 *     8  u32 order (1..10)        12 u32 symbol count       16 u32 flags (bit 0: lower-cased text,
 *                                                                       bit 1: punctuation kept)
 *     20 u32 FNV-1a of every byte after the header
 *     24 u32[10] entries per order (order 1 = symbol count)
 *   alphabet   u32[symbols]  code point of each symbol; ids 0 <unk>, 1 <s>, 2 </s> hold 0
 *   per order n = 1..N, entries sorted by (context..., word):
 *     words  u16[count]   (padded to 4 bytes)       word symbol of the entry
 *     probs  f32[count]   ln p(word | context)
 *     n < N: bows f32[count]   ln backoff weight of the entry as a context
 *            next u32[count+1] first child in order n+1 (children of i: next[i] .. next[i+1])
 * Order-1 entry i is symbol i. p(w | h) = p(hw) if stored, else bow(h) * p(w | h minus its oldest
 * symbol), bow(h) = 1 when h is not stored.
 *
 * Loading reads the file into one Buffer and builds typed-array views on it (no per-entry objects).
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { BackoffTrie, type TrieLevel } from './backoff-trie.js';

export const LM_MAGIC = 'HNLM';
export const LM_VERSION = 1;
export const LM_HEADER_BYTES = 64;
export const LM_MAX_ORDER = 10;
export const UNK = 0;
export const BOS = 1;
export const EOS = 2;
export const FIRST_CHAR_SYMBOL = 3;
export const FLAG_LOWERCASE = 1;
export const FLAG_PUNCTUATION = 2;

export class LanguageModelFormatError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`language model ${file} is not a valid HNLM file: ${detail}`);
    this.name = 'LanguageModelFormatError';
  }
}

/** One order's arrays; `bows` and `next` are null for the highest order. */
export interface LmLevel extends TrieLevel {
  readonly words: Uint16Array;
}

export interface LmHeader {
  readonly version: number;
  readonly order: number;
  readonly symbols: number;
  readonly flags: number;
  readonly checksum: number;
  readonly counts: readonly number[];
}

export function fnv1a(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const align4 = (n: number): number => (n + 3) & ~3;

/** What the two LM formats' headers share: magic, version, header size and order at the same offsets. */
export interface LmHeaderLayout {
  readonly magic: string;
  readonly version: number;
  readonly headerBytes: number;
  readonly maxOrder: number;
}

/**
 * Checks the shared start of an LM header (bytes 0-11: magic, version, header size, order) and
 * answers the view and the order; throws LanguageModelFormatError naming `file`.
 */
export function readLmHeaderStart(bytes: Uint8Array, file: string, layout: LmHeaderLayout): { view: DataView; version: number; order: number } {
  if (bytes.length < layout.headerBytes) throw new LanguageModelFormatError(file, `${bytes.length} bytes is shorter than the header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = String.fromCharCode(bytes[0]!, bytes[1]!, bytes[2]!, bytes[3]!);
  if (magic !== layout.magic) throw new LanguageModelFormatError(file, `magic ${JSON.stringify(magic)}, expected "${layout.magic}"`);
  const version = view.getUint16(4, true);
  if (version !== layout.version) throw new LanguageModelFormatError(file, `version ${version}; this gateway reads version ${layout.version}`);
  if (view.getUint16(6, true) !== layout.headerBytes) throw new LanguageModelFormatError(file, 'unexpected header size');
  const order = view.getUint32(8, true);
  if (order < 1 || order > layout.maxOrder) throw new LanguageModelFormatError(file, `order ${order} is outside 1..${layout.maxOrder}`);
  return { view, version, order };
}

/** Reads and checks the 64-byte header (enough for manifest validation without loading the file). */
export function readLmHeader(bytes: Uint8Array, file = '<buffer>'): LmHeader {
  const { view, version, order } = readLmHeaderStart(bytes, file, {
    magic: LM_MAGIC,
    version: LM_VERSION,
    headerBytes: LM_HEADER_BYTES,
    maxOrder: LM_MAX_ORDER,
  });
  const symbols = view.getUint32(12, true);
  if (symbols < FIRST_CHAR_SYMBOL || symbols > 0xd7ff) throw new LanguageModelFormatError(file, `symbol count ${symbols} is out of range`);
  const counts: number[] = [];
  for (let n = 0; n < order; n++) counts.push(view.getUint32(24 + 4 * n, true));
  if (counts[0] !== symbols) throw new LanguageModelFormatError(file, 'order-1 entry count differs from the symbol count');
  return { version, order, symbols, flags: view.getUint32(16, true), checksum: view.getUint32(20, true), counts };
}

function expectedSize(header: LmHeader): number {
  let size = LM_HEADER_BYTES + 4 * header.symbols;
  header.counts.forEach((count, i) => {
    size += align4(2 * count) + 4 * count;
    if (i < header.order - 1) size += 4 * count + 4 * (count + 1);
  });
  return size;
}

export class CharNgramLm {
  readonly order: number;
  readonly symbols: number;
  readonly lowercase: boolean;
  readonly punctuation: boolean;
  /** Bytes held (the file). */
  readonly byteLength: number;
  private readonly trie: BackoffTrie;
  private readonly symbolOf = new Map<number, number>();
  private readonly alphabet: Uint32Array;

  private constructor(header: LmHeader, alphabet: Uint32Array, levels: LmLevel[], byteLength: number) {
    this.order = header.order;
    this.symbols = header.symbols;
    this.lowercase = (header.flags & FLAG_LOWERCASE) !== 0;
    this.punctuation = (header.flags & FLAG_PUNCTUATION) !== 0;
    this.alphabet = alphabet;
    this.trie = new BackoffTrie(levels, header.symbols, UNK);
    this.byteLength = byteLength;
    for (let s = FIRST_CHAR_SYMBOL; s < alphabet.length; s++) this.symbolOf.set(alphabet[s]!, s);
  }

  static async load(path: string): Promise<CharNgramLm> {
    return CharNgramLm.fromBytes(await readFile(path), path);
  }

  static loadSync(path: string): CharNgramLm {
    return CharNgramLm.fromBytes(readFileSync(path), path);
  }

  /** Indexes a whole file held in memory; throws LanguageModelFormatError on any inconsistency. */
  static fromBytes(input: Uint8Array, file = '<buffer>'): CharNgramLm {
    const header = readLmHeader(input, file);
    const size = expectedSize(header);
    if (input.length !== size) throw new LanguageModelFormatError(file, `${input.length} bytes, the header describes ${size} (truncated or padded)`);
    const sum = fnv1a(input.subarray(LM_HEADER_BYTES));
    if (sum !== header.checksum) throw new LanguageModelFormatError(file, 'checksum mismatch (the file is corrupt)');
    // Typed-array views need 4-byte alignment; readFile's Buffer normally starts at offset 0.
    const bytes = input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
    const buffer = bytes.buffer;
    let at = bytes.byteOffset + LM_HEADER_BYTES;
    const alphabet = new Uint32Array(buffer, at, header.symbols);
    at += 4 * header.symbols;
    const levels: LmLevel[] = [];
    for (let n = 0; n < header.order; n++) {
      const count = header.counts[n]!;
      const words = new Uint16Array(buffer, at, count);
      at += align4(2 * count);
      const probs = new Float32Array(buffer, at, count);
      at += 4 * count;
      let bows: Float32Array | null = null;
      let next: Uint32Array | null = null;
      if (n < header.order - 1) {
        bows = new Float32Array(buffer, at, count);
        at += 4 * count;
        next = new Uint32Array(buffer, at, count + 1);
        at += 4 * (count + 1);
        const childCount = header.counts[n + 1]!;
        if (next[0] !== 0 || next[count] !== childCount) throw new LanguageModelFormatError(file, `order ${n + 1} child index does not cover order ${n + 2}`);
        for (let i = 0; i < count; i++) if (next[i]! > next[i + 1]!) throw new LanguageModelFormatError(file, `order ${n + 1} child index is not sorted`);
      }
      for (let i = 0; i < count; i++)
        if (words[i]! >= header.symbols) throw new LanguageModelFormatError(file, `order ${n + 1} names symbol ${words[i]} of ${header.symbols}`);
      levels.push({ words, probs, bows, next });
    }
    return new CharNgramLm(header, alphabet, levels, input.length);
  }

  /** Symbol id of a character (one code point), UNK when the LM has never seen it. */
  symbol(char: string): number {
    const cp = (this.lowercase ? char.toLowerCase() : char).codePointAt(0);
    return cp === undefined ? UNK : (this.symbolOf.get(cp) ?? UNK);
  }

  /** Code point of a symbol (0 for the special symbols). */
  codePoint(symbol: number): number {
    return this.alphabet[symbol] ?? 0;
  }

  /**
   * ln p(word | context), context = the last symbols before word (oldest first; only the last
   * order-1 are used), backing off as the module comment says (backoff-trie.ts).
   */
  logProb(context: ArrayLike<number>, word: number): number {
    return this.trie.logProb(context, word);
  }

  /** Entries per order (for reports). */
  counts(): number[] {
    return this.trie.counts();
  }

  /** ln p of a whole sentence of symbols including </s>, starting after <s>. */
  sentenceLogProb(symbols: readonly number[]): number {
    const context: number[] = [BOS];
    let total = 0;
    for (const s of [...symbols, EOS]) {
      total += this.logProb(context, s);
      context.push(s);
    }
    return total;
  }
}
