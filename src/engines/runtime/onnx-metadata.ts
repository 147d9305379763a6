/**
 * The custom metadata of an ONNX model (`ModelProto.metadata_props`, field 14: each a
 * StringStringEntryProto with `key` (1) and `value` (2)), read from the file's protobuf without
 * loading the graph: onnxruntime-node does not surface it, and speaker-embedding models of the
 * WeSpeaker / 3D-Speaker kind describe their input there (sample rate, sample scaling, feature
 * normalisation). Only top-level fields are walked; the graph (field 7) is skipped by its length.
 * Pure. Throws on a truncated or malformed file.
 */

function varint(bytes: Uint8Array, at: { pos: number }): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (at.pos >= bytes.length) throw new Error('truncated varint');
    const byte = bytes[at.pos++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 128;
    if (scale > 2 ** 63) throw new Error('varint too long');
  }
}

function skip(bytes: Uint8Array, wire: number, at: { pos: number }): void {
  if (wire === 0) varint(bytes, at);
  else if (wire === 1) at.pos += 8;
  else if (wire === 2) {
    const length = varint(bytes, at);
    at.pos += length;
  } else if (wire === 5) at.pos += 4;
  else throw new Error(`unsupported wire type ${wire}`);
  if (at.pos > bytes.length) throw new Error('truncated field');
}

/** key -> value of the model's metadata_props (later entries win). */
export function readOnnxMetadata(bytes: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const decoder = new TextDecoder();
  const at = { pos: 0 };
  while (at.pos < bytes.length) {
    const key = varint(bytes, at);
    const field = Math.floor(key / 8);
    const wire = key % 8;
    if (field !== 14 || wire !== 2) {
      skip(bytes, wire, at);
      continue;
    }
    const length = varint(bytes, at);
    const end = at.pos + length;
    if (end > bytes.length) throw new Error('truncated metadata entry');
    let name = '';
    let value = '';
    while (at.pos < end) {
      const k = varint(bytes, at);
      if (k % 8 !== 2) {
        skip(bytes, k % 8, at);
        continue;
      }
      const size = varint(bytes, at);
      const text = decoder.decode(bytes.subarray(at.pos, at.pos + size));
      at.pos += size;
      if (Math.floor(k / 8) === 1) name = text;
      else if (Math.floor(k / 8) === 2) value = text;
    }
    out[name] = value;
  }
  return out;
}
