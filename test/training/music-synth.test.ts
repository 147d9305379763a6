import { describe, expect, it } from 'vitest';
import { synthesiseMusic } from '../../training/common/music-synth.js';

const rmsDb = (pcm: Float32Array): number => 10 * Math.log10(pcm.reduce((s, v) => s + v * v, 0) / pcm.length);

describe('synthesiseMusic', () => {
  it('is reproducible by seed and differs between seeds', () => {
    const a = synthesiseMusic(42, 3);
    expect(synthesiseMusic(42, 3).pcm).toEqual(a.pcm);
    expect(synthesiseMusic(43, 3).pcm).not.toEqual(a.pcm);
    expect(a.pcm.length).toBe(48_000);
  });

  it('draws tempo, parts and timbres within their ranges, at -32 to -14 dBFS unless a peak would pass 0.99', () => {
    const tempos = new Set<number>();
    const timbres = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const piece = synthesiseMusic(seed, 2);
      expect(piece.tempo).toBeGreaterThanOrEqual(60);
      expect(piece.tempo).toBeLessThanOrEqual(180);
      expect(piece.parts.some((p) => p !== 'drums')).toBe(true);
      const level = rmsDb(piece.pcm);
      const peak = Math.max(...piece.pcm.map(Math.abs));
      expect(level).toBeLessThan(-13.5);
      expect(peak).toBeLessThanOrEqual(0.99 + 1e-6);
      // Quieter than -32 dBFS only when the peak limit set the gain.
      if (level < -32.5) expect(peak).toBeGreaterThan(0.98);
      tempos.add(piece.tempo);
      for (const t of piece.timbres) timbres.add(t);
    }
    expect(tempos.size).toBeGreaterThan(20);
    expect(timbres.size).toBeGreaterThanOrEqual(7);
  });

  it('plays the parts it is told to', () => {
    expect(synthesiseMusic(5, 2, ['drums', 'bass']).parts).toEqual(['drums', 'bass']);
    // Drums alone get a pitched part added.
    expect(synthesiseMusic(5, 2, ['drums']).parts).toEqual(['drums', 'melody']);
  });
});
