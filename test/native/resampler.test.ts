import { describe, expect, it } from 'vitest';
import { Resampler } from '../../src/engines/signal/live/resampler.js';
import { StreamFrontEnd } from '../../src/engines/signal/live/stream-front-end.js';
import { concat, pcm16Bytes, randomSplits, snrDb, speechFixture, tones } from './audio-helpers.js';

function resampleAll(r: Resampler, x: Float32Array, chunk = 4096): Float32Array {
  const parts: Float32Array[] = [];
  for (let at = 0; at < x.length; at += chunk) {
    const input = x.subarray(at, Math.min(x.length, at + chunk));
    const out = new Float32Array(r.maxOutput(input.length));
    parts.push(out.subarray(0, r.process(input, out)));
  }
  const tail = new Float32Array(r.info.flushMaxOutput);
  parts.push(tail.subarray(0, r.flush(tail)));
  return concat(parts);
}

describe('Resampler (native polyphase FIR)', () => {
  it('matches analytic multi-tone signals from 48, 44.1, 32, 22.05 and 8 kHz', () => {
    const freqs = [150, 440, 1250, 2900, 3500];
    for (const rate of [48000, 44100, 32000, 22050, 8000]) {
      const r = new Resampler(rate, 16000);
      try {
        const y = resampleAll(r, tones(freqs, rate, rate, 0.5));
        expect(y.length).toBe(16000);
        const ideal = tones(freqs, 16000, 16000, 0.5);
        // Delay-compensated: sample m is input time m / 16000 s, so SNR is against the ideal.
        expect(snrDb(ideal, y, 200, 15800)).toBeGreaterThan(70);
      } finally {
        r.close();
      }
    }
  });

  it('removes content above 8 kHz when decimating 48 kHz', () => {
    const r = new Resampler(48000, 16000);
    const y = resampleAll(r, tones([9000, 12000, 20000], 48000, 48000, 0.5));
    r.close();
    let e = 0;
    for (let i = 200; i < y.length - 200; i++) e += y[i]! * y[i]!;
    const rms = Math.sqrt(e / (y.length - 400));
    expect(20 * Math.log10(rms / (0.5 / Math.sqrt(6)))).toBeLessThan(-78);
  });

  it('round-trips real speech 16 -> 48 -> 16 kHz through the pcm_s16le_48k front end', () => {
    const speech = speechFixture();
    const up = new Resampler(16000, 48000);
    const at48 = resampleAll(up, speech);
    up.close();
    const fe = new StreamFrontEnd({ format: 'pcm_s16le_48k', energyVad: false });
    for (const piece of randomSplits(pcm16Bytes(at48), 5, 3001)) expect(fe.push(piece)).toBe(0);
    expect(fe.flush()).toBe(0);
    const back = new Float32Array(fe.buffered);
    expect(fe.read(back)).toBe(speech.length);
    fe.close();
    // Both passes keep 0..7.2 kHz; what speech has between 7.2 and 8 kHz is the only loss.
    const snr = snrDb(speech, back, 400, speech.length - 400);
    expect(snr).toBeGreaterThan(30);
  });

  it('rejects ratios it cannot do', () => {
    expect(() => new Resampler(16001, 16000)).toThrow(RangeError);
    expect(() => new Resampler(1000, 16000)).toThrow(RangeError);
  });
});
