// Synthetic non-speech audio for the "no text from non-speech" tests and measurements (issue 28):
// pink noise, telephone tones (a 425 Hz dial tone, ringback, busy, DTMF) and a simple chord
// melody. 16 kHz mono float samples, deterministic (seeded), at a stated level.
//
// Rules: every kind is built from first principles here (no recordings); levels are RMS in dBFS
// over the sounding parts; each kind's pattern follows its usual definition (ITU-T E.180 for the
// 425 Hz tones: ringback 1 s on / 4 s off, busy 0.5 s on / 0.5 s off; DTMF 100 ms digits with
// 100 ms gaps, both tones at equal level).

const RATE = 16_000;

export type NonSpeechKind = 'pink_noise' | 'dial_tone' | 'ringback' | 'busy' | 'dtmf' | 'chord_melody';
export const NON_SPEECH_KINDS: readonly NonSpeechKind[] = ['pink_noise', 'dial_tone', 'ringback', 'busy', 'dtmf', 'chord_melody'];

/** A seeded uniform generator in [0, 1) (LCG: deterministic across runs and platforms). */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** Scales `samples` so that its RMS over the non-zero samples is `dbfs` (a full-scale sine reads -3 dBFS). */
function atLevel(samples: Float32Array, dbfs: number): Float32Array {
  let sum = 0;
  let sounding = 0;
  for (const s of samples) {
    if (s === 0) continue;
    sum += s * s;
    sounding++;
  }
  if (sounding === 0) return samples;
  const gain = 10 ** (dbfs / 20) / Math.sqrt(sum / sounding);
  for (let i = 0; i < samples.length; i++) samples[i] = samples[i]! * gain;
  return samples;
}

/**
 * `n` samples of pink noise: Paul Kellet's refined filter (7 one-pole sections, -3 dB per octave)
 * over the white samples `white()` returns. Exported: bench/robustness-noises.ts feeds it Gaussian
 * white noise.
 */
export function kelletPink(n: number, white: () => number): Float32Array {
  const out = new Float32Array(n);
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  let b3 = 0;
  let b4 = 0;
  let b5 = 0;
  let b6 = 0;
  for (let i = 0; i < n; i++) {
    const w = white();
    b0 = 0.99886 * b0 + w * 0.0555179;
    b1 = 0.99332 * b1 + w * 0.0750759;
    b2 = 0.969 * b2 + w * 0.153852;
    b3 = 0.8665 * b3 + w * 0.3104856;
    b4 = 0.55 * b4 + w * 0.5329522;
    b5 = -0.7616 * b5 - w * 0.016898;
    out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362;
    b6 = w * 0.115926;
  }
  return out;
}

/** Pink noise over uniform white noise in [-1, 1). */
function pinkNoise(n: number, seed: number): Float32Array {
  const next = random(seed);
  return kelletPink(n, () => next() * 2 - 1);
}

/** Sum of sines at `frequencies` (equal amplitude) where `on(t)` holds, with 5 ms ramps at each edge. */
function tones(n: number, frequencies: readonly number[], on: (seconds: number) => boolean): Float32Array {
  const out = new Float32Array(n);
  const ramp = 0.005 * RATE;
  let run = 0;
  for (let i = 0; i < n; i++) {
    if (!on(i / RATE)) {
      run = 0;
      continue;
    }
    run++;
    let v = 0;
    for (const f of frequencies) v += Math.sin((2 * Math.PI * f * i) / RATE);
    out[i] = v * Math.min(1, run / ramp);
  }
  return out;
}

/** DTMF: random digits, 100 ms each, 100 ms apart, a 1 s pause after every 8. */
function dtmf(n: number, seed: number): Float32Array {
  const rows = [697, 770, 852, 941];
  const cols = [1209, 1336, 1477];
  const next = random(seed);
  const out = new Float32Array(n);
  const digit = 0.1 * RATE;
  let at = Math.round(0.2 * RATE);
  let count = 0;
  while (at + digit <= n) {
    const low = rows[Math.floor(next() * rows.length)]!;
    const high = cols[Math.floor(next() * cols.length)]!;
    const burst = tones(digit, [low, high], () => true);
    out.set(burst, at);
    count++;
    at += 2 * digit + (count % 8 === 0 ? RATE : 0);
  }
  return out;
}

/** A chord melody: triads of three harmonics each, 400 ms per chord with an attack-decay envelope. */
function chordMelody(n: number, seed: number): Float32Array {
  const next = random(seed);
  // Semitone offsets of major and minor triads over a few roots around A3 (220 Hz).
  const chords = [
    [0, 4, 7],
    [5, 9, 12],
    [7, 11, 14],
    [-3, 0, 4],
    [2, 5, 9],
  ];
  const out = new Float32Array(n);
  const length = Math.round(0.4 * RATE);
  for (let start = 0; start < n; start += length) {
    const chord = chords[Math.floor(next() * chords.length)]!;
    const octave = next() < 0.5 ? 1 : 2;
    for (let i = 0; i < length && start + i < n; i++) {
      const t = i / RATE;
      const envelope = Math.min(1, t / 0.01) * Math.exp(-t / 0.25);
      let v = 0;
      for (const semitone of chord) {
        const f = 220 * octave * 2 ** (semitone / 12);
        for (let h = 1; h <= 3; h++) v += Math.sin(2 * Math.PI * f * h * t) / h;
      }
      out[start + i] = v * envelope;
    }
  }
  return out;
}

/**
 * `seconds` of one non-speech kind at `dbfs` RMS (over its sounding parts): tones default to
 * -20 dBFS (a loud line), noise to -45 dBFS (a hiss loud enough for the energy VAD).
 */
export function nonSpeech(kind: NonSpeechKind, seconds: number, options: { dbfs?: number; seed?: number } = {}): Float32Array {
  const n = Math.round(seconds * RATE);
  const seed = options.seed ?? 1;
  switch (kind) {
    case 'pink_noise':
      return atLevel(pinkNoise(n, seed), options.dbfs ?? -45);
    case 'dial_tone':
      return atLevel(
        tones(n, [425], () => true),
        options.dbfs ?? -20,
      );
    case 'ringback':
      return atLevel(
        tones(n, [425], (t) => t % 5 < 1),
        options.dbfs ?? -20,
      );
    case 'busy':
      return atLevel(
        tones(n, [425], (t) => t % 1 < 0.5),
        options.dbfs ?? -20,
      );
    case 'dtmf':
      return atLevel(dtmf(n, seed), options.dbfs ?? -20);
    case 'chord_melody':
      return atLevel(chordMelody(n, seed), options.dbfs ?? -20);
  }
}
