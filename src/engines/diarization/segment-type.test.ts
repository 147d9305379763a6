import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { synthesiseMusic } from '../../../training/common/music-synth.js';
import { typingFrames } from './music-detector.js';
import { trackPitch } from './pitch-track.js';
import { classifySpeakers, classifyVoice, detectMusic, outsideRegions, parseSegmentTypeModel, typeTurns, voiceFeatures } from './segment-type.js';

const model = parseSegmentTypeModel(JSON.parse(readFileSync(new URL('../../../models/segment-types/segment-types-v1.json', import.meta.url), 'utf8')));

/** A voice-like harmonic tone at `f0` with a slow 5% wobble. */
function voice(f0: number, seconds: number): Float32Array {
  const out = new Float32Array(16_000 * seconds);
  let phase = 0;
  for (let i = 0; i < out.length; i++) {
    phase += (2 * Math.PI * f0 * (1 + 0.05 * Math.sin((2 * Math.PI * 1.3 * i) / 16_000))) / 16_000;
    out[i] = 0.2 * (Math.sin(phase) + 0.6 * Math.sin(2 * phase) + 0.4 * Math.sin(3 * phase));
  }
  return out;
}

/** `seconds` of silence with each turn's voice (at its `f0`) over its span; the turns as the diarizer gives them. */
function voicedTurns(seconds: number, turns: readonly { f0: number; startMs: number; endMs: number; speaker: number }[]) {
  const pcm = new Float32Array(16_000 * seconds);
  for (const t of turns) pcm.set(voice(t.f0, (t.endMs - t.startMs) / 1000), t.startMs * 16);
  return { pcm, turns: turns.map(({ startMs, endMs, speaker }) => ({ startMs, endMs, speaker })) };
}

describe('voice classification', () => {
  it('calls a low voice male, a high one female and one near the boundary speech', () => {
    const f0 = (pcm: Float32Array): number[] => [...trackPitch(pcm).f0].filter((f) => f > 0);
    expect(classifyVoice(f0(voice(100, 2)), model).type).toBe('male');
    expect(classifyVoice(f0(voice(230, 2)), model).type).toBe('female');
    const boundary =
      2 ** (model.voice.mean[0]! - (model.voice.bias * model.voice.std[0]!) / (model.voice.weights[0]! + model.voice.weights[1]! + model.voice.weights[2]!));
    expect(classifyVoice(f0(voice(boundary, 2)), model).type).toBe('speech');
  });

  it('answers speech with too few voiced frames, and pools quantiles of log F0', () => {
    expect(classifyVoice([100, 101, 102], model)).toMatchObject({ type: 'speech', pFemale: null });
    const x = voiceFeatures([100, 200, 400])!;
    expect(2 ** x[0]!).toBeCloseTo(200, 6);
  });

  it('pools each speaker over all its turns', () => {
    const { pcm, turns } = voicedTurns(6, [
      { f0: 105, startMs: 0, endMs: 2000, speaker: 0 },
      { f0: 220, startMs: 2000, endMs: 4000, speaker: 1 },
      { f0: 110, startMs: 4000, endMs: 6000, speaker: 0 },
    ]);
    const speakers = classifySpeakers(trackPitch(pcm), turns, [], model);
    expect(speakers.map((s) => [s.speaker, s.type])).toEqual([
      [0, 'male'],
      [1, 'female'],
    ]);
    expect(speakers[0]!.voicedFrames).toBeGreaterThan(350);
  });
});

describe('music detection', () => {
  it('finds a stretch of synthesised music (seeds not used for fitting) between speech-like silence', () => {
    const pcm = new Float32Array(16_000 * 16);
    pcm.set(synthesiseMusic(10_007, 10).pcm, 16_000 * 3);
    const regions = detectMusic(typingFrames(pcm), model);
    const found = regions.reduce((sum, r) => sum + Math.max(0, Math.min(r.endMs, 13_000) - Math.max(r.startMs, 3000)), 0);
    const outside = regions.reduce((sum, r) => sum + (r.endMs - r.startMs), 0) - found;
    expect(found).toBeGreaterThan(7000);
    expect(outside).toBeLessThan(1000);
  });

  it('outsideRegions is the complement', () => {
    expect(outsideRegions([{ startMs: 1000, endMs: 2000 }], 5000)).toEqual([
      { startMs: 0, endMs: 1000 },
      { startMs: 2000, endMs: 5000 },
    ]);
  });

  it('refuses a model file with a bad band', () => {
    expect(() => parseSegmentTypeModel({ voice_band: { male: 0.8, female: 0.2 } })).toThrow(/voice_band/);
  });
});

describe('typeTurns', () => {
  it('gives a long turn its own voice and a short or unsure one its speaker voice', () => {
    // One cluster holding a man (3 s) and a woman (3 s), and a 0.5 s turn of the woman.
    const { pcm, turns } = voicedTurns(7, [
      { f0: 105, startMs: 0, endMs: 3000, speaker: 0 },
      { f0: 225, startMs: 3000, endMs: 6000, speaker: 0 },
      { f0: 225, startMs: 6500, endMs: 7000, speaker: 1 },
    ]);
    const track = trackPitch(pcm);
    const speakers = [
      { speaker: 0, type: 'speech' as const, pFemale: 0.5, medianF0: 150, voicedFrames: 600 },
      { speaker: 1, type: 'male' as const, pFemale: 0.1, medianF0: 100, voicedFrames: 50 },
    ];
    expect(typeTurns(track, turns, [], speakers, model).map((t) => t.type)).toEqual(['male', 'female', 'male']);
  });
});
