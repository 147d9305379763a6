// StreamInput: interleaved channels and 8 kHz telephone audio in, one 16-bit array per channel
// at the front ends' rate out (src/engines/signal/live/stream-input.ts), over the real resampler.
import { describe, expect, it } from 'vitest';
import { frontEndFormatFor, isPassthrough, StreamInput } from '../../src/engines/signal/live/stream-input.js';
import { randomSplits, snrDb, tones } from './audio-helpers.js';

function int16Bytes(samples: Float32Array | number[]): Uint8Array {
  const view = new DataView(new ArrayBuffer(samples.length * 2));
  Array.from(samples).forEach((v, i) => view.setInt16(2 * i, Math.max(-32768, Math.min(32767, Math.round(v * 32768))), true));
  return new Uint8Array(view.buffer);
}

function interleaved(left: Float32Array, right: Float32Array): Float32Array {
  const out = new Float32Array(left.length * 2);
  for (let i = 0; i < left.length; i++) {
    out[2 * i] = left[i]!;
    out[2 * i + 1] = right[i]!;
  }
  return out;
}

/** G.711 mu-law encoding (the reference algorithm), to build test input. */
function mulawEncode(sample: number): number {
  const BIAS = 0x84;
  let pcm = Math.max(-32635, Math.min(32635, Math.round(sample * 32768)));
  const sign = pcm < 0 ? 0x80 : 0;
  if (pcm < 0) pcm = -pcm;
  pcm += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (pcm & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (pcm >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** Pushes every part, concatenating each channel's output (plus the flush tail). */
function run(input: StreamInput, parts: Uint8Array[]): Float32Array[] {
  const out: number[][] = Array.from({ length: input.channels }, () => []);
  for (const part of parts) {
    const split = input.split(part);
    if (!Array.isArray(split)) throw new Error(split.problem);
    split.forEach((samples, c) => out[c]!.push(...samples));
  }
  input.flush().forEach((samples, c) => out[c]!.push(...samples));
  return out.map((samples) => Float32Array.from(samples, (v) => v / 32768));
}

/** The best SNR of `test` against `reference` over lags 0..maxLag (the resampler's delay). */
function alignedSnr(reference: Float32Array, test: Float32Array, maxLag = 64): number {
  let best = Number.NEGATIVE_INFINITY;
  for (let lag = 0; lag <= maxLag; lag++) {
    const n = Math.min(reference.length, test.length - lag) - 200;
    best = Math.max(best, snrDb(reference.subarray(200, n), test.subarray(200 + lag, n + lag)));
  }
  return best;
}

describe('StreamInput', () => {
  it('mono native formats pass through; the others go to pcm_s16le (or pcm_s16le_48k) front ends', () => {
    expect(isPassthrough('wav', 1)).toBe(true);
    expect(isPassthrough('wav', 2)).toBe(false);
    // G.711 is a native format: mono passes through, stereo bytes go to G.711 front ends.
    expect(isPassthrough('mulaw_8k', 1)).toBe(true);
    expect(isPassthrough('alaw_8k', 1)).toBe(true);
    expect(isPassthrough('alaw_8k', 2)).toBe(false);
    expect(frontEndFormatFor('alaw_8k', 2)).toBe('alaw_8k');
    expect(frontEndFormatFor('mulaw_8k', 2)).toBe('mulaw_8k');
    expect(frontEndFormatFor('webm_opus', 1)).toBe('webm_opus');
    expect(frontEndFormatFor('pcm_s16le_48k', 2)).toBe('pcm_s16le_48k');
    expect(frontEndFormatFor('wav', 2)).toBe('pcm_s16le');
    expect(frontEndFormatFor('pcm_s16le_8k', 1)).toBe('pcm_s16le');
  });

  it('de-interleaves stereo PCM split at any byte, exactly (16 and 48 kHz)', () => {
    const left = tones([440], 16_000, 4_000, 0.3);
    const right = tones([1_250], 16_000, 4_000, 0.2);
    const bytes = int16Bytes(interleaved(left, right));
    for (const format of ['pcm_s16le', 'pcm_s16le_48k'] as const) {
      const input = new StreamInput(format, 2);
      const [l, r] = run(input, randomSplits(bytes, 3, 777));
      expect(l!.length).toBe(4_000);
      expect(snrDb(left, l!)).toBeGreaterThan(80);
      expect(snrDb(right, r!)).toBeGreaterThan(80);
      input.close();
    }
  });

  it("pcm_s16le_8k (stereo) comes out at 16 kHz, the tones intact; G.711 stereo is split into each channel's bytes", () => {
    const low = tones([300, 700], 8_000, 8_000, 0.4);
    const high = tones([1_100, 2_300], 8_000, 8_000, 0.4);
    const expectedLow = tones([300, 700], 16_000, 16_000, 0.4);
    const expectedHigh = tones([1_100, 2_300], 16_000, 16_000, 0.4);
    // The 16 kHz reference of an 8 kHz tone: same frequencies, same phase at t=0 (tones() phase is per frequency).
    const pcm = new StreamInput('pcm_s16le_8k', 2);
    const [l, r] = run(pcm, randomSplits(int16Bytes(interleaved(low, high)), 5, 301));
    expect(Math.abs(l!.length - 16_000)).toBeLessThanOrEqual(2);
    expect(alignedSnr(expectedLow, l!)).toBeGreaterThan(30);
    expect(alignedSnr(expectedHigh, r!)).toBeGreaterThan(30);

    pcm.close();

    // G.711 frames are two bytes (left, right): each channel's codes come out as they went in,
    // whatever the split; the front ends expand and upsample them (test/native/front-end.test.ts).
    const leftCodes = Uint8Array.from(low, mulawEncode);
    const rightCodes = Uint8Array.from(high, mulawEncode);
    const both = new Uint8Array(2 * leftCodes.length);
    leftCodes.forEach((code, i) => {
      both[2 * i] = code;
      both[2 * i + 1] = rightCodes[i]!;
    });
    for (const format of ['mulaw_8k', 'alaw_8k'] as const) {
      const input = new StreamInput(format, 2);
      const out: number[][] = [[], []];
      for (const part of randomSplits(both, 9, 123)) {
        const split = input.split(part);
        if (!Array.isArray(split)) throw new Error(split.problem);
        expect(split.every((channel) => channel instanceof Uint8Array)).toBe(true);
        split.forEach((codes, c) => out[c]!.push(...codes));
      }
      expect(input.flush().every((tail) => tail.length === 0)).toBe(true);
      expect(Uint8Array.from(out[0]!)).toEqual(leftCodes);
      expect(Uint8Array.from(out[1]!)).toEqual(rightCodes);
      input.close();
    }
  });

  it('a stereo WAV stream: header split anywhere, 8 kHz upsampled, trailing chunks ignored; a mono WAV is refused once', () => {
    const left = tones([500], 8_000, 2_000, 0.3);
    const right = tones([900], 8_000, 2_000, 0.3);
    const data = int16Bytes(interleaved(left, right));
    const header = new DataView(new ArrayBuffer(44));
    const put = (at: number, text: string): void => [...text].forEach((ch, i) => header.setUint8(at + i, ch.charCodeAt(0)));
    put(0, 'RIFF');
    header.setUint32(4, 36 + data.length + 12, true);
    put(8, 'WAVEfmt ');
    header.setUint32(16, 16, true);
    header.setUint16(20, 1, true);
    header.setUint16(22, 2, true);
    header.setUint32(24, 8_000, true);
    header.setUint32(28, 32_000, true);
    header.setUint16(32, 4, true);
    header.setUint16(34, 16, true);
    put(36, 'data');
    header.setUint32(40, data.length, true);
    const trailer = new Uint8Array([...'LIST'].map((c) => c.charCodeAt(0)).concat([4, 0, 0, 0, 1, 2, 3, 4]));
    const file = new Uint8Array([...new Uint8Array(header.buffer), ...data, ...trailer]);
    const input = new StreamInput('wav', 2);
    const [l, r] = run(input, randomSplits(file, 13, 40));
    expect(Math.abs(l!.length - 4_000)).toBeLessThanOrEqual(2);
    expect(alignedSnr(tones([500], 16_000, 4_000, 0.3), l!)).toBeGreaterThan(30);
    expect(alignedSnr(tones([900], 16_000, 4_000, 0.3), r!)).toBeGreaterThan(30);

    header.setUint16(22, 1, true);
    const mono = new StreamInput('wav', 2);
    const first = mono.split(new Uint8Array(header.buffer));
    expect(first).toMatchObject({ sticky: true });
    expect((first as { problem: string }).problem).toContain('channels=2');
    expect(mono.split(data)).toBe(first);
    // FORMAT resets it.
    mono.setFormat('pcm_s16le');
    expect(Array.isArray(mono.split(data))).toBe(true);
    input.close();
    mono.close();
  });
});
