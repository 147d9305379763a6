// G.711 (alaw_8k, mulaw_8k) through the native front end against ffmpeg's pcm_alaw/pcm_mulaw
// decoders, sample for sample. The codes: the speech fixture as ffmpeg encodes it at 8 kHz,
// then every one of the 256 codes. ffmpeg's decoding of the same bytes goes into a second front
// end as 8 kHz 16-bit WAV, through the same 8 -> 16 kHz resampler: the two outputs are equal
// exactly when every code expands to ffmpeg's value (the 2x polyphase passes each input sample
// to an output sample with a tap of 1, so one code off by one step shows).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { concatSamples, StreamFrontEnd } from '../../src/engines/signal/signal.js';
import { runFfmpeg } from '../helpers/audio-files.js';
import { fixturePath, wavOf } from '../helpers/fixtures.js';
import { randomSplits } from './audio-helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'g711-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** All 16 kHz samples a front end in `format` makes of `bytes` (random message sizes, then END). */
function frontEndOutput(format: 'alaw_8k' | 'mulaw_8k' | 'wav', bytes: Uint8Array, seed: number): Int16Array {
  const fe = new StreamFrontEnd({ format, energyVad: false });
  const parts: Int16Array[] = [];
  const take = (): void => {
    const out = new Int16Array(fe.buffered);
    fe.read(out);
    parts.push(out);
  };
  for (const piece of randomSplits(bytes, seed, 3_000)) {
    expect(fe.push(piece)).toBe(0);
    take();
  }
  expect(fe.flush()).toBe(0);
  take();
  fe.close();
  return concatSamples(parts, Int16Array);
}

describe.each([
  ['alaw_8k', 'alaw'],
  ['mulaw_8k', 'mulaw'],
] as const)('%s against ffmpeg', (format, muxer) => {
  it('expands every code as ffmpeg does and upsamples it like 8 kHz PCM, sample for sample', () => {
    const speechCodes = join(tmp, `speech.${muxer}`);
    runFfmpeg(['-i', fixturePath('native/speech-16k.wav'), '-ar', '8000', '-ac', '1', '-f', muxer, speechCodes]);
    const every = Uint8Array.from({ length: 512 }, (_, i) => i % 256);
    const codes = new Uint8Array([...readFileSync(speechCodes), ...every]);
    expect(codes.length).toBeGreaterThan(60_000);
    const allCodes = join(tmp, `all.${muxer}`);
    writeFileSync(allCodes, codes);
    // The reference decoder: ffmpeg, raw G.711 in, 16-bit PCM out, no resampling.
    const decoded = join(tmp, `all-${muxer}.s16`);
    runFfmpeg(['-f', muxer, '-ar', '8000', '-ac', '1', '-i', allCodes, '-f', 's16le', '-c:a', 'pcm_s16le', decoded]);
    const reference = readFileSync(decoded);
    expect(reference.length).toBe(2 * codes.length);

    const ours = frontEndOutput(format, codes, 11);
    const theirs = frontEndOutput('wav', wavOf(reference, 8_000), 12);
    expect(ours.length).toBe(2 * codes.length);
    expect(theirs.length).toBe(ours.length);
    let differing = 0;
    for (let i = 0; i < ours.length; i++) if (ours[i] !== theirs[i]) differing++;
    expect(differing).toBe(0);
    // Not silence: the comparison saw the speech and the loudest codes.
    expect(Math.max(...ours.subarray(ours.length - 1_100))).toBeGreaterThan(30_000);
  });
});
