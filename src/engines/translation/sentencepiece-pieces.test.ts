import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readModelPieces } from './sentencepiece-pieces.js';

const utf8 = (text: string): number[] => [...new TextEncoder().encode(text)];
/** A length-delimited protobuf field. */
const field = (number: number, body: number[]): number[] => [(number << 3) | 2, body.length, ...body];
const piece = (text: string, type: number): number[] => field(1, [...field(1, utf8(text)), 0x15, 0, 0, 0x80, 0xbf, 0x18, type]);

describe('readModelPieces', () => {
  it('reads pieces and types in id order, skipping other fields of every wire type', () => {
    const bytes = Uint8Array.from([
      ...field(2, utf8('trainer spec')),
      ...piece('<unk>', 2),
      0x28,
      0x96,
      0x01, // field 5, varint 150
      ...piece('\u2581ሰላም', 1),
      0x31,
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8, // field 6, 64-bit
      ...piece('<2am>', 4),
      ...field(3, utf8('normalizer')),
    ]);
    expect(readModelPieces(bytes)).toEqual([
      { piece: '<unk>', type: 'unknown' },
      { piece: '\u2581ሰላም', type: 'normal' },
      { piece: '<2am>', type: 'user_defined' },
    ]);
  });

  it('reads the shipped model: 8000 pieces, specials first, then the language tags', () => {
    const path = fileURLToPath(new URL('../../../models/translate-am-en-ti-v1/spm.model', import.meta.url));
    const pieces = readModelPieces(readFileSync(path));
    expect(pieces).toHaveLength(8000);
    expect(pieces.slice(0, 7)).toEqual([
      { piece: '<pad>', type: 'control' },
      { piece: '<unk>', type: 'unknown' },
      { piece: '<s>', type: 'control' },
      { piece: '</s>', type: 'control' },
      { piece: '<2am>', type: 'user_defined' },
      { piece: '<2en>', type: 'user_defined' },
      { piece: '<2ti>', type: 'user_defined' },
    ]);
    expect(pieces.filter((p) => p.type === 'normal').length).toBe(7993);
  });

  it('refuses bytes that are not a model', () => {
    expect(() => readModelPieces(Uint8Array.from([0x0a, 0x40, 1]))).toThrow();
    expect(() => readModelPieces(Uint8Array.from(utf8('not a model at all')))).toThrow();
  });
});
