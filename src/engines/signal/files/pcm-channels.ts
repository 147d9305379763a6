// Pure sample conversions for multi-channel and telephone streams: de-interleaving 16-bit PCM
// frames into one array per channel, float <-> int16, joining decoded chunks, and the parts of a
// 16-bit PCM WAV header a stereo stream needs. No state, no native code (G.711 is expanded by
// the native front end: native/src/dsp/g711.h).

/**
 * Splits interleaved 16-bit little-endian frames (`channels` samples each) into one Int16Array
 * per channel. `bytes.byteLength` must be a whole number of frames (the caller carries the rest).
 */
export function deinterleaveInt16(bytes: Uint8Array, channels: number): Int16Array[] {
  const frameBytes = 2 * channels;
  if (bytes.byteLength % frameBytes !== 0) throw new RangeError(`${bytes.byteLength} bytes are not a whole number of ${channels}-channel frames`);
  const frames = bytes.byteLength / frameBytes;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out: Int16Array[] = [];
  for (let c = 0; c < channels; c++) out.push(new Int16Array(frames));
  for (let f = 0, at = 0; f < frames; f++) {
    for (let c = 0; c < channels; c++, at += 2) out[c]![f] = view.getInt16(at, true);
  }
  return out;
}

/** 16-bit samples as floats in [-1, 1). */
export function int16ToFloat(samples: Int16Array): Float32Array {
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = samples[i]! / 32768;
  return out;
}

/** Floats as 16-bit samples (rounded, clamped). */
export function floatToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(samples[i]! * 32768)));
  return out;
}

/** The parts one after another in one new array of type `Out`; one part is answered as it is (no copy). */
export function concatSamples<Samples extends Float32Array | Int16Array>(parts: readonly Samples[], Out: new (length: number) => Samples): Samples {
  if (parts.length === 1) return parts[0]!;
  const out = new Out(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** What a stereo stream needs from a WAV header. */
export interface WavStreamHeader {
  readonly channels: number;
  readonly sampleRate: number;
  readonly bitsPerSample: number;
  /** 1 PCM (WAVE_FORMAT_EXTENSIBLE resolved to its sub-format), 3 float, 7 mu-law, ... */
  readonly formatTag: number;
  /** Bytes before the first sample. */
  readonly headerBytes: number;
  /** The data chunk's size; null when it runs to the end of the stream (0 or 0xFFFFFFFF). */
  readonly dataBytes: number | null;
}

/**
 * Reads a RIFF/WAVE header from the start of `bytes`: the header, `'incomplete'` while the
 * `data` chunk's header has not arrived, or a message saying why it is not a WAV stream.
 */
export function parseWavHeader(bytes: Uint8Array): WavStreamHeader | 'incomplete' | { readonly problem: string } {
  if (bytes.byteLength < 12) return 'incomplete';
  const ascii = (at: number): string => String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
  if (ascii(0) !== 'RIFF' || ascii(8) !== 'WAVE') return { problem: 'the stream does not start with a RIFF/WAVE header' };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let fmt: Omit<WavStreamHeader, 'headerBytes' | 'dataBytes'> | null = null;
  let at = 12;
  while (at + 8 <= bytes.byteLength) {
    const id = ascii(at);
    const size = view.getUint32(at + 4, true);
    if (id === 'data') {
      if (fmt === null) return { problem: 'the WAV data chunk comes before its fmt chunk' };
      return { ...fmt, headerBytes: at + 8, dataBytes: size === 0 || size === 0xffffffff ? null : size };
    }
    if (at + 8 + size > bytes.byteLength) return 'incomplete';
    if (id === 'fmt ') {
      if (size < 16) return { problem: 'the WAV fmt chunk is too short' };
      let formatTag = view.getUint16(at + 8, true);
      if (formatTag === 0xfffe && size >= 26) formatTag = view.getUint16(at + 8 + 24, true);
      fmt = { formatTag, channels: view.getUint16(at + 10, true), sampleRate: view.getUint32(at + 12, true), bitsPerSample: view.getUint16(at + 22, true) };
    }
    at += 8 + size + (size & 1);
  }
  return 'incomplete';
}
