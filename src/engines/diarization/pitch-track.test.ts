import { describe, expect, it } from 'vitest';
import { trackPitch } from './pitch-track.js';

const RATE = 16_000;

/** Sum of harmonics `k` of `f0` with amplitudes `amps[k-1]`, `seconds` long. */
function harmonic(f0: number, amps: readonly number[], seconds = 1): Float32Array {
  const out = new Float32Array(Math.round(RATE * seconds));
  for (let i = 0; i < out.length; i++) {
    let v = 0;
    amps.forEach((a, k) => {
      v += a * Math.sin((2 * Math.PI * (k + 1) * f0 * i) / RATE);
    });
    out[i] = v;
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function voicedF0(pcm: Float32Array): number[] {
  const track = trackPitch(pcm);
  return [...track.f0].filter((f) => f > 0);
}

describe('trackPitch', () => {
  it('finds the F0 of pure tones within 1% on nearly every frame', () => {
    for (const f of [80, 120, 200, 310, 450]) {
      const f0 = voicedF0(harmonic(f, [0.5]));
      expect(f0.length).toBeGreaterThan(90);
      expect(Math.abs(median(f0) - f) / f).toBeLessThan(0.01);
    }
  });

  it('finds the fundamental of harmonic signals, a missing fundamental included, not an octave off', () => {
    const male = voicedF0(harmonic(110, [0.3, 0.4, 0.3, 0.2, 0.1]));
    expect(Math.abs(median(male) - 110)).toBeLessThan(1.5);
    const missing = voicedF0(harmonic(150, [0, 0.4, 0.3, 0.3, 0.2]));
    expect(Math.abs(median(missing) - 150)).toBeLessThan(2);
    // Every voiced frame of a steady harmonic tone is within 3% (no octave jumps).
    expect(male.every((f) => Math.abs(f - 110) / 110 < 0.03)).toBe(true);
  });

  it('follows a glide', () => {
    // 100 Hz rising to 300 Hz over 2 s (phase integrated).
    const out = new Float32Array(RATE * 2);
    let phase = 0;
    for (let i = 0; i < out.length; i++) {
      const f = 100 + (200 * i) / out.length;
      phase += (2 * Math.PI * f) / RATE;
      out[i] = 0.4 * Math.sin(phase) + 0.2 * Math.sin(2 * phase);
    }
    const track = trackPitch(out);
    for (const t of [20, 100, 180]) {
      const expected = 100 + (200 * (t * 160 + 256)) / out.length;
      expect(Math.abs(track.f0[t]! - expected) / expected).toBeLessThan(0.03);
    }
  });

  it('calls silence and white noise unvoiced', () => {
    expect(voicedF0(new Float32Array(RATE))).toEqual([]);
    let seed = 7;
    const noise = new Float32Array(RATE).map(() => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return (seed / 2_147_483_648 - 0.5) * 0.6;
    });
    const track = trackPitch(noise);
    const voiced = [...track.f0].filter((f) => f > 0).length;
    expect(voiced / track.frames).toBeLessThan(0.1);
    // Noise is aperiodic and crosses zero often; a low tone is periodic and crosses rarely.
    const tone = trackPitch(harmonic(120, [0.5]));
    expect(median([...track.periodicity])).toBeLessThan(0.6);
    expect(median([...tone.periodicity])).toBeGreaterThan(0.95);
    expect(median([...track.zeroCrossings])).toBeGreaterThan(0.3);
    expect(median([...tone.zeroCrossings])).toBeLessThan(0.03);
  });

  it('answers one frame per 10 ms with energies, and nothing for empty input', () => {
    const track = trackPitch(harmonic(200, [0.5], 0.5));
    expect(track.frames).toBe(50);
    expect(track.logEnergy[10]).toBeCloseTo(Math.log(0.125), 1);
    expect(trackPitch(new Float32Array(0)).frames).toBe(0);
  });
});

describe('trackPitch frame energies and zero crossings', () => {
  it('match the direct sums over each 32 ms window, the short last windows included', () => {
    let seed = 7;
    const pcm = Float32Array.from({ length: 16_000 * 3 + 17 }, () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 30 - 1;
    });
    const track = trackPitch(pcm);
    for (let t = 0; t < track.frames; t++) {
      const from = 160 * t;
      const to = Math.min(pcm.length, from + 512);
      let energy = 0;
      let crossings = 0;
      for (let i = from; i < to; i++) {
        energy += pcm[i]! * pcm[i]!;
        if (i > from && pcm[i]! >= 0 !== pcm[i - 1]! >= 0) crossings++;
      }
      expect(track.logEnergy[t]).toBeCloseTo(Math.log(Math.max(energy / (to - from), 1e-10)), 5);
      expect(track.zeroCrossings[t]).toBeCloseTo(crossings / (to - from), 6);
    }
  });
});
