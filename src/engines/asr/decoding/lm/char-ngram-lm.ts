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
import type { TrieLevel } from './backoff-trie.js';
import { align4, checkedAlignedBytes, LanguageModelFormatError, type LmHeaderLayout, readLmHeaderStart, readTrieLevels, TrieLm } from './lm-file.js';

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
export const LM_LAYOUT: LmHeaderLayout = { magic: LM_MAGIC, version: LM_VERSION, headerBytes: LM_HEADER_BYTES, maxOrder: LM_MAX_ORDER };

export interface LmHeader {
  readonly version: number;
  readonly order: number;
  readonly symbols: number;
  readonly flags: number;
  readonly checksum: number;
  readonly counts: readonly number[];
}

/** Reads and checks the 64-byte header (enough for manifest validation without loading the file). */
export function readLmHeader(bytes: Uint8Array, file = '<buffer>'): LmHeader {
  const { view, version, order } = readLmHeaderStart(bytes, file, LM_LAYOUT);
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

export class CharNgramLm extends TrieLm {
  readonly symbols: number;
  readonly lowercase: boolean;
  readonly punctuation: boolean;
  private readonly symbolOf = new Map<number, number>();
  private readonly alphabet: Uint32Array;

  private constructor(header: LmHeader, alphabet: Uint32Array, levels: readonly TrieLevel[], byteLength: number) {
    super(levels, header.symbols, UNK, byteLength);
    this.symbols = header.symbols;
    this.lowercase = (header.flags & FLAG_LOWERCASE) !== 0;
    this.punctuation = (header.flags & FLAG_PUNCTUATION) !== 0;
    this.alphabet = alphabet;
    for (let s = FIRST_CHAR_SYMBOL; s < alphabet.length; s++) this.symbolOf.set(alphabet[s]!, s);
  }

  /** Indexes a whole file held in memory; throws LanguageModelFormatError on any inconsistency. */
  static fromBytes(input: Uint8Array, file = '<buffer>'): CharNgramLm {
    const header = readLmHeader(input, file);
    const size = expectedSize(header);
    if (input.length !== size) throw new LanguageModelFormatError(file, `${input.length} bytes, the header describes ${size} (truncated or padded)`);
    const bytes = checkedAlignedBytes(input, LM_HEADER_BYTES, header.checksum, file);
    const alphabetAt = bytes.byteOffset + LM_HEADER_BYTES;
    const alphabet = new Uint32Array(bytes.buffer, alphabetAt, header.symbols);
    const { levels } = readTrieLevels(
      {
        file,
        buffer: bytes.buffer,
        at: alphabetAt + 4 * header.symbols,
        end: bytes.byteOffset + bytes.length,
        counts: header.counts,
        vocabularySize: header.symbols,
        noun: 'symbol',
      },
      Uint16Array,
    );
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
