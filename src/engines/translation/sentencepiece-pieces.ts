/**
 * The pieces of a SentencePiece model file, read from its protobuf (`ModelProto.pieces`, field 1:
 * each a `SentencePiece` with `piece` (1, string), `score` (2, float) and `type` (3, enum)), in id
 * order. The WebAssembly tokenizer has no IdToPiece, and the decoding guards need every id's text
 * (degeneration-guard.ts). Other fields are skipped by their wire type. Pure.
 */

/** SentencePiece's piece types (sentencepiece_model.proto). */
export type PieceType = 'normal' | 'unknown' | 'control' | 'user_defined' | 'unused' | 'byte';

export interface ModelPiece {
  readonly piece: string;
  readonly type: PieceType;
}

const TYPES: Readonly<Record<number, PieceType>> = { 1: 'normal', 2: 'unknown', 3: 'control', 4: 'user_defined', 5: 'unused', 6: 'byte' };

class Reader {
  at = 0;
  constructor(
    readonly bytes: Uint8Array,
    readonly end: number = bytes.length,
  ) {}

  varint(): number {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (this.at >= this.end) throw new Error('truncated varint');
      const byte = this.bytes[this.at++]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
      if (scale > 2 ** 63) throw new Error('varint too long');
    }
  }

  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.at += 8;
    else if (wire === 2) {
      // The length is read first: `this.at += this.varint()` would add it to the position before the read.
      const length = this.varint();
      this.at += length;
    } else if (wire === 5) this.at += 4;
    else throw new Error(`unsupported wire type ${wire}`);
    if (this.at > this.end) throw new Error('truncated field');
  }
}

/** The pieces of a SentencePiece `.model` file's bytes, in id order; throws on a malformed file. */
export function readModelPieces(bytes: Uint8Array): ModelPiece[] {
  const decoder = new TextDecoder('utf-8');
  const outer = new Reader(bytes);
  const pieces: ModelPiece[] = [];
  while (outer.at < outer.end) {
    const key = outer.varint();
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field !== 1 || wire !== 2) {
      outer.skip(wire);
      continue;
    }
    const length = outer.varint();
    const inner = new Reader(bytes, outer.at + length);
    inner.at = outer.at;
    if (inner.end > bytes.length) throw new Error('truncated piece');
    let piece = '';
    let type: PieceType = 'normal';
    while (inner.at < inner.end) {
      const k = inner.varint();
      const f = Math.floor(k / 8);
      const w = k % 8;
      if (f === 1 && w === 2) {
        const n = inner.varint();
        piece = decoder.decode(bytes.subarray(inner.at, inner.at + n));
        inner.at += n;
      } else if (f === 3 && w === 0) {
        type = TYPES[inner.varint()] ?? 'normal';
      } else inner.skip(w);
    }
    pieces.push({ piece, type });
    outer.at += length;
  }
  if (pieces.length === 0) throw new Error('no pieces: not a SentencePiece model');
  return pieces;
}
