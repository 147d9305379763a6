/**
 * A seeded music synthesiser for training and testing the music detector (no licensed music is
 * available here; this is the project's own code and licence). A piece has a tempo (60-180 BPM),
 * a key and scale, and some of: a melody (random walk on the scale, notes of an eighth to a half
 * note, rests), a chord pad (triads changing each bar), a bass line, and drums (kick, snare,
 * hi-hat patterns). Each part plays one of several timbres: additive sine, sawtooth, square,
 * organ drawbars, bowed strings with vibrato, decaying piano-like partials, Karplus-Strong pluck
 * and a two-operator FM bell. Output: 16 kHz mono Float32 samples at a random loudness (peaks under 1).
 */
import { seededRandom } from './seeded-random.js';

const RATE = 16_000;

export const TIMBRES = ['sine', 'saw', 'square', 'organ', 'strings', 'piano', 'pluck', 'bell'] as const;
export type Timbre = (typeof TIMBRES)[number];

export interface MusicPiece {
  readonly pcm: Float32Array;
  readonly tempo: number;
  readonly parts: readonly string[];
  readonly timbres: readonly Timbre[];
}

const SCALES = [
  [0, 2, 4, 5, 7, 9, 11], // major
  [0, 2, 3, 5, 7, 8, 10], // natural minor
  [0, 2, 4, 7, 9], // major pentatonic
  [0, 3, 5, 7, 10], // minor pentatonic
  [0, 2, 3, 5, 7, 9, 10], // dorian
];

const hz = (midi: number): number => 440 * 2 ** ((midi - 69) / 12);

/** Adds one note of `timbre` at `f` Hz into `out` from sample `start` for `length` samples. */
function addNote(out: Float32Array, start: number, length: number, f: number, gain: number, timbre: Timbre, random: () => number): void {
  const end = Math.min(out.length, start + length);
  if (end <= start) return;
  const attack = Math.min(length / 4, RATE * (timbre === 'strings' ? 0.08 : timbre === 'organ' || timbre === 'sine' ? 0.02 : 0.005));
  const release = Math.min(length / 3, RATE * 0.05);
  const decaying = timbre === 'piano' || timbre === 'pluck' || timbre === 'bell';
  const decay = decaying ? 1 / (RATE * (0.25 + random() * 0.8)) : 0;
  const envelope = (i: number): number => {
    const a = i < attack ? i / attack : 1;
    const r = length - i < release ? Math.max(0, (length - i) / release) : 1;
    return a * r * (decaying ? Math.exp(-i * decay * 3) : 1);
  };
  if (timbre === 'pluck') {
    // Karplus-Strong: a noise burst circulating in a delay line with a two-point average.
    const period = Math.max(2, Math.round(RATE / f));
    const line = new Float32Array(period).map(() => random() * 2 - 1);
    let p = 0;
    for (let i = 0; start + i < end; i++) {
      const next = (p + 1) % period;
      const v = line[p]!;
      line[p] = 0.996 * 0.5 * (line[p]! + line[next]!);
      p = next;
      out[start + i]! += gain * v * (length - i < release ? (length - i) / release : 1);
    }
    return;
  }
  const harmonics: number[] = [];
  const limit = Math.floor(7000 / f);
  switch (timbre) {
    case 'sine':
      harmonics.push(1, 0, 0.1);
      break;
    case 'saw':
      for (let k = 1; k <= Math.min(limit, 24); k++) harmonics.push(1 / k);
      break;
    case 'square':
      for (let k = 1; k <= Math.min(limit, 24); k++) harmonics.push(k % 2 === 1 ? 1 / k : 0);
      break;
    case 'organ':
      harmonics.push(1, 0.8, 0.5, 0.6, 0, 0.3, 0, 0.3);
      break;
    case 'strings':
      for (let k = 1; k <= Math.min(limit, 16); k++) harmonics.push(0.9 / k ** 0.8);
      break;
    case 'piano':
      for (let k = 1; k <= Math.min(limit, 12); k++) harmonics.push(0.8 / k ** 1.3);
      break;
    case 'bell':
      break;
  }
  const vibratoRate = 4.5 + random() * 2;
  const vibratoDepth = timbre === 'strings' ? 0.004 + random() * 0.006 : 0;
  const ratio = 1.4 + Math.floor(random() * 3) * 0.5;
  let phase = random() * 2 * Math.PI;
  for (let i = 0; start + i < end; i++) {
    const vib = vibratoDepth > 0 ? 1 + vibratoDepth * Math.sin((2 * Math.PI * vibratoRate * i) / RATE) : 1;
    phase += (2 * Math.PI * f * vib) / RATE;
    let v = 0;
    if (timbre === 'bell') {
      const index = 3 * Math.exp((-i * 4) / RATE);
      v = Math.sin(phase + index * Math.sin(phase * ratio));
    } else {
      for (let k = 0; k < harmonics.length; k++) {
        const a = harmonics[k]!;
        if (a !== 0 && (k + 1) * f < 7500) v += a * Math.sin((k + 1) * phase);
      }
    }
    out[start + i]! += gain * envelope(i) * v;
  }
}

export type DrumKind = 'kick' | 'snare' | 'hat';

/** How a drum hit sounds: seconds it lasts and envelope decay per second by kind, the snare's
 * 190 Hz tone beside its noise, and the hat's level. */
export interface DrumVoicing {
  readonly seconds: Readonly<Record<DrumKind, number>>;
  readonly decay: Readonly<Record<DrumKind, number>>;
  readonly snareTone: number;
  readonly hatLevel: number;
}

const DRUMS: DrumVoicing = { seconds: { kick: 0.25, snare: 0.18, hat: 0.05 }, decay: { kick: 12, snare: 20, hat: 60 }, snareTone: 0.3, hatLevel: 0.5 };

