import { describe, expect, it } from 'vitest';
import { concatSamples, deinterleaveInt16, floatToInt16, int16ToFloat, parseWavHeader } from './pcm-channels.js';

function frames(pairs: Array<[number, number]>): Uint8Array {
  const view = new DataView(new ArrayBuffer(pairs.length * 4));
  pairs.forEach(([l, r], i) => {
    view.setInt16(4 * i, l, true);
    view.setInt16(4 * i + 2, r, true);
  });
  return new Uint8Array(view.buffer);
}

describe('deinterleaveInt16', () => {
  it('splits stereo frames into left and right', () => {
    const [left, right] = deinterleaveInt16(
      frames([
        [1, -1],
        [32767, -32768],
        [300, 7],
      ]),
      2,
    );
    expect([...left!]).toEqual([1, 32767, 300]);
    expect([...right!]).toEqual([-1, -32768, 7]);
  });

  it('reads from a view at an odd offset and refuses a partial frame', () => {
    const bytes = new Uint8Array(9);
    bytes.set(frames([[258, -2]]), 1);
    const [left, right] = deinterleaveInt16(bytes.subarray(1, 5), 2);
    expect([left![0], right![0]]).toEqual([258, -2]);
    expect(() => deinterleaveInt16(bytes.subarray(0, 6), 2)).toThrow(RangeError);
  });
});

describe('int16 <-> float', () => {
  it('round-trips and clamps', () => {
    const samples = Int16Array.of(0, 1, -1, 32767, -32768, 12345);
    expect([...floatToInt16(int16ToFloat(samples))]).toEqual([...samples]);
    expect([...floatToInt16(Float32Array.of(1.5, -2))]).toEqual([32767, -32768]);
  });
});

describe('concatSamples', () => {
  it('joins the parts in order into a new array of the type asked, and answers one part as it is', () => {
    const joined = concatSamples([Int16Array.of(1, 2), Int16Array.of(), Int16Array.of(3)], Int16Array);
    expect(joined).toBeInstanceOf(Int16Array);
    expect([...joined]).toEqual([1, 2, 3]);
    expect(concatSamples([], Float32Array)).toEqual(new Float32Array(0));
    const only = Float32Array.of(0.5);
    expect(concatSamples([only], Float32Array)).toBe(only);
  });
});

describe('parseWavHeader', () => {
  const header = (channels: number, rate: number, dataBytes: number): Uint8Array => {
    const view = new DataView(new ArrayBuffer(44));
    const put = (at: number, text: string): void => [...text].forEach((ch, i) => view.setUint8(at + i, ch.charCodeAt(0)));
    put(0, 'RIFF');
    view.setUint32(4, 36 + dataBytes, true);
    put(8, 'WAVEfmt ');
    view.setUint32(16, 16, true);
    view.setUint16(20, 1, true);
    view.setUint16(22, channels, true);
    view.setUint32(24, rate, true);
    view.setUint32(28, rate * 2 * channels, true);
    view.setUint16(32, 2 * channels, true);
    view.setUint16(34, 16, true);
    put(36, 'data');
    view.setUint32(40, dataBytes, true);
    return new Uint8Array(view.buffer);
  };

  it('reads channels, rate and data size; incomplete until the data chunk header', () => {
    const h = header(2, 8000, 0xffffffff);
    expect(parseWavHeader(h.subarray(0, 30))).toBe('incomplete');
    expect(parseWavHeader(h)).toEqual({ channels: 2, sampleRate: 8000, bitsPerSample: 16, formatTag: 1, headerBytes: 44, dataBytes: null });
    expect(parseWavHeader(header(1, 16000, 320))).toMatchObject({ channels: 1, dataBytes: 320 });
    expect(parseWavHeader(new TextEncoder().encode('OggS and more bytes'))).toHaveProperty('problem');
  });
});
