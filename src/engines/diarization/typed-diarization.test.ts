import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { synthesiseMusic } from '../../../training/common/music-synth.js';
import { parseSegmentTypeModel } from './segment-type.js';
import { loadSpeakerProjection } from './speaker-projection.js';
import { diarizeWithTypes } from './typed-diarization.js';

const model = parseSegmentTypeModel(JSON.parse(readFileSync(new URL('../../../models/segment-types/segment-types-v1.json', import.meta.url), 'utf8')));
const projection = await loadSpeakerProjection(new URL('../../../models/diarization/speaker-lda-v1.json', import.meta.url).pathname);
const options = { backend: 'backend_a', minSpeakers: 2, maxSpeakers: 2 } as const;

/** A voice-like sound: harmonics of a gliding F0 around `f0`, in syllables about four a second, with pauses. */
function voice(f0: number, seconds: number, seed: number): Float32Array {
  const out = new Float32Array(16_000 * seconds);
  let phase = 0;
  for (let i = 0; i < out.length; i++) {
    const t = i / 16_000;
    const f = f0 * (1 + 0.12 * Math.sin(2 * Math.PI * 0.8 * t + seed) + 0.05 * Math.sin(2 * Math.PI * 3.3 * t));
    phase += (2 * Math.PI * f) / 16_000;
    const gate = Math.max(0, Math.sin(2 * Math.PI * 4.2 * t + seed)) * (t % 2.5 < 2 ? 1 : 0);
    out[i] = gate * 0.15 * (Math.sin(phase) + 0.7 * Math.sin(2 * phase) + 0.5 * Math.sin(3 * phase) + 0.3 * Math.sin(4 * phase));
  }
  return out;
}

describe('diarizeWithTypes', () => {
  it('finds the music, leaves it out of the speaker turns and types the two voices', () => {
    const pcm = new Float32Array(16_000 * 22);
    pcm.set(voice(105, 5, 0), 0);
    pcm.set(synthesiseMusic(10_042, 8, ['melody', 'chords', 'bass']).pcm, 16_000 * 6);
    pcm.set(voice(225, 5, 1), 16_000 * 15);
    const { turns, types, typesWarning } = diarizeWithTypes(pcm, options, projection, model);
    expect(typesWarning).toBeNull();
    const musicMs = types!.music.reduce((sum, r) => sum + Math.max(0, Math.min(r.endMs, 14_000) - Math.max(r.startMs, 6000)), 0);
    expect(musicMs).toBeGreaterThan(6000);
    for (const turn of turns) for (const r of types!.music) expect(turn.endMs <= r.startMs || turn.startMs >= r.endMs).toBe(true);
    const typeAt = (ms: number): string | undefined => {
      const turn = turns.find((t) => t.startMs <= ms && ms < t.endMs);
      return turn === undefined ? undefined : types!.speakers.find((s) => s.speaker === turn.speaker)?.type;
    };
    expect(typeAt(1000)).toBe('male');
    expect(typeAt(16_000)).toBe('female');
  });

  it('without a model answers the plain turns', () => {
    const pcm = new Float32Array(16_000 * 4);
    pcm.set(voice(120, 3, 0), 8000);
    const out = diarizeWithTypes(pcm, { backend: 'backend_a', minSpeakers: null, maxSpeakers: null }, projection, null);
    expect(out.types).toBeNull();
    expect(out.turns.length).toBeGreaterThan(0);
  });
});
