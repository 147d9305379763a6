/**
 * Synthetic music for the robustness corpus (issue 28), four plain kinds written here and one
 * full arrangement from training/common/music-synth.ts; 16 kHz float samples, not levelled (the
 * corpus levels each clip). Pure; a seeded random source draws every choice. No recorded music is
 * used (none is licensed here).
 * - chords: triads of a random key and progression (I-V-vi-IV and others), one every 1.2-2.4 s,
 *   organ-like (4 harmonics), 30 ms attack and 80 ms release: hold music at its plainest;
 * - arpeggio: a chord's notes up and down over two octaves in eighth or sixteenth notes at
 *   80-150 BPM, plucked (decaying harmonics, higher ones decaying faster);
 * - drums: kick (a 150-to-50 Hz sweep), snare (noise and 190 Hz), closed hi-hat (differenced noise)
 *   in a rock, four-on-the-floor or half-time pattern at 80-140 BPM;
 * - melody: one voice walking a major, minor or pentatonic scale, notes of 0.15-0.8 s with rests,
 *   8 harmonics (amplitude 1/k^1.2) and a 5 Hz vibrato of 0.5%;
 * - mix: `synthesiseMusic` (melody, chords, bass and drums in eight timbres).
 */
import { addDrum, type DrumKind, type DrumVoicing, synthesiseMusic } from '../training/common/music-synth.js';
import { gaussian, RATE, type Random } from './robustness-noises.js';

export const MUSIC_KINDS = ['chords', 'arpeggio', 'drums', 'melody', 'mix'] as const;
export type MusicKind = (typeof MUSIC_KINDS)[number];

const hz = (midi: number): number => 440 * 2 ** ((midi - 69) / 12);
const MAJOR = [0, 2, 4, 5, 7, 9, 11];
const MINOR = [0, 2, 3, 5, 7, 8, 10];
const PENTATONIC = [0, 2, 4, 7, 9];
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
/** The plain drums' voicing: a longer kick, a snare with more tone, a brighter hat than music-synth's. */
const DRUMS: DrumVoicing = { seconds: { kick: 0.3, snare: 0.2, hat: 0.05 }, decay: { kick: 10, snare: 18, hat: 70 }, snareTone: 0.4, hatLevel: 0.6 };

/** Adds a note of additive `harmonics` (amplitude per harmonic) with an attack/release envelope and optional decay. */
function addTone(
  out: Float32Array,
  start: number,
  length: number,
  f: number,
  gain: number,
  harmonics: readonly number[],
  shape: { attack: number; release: number; decayPerSecond: number; vibrato?: number },
): void {
  const attack = Math.max(1, Math.round(shape.attack * RATE));
  const release = Math.max(1, Math.round(shape.release * RATE));
  let phase = 0;
  for (let i = 0; i < length && start + i < out.length; i++) {
    const t = i / RATE;
    const envelope = Math.min(1, i / attack) * Math.min(1, (length - i) / release) * Math.exp(-t * shape.decayPerSecond);
    phase += (2 * Math.PI * f * (1 + (shape.vibrato ?? 0) * Math.sin(2 * Math.PI * 5 * t))) / RATE;
    let v = 0;
    for (let k = 0; k < harmonics.length; k++) {
      if ((k + 1) * f < 7_500) v += harmonics[k]! * Math.sin((k + 1) * phase) * (shape.decayPerSecond > 0 ? Math.exp(-t * k * 1.5) : 1);
    }
    if (start + i >= 0) out[start + i]! += gain * envelope * v;
  }
}

