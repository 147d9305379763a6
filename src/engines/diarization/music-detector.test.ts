import { describe, expect, it } from 'vitest';
import { synthesiseMusic } from '../../../training/common/music-synth.js';
import {
  activeGate,
  MUSIC_FEATURES,
  MUSIC_WINDOW_FRAMES,
  musicRegions,
  musicWindowFeatures,
  TYPING_MEL_BANDS,
  typingFrames,
  typingMelExtractor,
} from './music-detector.js';

const feature = (name: (typeof MUSIC_FEATURES)[number]): number => MUSIC_FEATURES.indexOf(name);

/** A syllable-like signal: a gliding harmonic voice switched on and off about four times a second, with pauses. */
function syllables(seconds: number): Float32Array {
  const out = new Float32Array(16_000 * seconds);
  let phase = 0;
  for (let i = 0; i < out.length; i++) {
    const t = i / 16_000;
    const f = 120 + 30 * Math.sin(2 * Math.PI * 0.7 * t) + 15 * Math.sin(2 * Math.PI * 3.1 * t);
    phase += (2 * Math.PI * f) / 16_000;
    const gate = Math.max(0, Math.sin(2 * Math.PI * 4 * t)) * (t % 2 < 1.6 ? 1 : 0);
    out[i] = gate * 0.2 * (Math.sin(phase) + 0.5 * Math.sin(2 * phase) + 0.3 * Math.sin(3 * phase));
  }
  return out;
}

function windowOf(pcm: Float32Array): Float64Array {
  const frames = typingFrames(pcm);
  const x = musicWindowFeatures(frames, 100, activeGate(frames.track), new Float64Array(MUSIC_FEATURES.length), new Float64Array(MUSIC_WINDOW_FRAMES));
  if (x === null) throw new Error('window is silent');
  return x;
}

describe('music features', () => {
  it('separate steady notes from syllabic speech-like sound the way the model expects', () => {
    const music = windowOf(synthesiseMusic(3, 4, ['melody', 'chords']).pcm);
    const speech = windowOf(syllables(4));
    // Syllables: many low-energy frames and a strong 3-6 Hz beat; held notes: steady pitch, few quiet frames.
    expect(speech[feature('lowEnergyRatio')]!).toBeGreaterThan(music[feature('lowEnergyRatio')]!);
    expect(speech[feature('bandModulation4Hz')]!).toBeGreaterThan(music[feature('bandModulation4Hz')]!);
    expect(music[feature('pitchSteadiness')]!).toBeGreaterThan(speech[feature('pitchSteadiness')]!);
    expect(music[feature('voicedRunSeconds')]!).toBeGreaterThan(speech[feature('voicedRunSeconds')]!);
  });

  it('skip windows that are mostly silent', () => {
    const pcm = new Float32Array(16_000 * 4);
    pcm.set(syllables(1).subarray(0, 8000), 0);
    const frames = typingFrames(pcm);
    expect(
      musicWindowFeatures(frames, 200, activeGate(frames.track), new Float64Array(MUSIC_FEATURES.length), new Float64Array(MUSIC_WINDOW_FRAMES)),
    ).toBeNull();
  });
});

describe('typingFrames', () => {
  it('computes the spectrogram a minute at a time with the same frames as the whole file at once', () => {
    const pcm = new Float32Array(16_000 * 130 + 77);
    const piece = synthesiseMusic(8, 10).pcm;
    for (let at = 0; at < pcm.length; at += piece.length) pcm.set(piece.subarray(0, Math.min(piece.length, pcm.length - at)), at);
    const frames = typingFrames(pcm);
    const mel = typingMelExtractor().compute(pcm);
    expect(frames.frames).toBe(mel.length / TYPING_MEL_BANDS);
    for (const t of [1, 5999, 6000, 6001, 11_999, 12_000, 12_003, frames.frames - 1]) {
      let rise = 0;
      for (let b = 0; b < TYPING_MEL_BANDS; b++) rise += Math.max(0, mel[t * TYPING_MEL_BANDS + b]! - mel[(t - 1) * TYPING_MEL_BANDS + b]!);
      expect(frames.flux[t]).toBeCloseTo(rise, 3);
      let low = 0;
      for (let b = 0; b < TYPING_MEL_BANDS / 4; b++) low += Math.exp(mel[t * TYPING_MEL_BANDS + b]!);
      expect(frames.groupAmplitude[t * 4]! / Math.sqrt(low)).toBeCloseTo(1, 4);
    }
  });
});

describe('musicRegions', () => {
  it('keeps runs over the threshold, bridges short gaps and drops short runs', () => {
    const p = new Float32Array(1000);
    p.fill(0.9, 100, 400); // 3 s
    p.fill(0.9, 430, 600); // after a 0.3 s gap: bridged
    p.fill(0.9, 800, 950); // 1.5 s: too short
    expect(musicRegions(p, 0.5)).toEqual([{ startMs: 1000, endMs: 6000 }]);
  });
});
