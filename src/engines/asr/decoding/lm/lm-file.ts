/**
 * What the two binary LM formats share (HNLM character LMs, char-ngram-lm.ts; HWLM word LMs,
 * word-ngram-lm.ts): the header's start (magic, version, header size, order, the vocabulary size,
 * the FNV-1a checksum of every byte after the header, entries per order), 4-byte aligned sections,
 * and the trie levels (words, probs, then bows and next below the highest order). Readers answer
 * typed-array views on the file's bytes (the caller keeps them) and throw LanguageModelFormatError.
 * TrieLm is the loaded model's shared part: loading by path, the backoff lookup, the bytes held.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { BackoffTrie, type TrieLevel } from './backoff-trie.js';

export class LanguageModelFormatError extends Error {
  constructor(
    readonly file: string,
    detail: string,
  ) {
    super(`language model ${file} is not a valid HNLM file: ${detail}`);
    this.name = 'LanguageModelFormatError';
  }
}

export function fnv1a(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export const align4 = (n: number): number => (n + 3) & ~3;

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

/** Writes a header's shared fields (the checksum comes last: writeLmChecksum). `size`: the symbol or word count at offset 12. */
export function writeLmHeader(view: DataView, layout: LmHeaderLayout, order: number, size: number, flags: number, counts: readonly number[]): void {
  for (let i = 0; i < 4; i++) view.setUint8(i, layout.magic.charCodeAt(i));
  view.setUint16(4, layout.version, true);
  view.setUint16(6, layout.headerBytes, true);
  view.setUint32(8, order, true);
  view.setUint32(12, size, true);
  view.setUint32(16, flags, true);
  counts.forEach((count, n) => view.setUint32(24 + 4 * n, count, true));
}

/** Stores the checksum of every byte after the header, once the rest of the file is written. */
export function writeLmChecksum(bytes: Uint8Array, headerBytes: number): void {
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).setUint32(20, fnv1a(bytes.subarray(headerBytes)), true);
}

/** Checks the checksum and answers the bytes 4-byte aligned for typed-array views (readFile's Buffer normally starts at offset 0: no copy). */
export function checkedAlignedBytes(input: Uint8Array, headerBytes: number, checksum: number, file: string): Uint8Array {
  if (fnv1a(input.subarray(headerBytes)) !== checksum) throw new LanguageModelFormatError(file, 'checksum mismatch (the file is corrupt)');
  return input.byteOffset % 4 === 0 ? input : new Uint8Array(input);
}

/** Where the levels stand in a file and what bounds them. */
export interface TrieLevelsSource {
  readonly file: string;
  readonly buffer: ArrayBufferLike;
  /** Offset of the first level in `buffer`, and the file's end. */
  readonly at: number;
  readonly end: number;
  /** Entries per order. */
  readonly counts: readonly number[];
  /** Ids at or above it are refused; `noun` names them in the error ('symbol', 'word'). */
  readonly vocabularySize: number;
  readonly noun: string;
}

/**
 * Reads the levels, one per order: `words` (u16, padded to 4 bytes, or u32), probs f32, and below
 * the highest order bows f32 and next u32[count + 1]; checks bounds, that each child index covers
 * the next order in order, and every id. Answers the levels and the offset after them.
 */
export function readTrieLevels<Words extends Uint16Array | Uint32Array>(
  source: TrieLevelsSource,
  Words: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): Words; readonly BYTES_PER_ELEMENT: number },
): { levels: (TrieLevel & { readonly words: Words })[]; at: number } {
  const { file, buffer, counts, vocabularySize, noun } = source;
  const levels: (TrieLevel & { readonly words: Words })[] = [];
  let at = source.at;
  for (let n = 0; n < counts.length; n++) {
    const count = counts[n]!;
    const last = n === counts.length - 1;
    const wordBytes = align4(Words.BYTES_PER_ELEMENT * count);
    if (at + wordBytes + 4 * count + (last ? 0 : 8 * count + 4) > source.end) throw new LanguageModelFormatError(file, `truncated in order ${n + 1}`);
    const words = new Words(buffer, at, count);
    at += wordBytes;
    const probs = new Float32Array(buffer, at, count);
    at += 4 * count;
    let bows: Float32Array | null = null;
    let next: Uint32Array | null = null;
    if (!last) {
      bows = new Float32Array(buffer, at, count);
      at += 4 * count;
      next = new Uint32Array(buffer, at, count + 1);
      at += 4 * (count + 1);
      if (next[0] !== 0 || next[count] !== counts[n + 1]) throw new LanguageModelFormatError(file, `order ${n + 1} child index does not cover order ${n + 2}`);
      for (let i = 0; i < count; i++) if (next[i]! > next[i + 1]!) throw new LanguageModelFormatError(file, `order ${n + 1} child index is not sorted`);
    }
    for (let i = 0; i < count; i++)
      if (words[i]! >= vocabularySize) throw new LanguageModelFormatError(file, `order ${n + 1} names ${noun} ${words[i]} of ${vocabularySize}`);
    levels.push({ words, probs, bows, next });
  }
  return { levels, at };
}

/** What a file's class adds to TrieLm: indexing a whole file held in memory. */
interface FromBytes<Lm> {
  fromBytes(input: Uint8Array, file?: string): Lm;
}

/** A loaded LM file: its trie over the file's one Buffer (memory = file size). */
export abstract class TrieLm {
  readonly order: number;
  /** Bytes held (the file). */
  readonly byteLength: number;
  private readonly trie: BackoffTrie;

  /** `vocabularySize`: ids at or above it read as `unk`. */
  protected constructor(levels: readonly TrieLevel[], vocabularySize: number, unk: number, byteLength: number) {
    this.trie = new BackoffTrie(levels, vocabularySize, unk);
    this.order = this.trie.order;
    this.byteLength = byteLength;
  }

  /** Reads and indexes the file at `path` (`this`: the subclass, CharNgramLm or WordNgramLm). */
  static async load<Lm>(this: FromBytes<Lm>, path: string): Promise<Lm> {
    // biome-ignore lint/complexity/noThisInStatic: the subclass called on reads its own format
    return this.fromBytes(await readFile(path), path);
  }

  static loadSync<Lm>(this: FromBytes<Lm>, path: string): Lm {
    // biome-ignore lint/complexity/noThisInStatic: the subclass called on reads its own format
    return this.fromBytes(readFileSync(path), path);
  }

  /**
   * ln p(word | context), context = the ids before word (oldest first; only the last order-1 are
   * used), backing off as backoff-trie.ts says.
   */
  logProb(context: ArrayLike<number>, word: number): number {
    return this.trie.logProb(context, word);
  }

  /** Entries per order (for reports). */
  counts(): number[] {
    return this.trie.counts();
  }
}