/**
 * Adds one drum hit into `out` from sample `start`: a kick is a 150-to-50 Hz sine sweep, a snare
 * noise and a 190 Hz tone, a hat first-differenced noise; `noise()` gives the noise samples.
 */
export function addDrum(out: Float32Array, start: number, kind: DrumKind, gain: number, noise: () => number, voicing: DrumVoicing = DRUMS): void {
  const length = Math.round(RATE * voicing.seconds[kind]);
  const decay = voicing.decay[kind];
  let phase = 0;
  let previous = 0;
  for (let i = 0; i < length && start + i < out.length; i++) {
    const t = i / RATE;
    let v: number;
    if (kind === 'kick') {
      phase += (2 * Math.PI * (50 + 100 * Math.exp(-t * 30))) / RATE;
      v = Math.sin(phase) * Math.exp(-t * decay);
    } else {
      const n = noise();
      // A first difference makes the hat's noise bright.
      const bright = kind === 'hat' ? n - previous : n;
      previous = n;
      v =
        kind === 'snare'
          ? (0.7 * bright + voicing.snareTone * Math.sin(2 * Math.PI * 190 * t)) * Math.exp(-t * decay)
          : voicing.hatLevel * bright * Math.exp(-t * decay);
    }
    out[start + i]! += gain * v;
  }
}

/**
 * A piece of `seconds` of music from `seed` (the same seed, the same samples). `parts`, when
 * given, forces which parts play; otherwise each of melody, chords, bass and drums is drawn (at
 * least one pitched part).
 */
export function synthesiseMusic(seed: number, seconds: number, parts?: readonly ('melody' | 'chords' | 'bass' | 'drums')[]): MusicPiece {
  const random = seededRandom(seed * 7919 + 13);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const out = new Float32Array(Math.round(RATE * seconds));
  const tempo = 60 + Math.round(random() * 120);
  const beat = Math.round((RATE * 60) / tempo);
  const root = 45 + Math.floor(random() * 16);
  const scale = pick(SCALES);
  const degree = (d: number): number => {
    const octave = Math.floor(d / scale.length);
    return root + 12 * octave + scale[((d % scale.length) + scale.length) % scale.length]!;
  };
  const chosen = parts ?? (['melody', 'chords', 'bass', 'drums'] as const).filter((_, i) => random() < (i === 0 ? 0.85 : i === 3 ? 0.55 : 0.6));
  const playing = chosen.some((p) => p !== 'drums') ? [...chosen] : [...chosen, 'melody' as const];
  const timbres: Timbre[] = [];
  if (playing.includes('melody')) {
    const timbre = pick(TIMBRES);
    timbres.push(timbre);
    let d = 7 + Math.floor(random() * 5);
    for (let at = 0; at < out.length; ) {
      const length = beat * pick([0.5, 0.5, 1, 1, 1, 1.5, 2]);
      d = Math.max(3, Math.min(16, d + pick([-2, -1, -1, 0, 1, 1, 2, 3, -3])));
      if (random() > 0.12) addNote(out, at, Math.round(length * 0.95), hz(degree(d) + 12), 0.22, timbre, random);
      at += Math.round(length);
    }
  }
  if (playing.includes('chords')) {
    const timbre = pick(['sine', 'organ', 'strings', 'piano', 'saw', 'pluck'] as const);
    timbres.push(timbre);
    for (let bar = 0; bar * 4 * beat < out.length; bar++) {
      const base = pick([0, 3, 4, 5, 1]);
      const strum = timbre === 'pluck' || timbre === 'piano' ? 2 : 1;
      for (let s = 0; s < strum; s++) {
        for (const step of [0, 2, 4]) addNote(out, bar * 4 * beat + s * 2 * beat, (4 * beat) / strum, hz(degree(base + step)), 0.09, timbre, random);
      }
    }
  }
  if (playing.includes('bass')) {
    const timbre = pick(['sine', 'saw', 'square', 'pluck'] as const);
    timbres.push(timbre);
    for (let at = 0, n = 0; at < out.length; at += beat, n++) {
      const d = n % 4 === 0 ? 0 : pick([0, 4, 2, 5]);
      addNote(out, at, Math.round(beat * 0.9), hz(degree(d) - 12), 0.18, timbre, random);
    }
  }
  if (playing.includes('drums')) {
    const pattern = pick(['rock', 'four', 'half', 'shuffle'] as const);
    const uniform = (): number => random() * 2 - 1;
    for (let at = 0, n = 0; at < out.length; at += Math.round(beat / 2), n++) {
      const onBeat = n % 2 === 0;
      const beatNo = Math.floor(n / 2) % 4;
      if (pattern === 'four' ? onBeat : onBeat && (beatNo === 0 || (pattern === 'rock' && beatNo === 2))) addDrum(out, at, 'kick', 0.5, uniform);
      if (onBeat && (pattern === 'half' ? beatNo === 2 : beatNo % 2 === 1)) addDrum(out, at, 'snare', 0.3, uniform);
      if (pattern !== 'shuffle' || n % 3 !== 1) addDrum(out, at, 'hat', 0.15, uniform);
    }
  }
  // A random loudness: RMS from -32 to -14 dBFS, less where that would take a peak over 0.99.
  let energy = 0;
  let peak = 0;
  for (const v of out) {
    energy += v * v;
    peak = Math.max(peak, Math.abs(v));
  }
  const rms = Math.sqrt(energy / Math.max(1, out.length));
  const target = 10 ** ((-32 + random() * 18) / 20);
  const gain = rms > 0 ? Math.min(target / rms, 0.99 / peak) : 0;
  for (let i = 0; i < out.length; i++) out[i]! *= gain;
  return { pcm: out, tempo, parts: playing, timbres };
}