function chords(seconds: number, random: Random): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const root = 48 + Math.floor(random() * 12);
  const scale = random() < 0.6 ? MAJOR : MINOR;
  const progression = pick(random, [
    [0, 4, 5, 3],
    [0, 3, 4, 0],
    [0, 5, 3, 4],
    [5, 3, 0, 4],
  ]);
  const note = (degree: number): number => root + 12 * Math.floor(degree / 7) + scale[degree % 7]!;
  for (let at = 0, n = 0; at < out.length; n++) {
    const length = Math.round((1.2 + random() * 1.2) * RATE);
    const base = progression[n % progression.length]!;
    for (const step of [0, 2, 4])
      addTone(out, at, length, hz(note(base + step)), 0.3, [1, 0.5, 0.33, 0.25], { attack: 0.03, release: 0.08, decayPerSecond: 0 });
    at += length;
  }
  return out;
}

function arpeggio(seconds: number, random: Random): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const tempo = 80 + random() * 70;
  const step = Math.round(((60 / tempo) * RATE) / (random() < 0.5 ? 2 : 4));
  const root = 52 + Math.floor(random() * 10);
  const scale = random() < 0.5 ? MAJOR : MINOR;
  const chordsOf = [0, 5, 3, 4];
  const note = (degree: number): number => root + 12 * Math.floor(degree / 7) + scale[degree % 7]!;
  const pattern = [0, 2, 4, 7, 9, 11, 9, 7, 4, 2];
  for (let at = 0, n = 0; at < out.length; at += step, n++) {
    const chord = chordsOf[Math.floor(n / pattern.length) % chordsOf.length]!;
    addTone(out, at, step * 3, hz(note(chord + pattern[n % pattern.length]!)), 0.35, [1, 0.6, 0.4, 0.3, 0.2, 0.1], {
      attack: 0.003,
      release: 0.02,
      decayPerSecond: 4,
    });
  }
  return out;
}

function drums(seconds: number, random: Random): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const tempo = 80 + random() * 60;
  const eighth = Math.round(((60 / tempo) * RATE) / 2);
  const pattern = pick(random, ['rock', 'four', 'half'] as const);
  const noise = (): number => gaussian(random) * 0.5;
  const hit = (at: number, kind: DrumKind, gain: number): void => addDrum(out, at, kind, gain, noise, DRUMS);
  for (let at = 0, n = 0; at < out.length; at += eighth, n++) {
    const beat = Math.floor(n / 2) % 4;
    const onBeat = n % 2 === 0;
    if (pattern === 'four' ? onBeat : onBeat && (beat === 0 || (pattern === 'rock' && beat === 2))) hit(at, 'kick', 0.8);
    if (onBeat && (pattern === 'half' ? beat === 2 : beat % 2 === 1)) hit(at, 'snare', 0.5);
    hit(at, 'hat', 0.25);
  }
  return out;
}

function melody(seconds: number, random: Random): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  const scale = pick(random, [MAJOR, MINOR, PENTATONIC]);
  const root = 60 + Math.floor(random() * 10);
  const harmonics = Array.from({ length: 8 }, (_, k) => 1 / (k + 1) ** 1.2);
  let degree = Math.floor(random() * scale.length);
  for (let at = 0; at < out.length; ) {
    const length = Math.round((0.15 + random() * 0.65) * RATE);
    degree = Math.max(0, Math.min(2 * scale.length, degree + pick(random, [-2, -1, -1, 0, 1, 1, 2])));
    const midi = root + 12 * Math.floor(degree / scale.length) + scale[degree % scale.length]!;
    if (random() > 0.15) addTone(out, at, length, hz(midi), 0.4, harmonics, { attack: 0.02, release: 0.06, decayPerSecond: 0, vibrato: 0.005 });
    at += length;
  }
  return out;
}

/** `seconds` of music of `kind`; `seed` feeds `mix` (music-synth's own seeding), `random` the others. */
export function synthesiseMusicKind(kind: MusicKind, seconds: number, random: Random, seed: number): Float32Array {
  switch (kind) {
    case 'chords':
      return chords(seconds, random);
    case 'arpeggio':
      return arpeggio(seconds, random);
    case 'drums':
      return drums(seconds, random);
    case 'melody':
      return melody(seconds, random);
    case 'mix':
      return synthesiseMusic(seed, seconds).pcm;
  }
}
