/**
 * What the robustness corpus holds (issue 28): the list of generated non-speech clips (kind,
 * length, level, seed) and how each is rendered, the speech conditions, and the manifest's shape.
 * bench/robustness-corpus.ts writes the files; bench/robustness.ts reads the manifest. Pure.
 *
 * Non-speech, generated (about 20.3 min; room tone from recordings comes on top):
 * - white, pink, brown noise at -70, -60, -50, -40, -30 and -20 dBFS RMS (10, 15 or 20 s each);
 * - mains hum at 50 and 60 Hz with harmonics, -60, -45, -30 dBFS RMS;
 * - call-progress tones (North American, ETSI, UK ringback), -30 and -20 dBFS RMS while on, and
 *   DTMF numbers at -25 to -15 dBFS;
 * - music: chords, arpeggio, drums, melody, and full arrangements, -35, -25, -18 dBFS RMS;
 * - clicks, pops and keyboard typing with peaks at -30, -15 and -3 dBFS;
 * - digital silence.
 * Tones and impulse trains sit on a line-noise floor of white noise at -72 dBFS (a phone line or a
 * desk microphone is never digitally silent between its events).
 * Speech conditions: clean; each of SPEECH_NOISES at 20, 10 and 5 dB SNR; 30 dB quieter; clipped
 * 12 dB over full scale (DC offset removed first; about 8% of the held-out samples clip); a G.711
 * call (mu-law and A-law, 8 kHz, 300-3,400 Hz).
 */
import { seededRandom } from '../training/common/seeded-random.js';
import { atLevel, atPeak, brownNoise, clicks, keyboard, mainsHum, pinkNoise, pops, RATE, type Random, whiteNoise, addInto } from './robustness-noises.js';
import { MUSIC_KINDS, type MusicKind, synthesiseMusicKind } from './robustness-music.js';
import { CALL_PROGRESS_TONES, type CallProgressTone, callProgressTone, dtmfSequence } from './robustness-tones.js';
import type { G711Law } from './telephone-channel.js';

export type Family = 'noise' | 'hum' | 'tone' | 'music' | 'impulse' | 'silence' | 'room-tone';
/** How a clip's level is stated: RMS of the clip, RMS while a tone sounds, the peak, or measured (room tone). */
export type LevelMeasure = 'rms' | 'rms-on' | 'peak' | 'measured-rms';

export interface NonSpeechSpec {
  readonly kind: string;
  readonly family: Family;
  readonly index: number;
  readonly seconds: number;
  /** dBFS by `measure`; null: digital silence. */
  readonly level: number | null;
  readonly measure: LevelMeasure | null;
  readonly seed: number;
  /** White line noise added under the clip, dBFS RMS; null: none. */
  readonly floorDbfs: number | null;
}

export const LINE_FLOOR_DBFS = -72;
export const NOISE_LEVELS = [-70, -60, -50, -40, -30, -20] as const;

/** A clip's seed from the corpus seed, its kind and its number (FNV-1a). */
export function clipSeed(seed: number, kind: string, index: number): number {
  let h = 0x811c9dc5;
  for (const ch of `${seed}:${kind}:${index}`) h = Math.imul(h ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
  return h;
}

/** The generated non-speech clips of a corpus with `seed`. */
export function nonSpeechPlan(seed: number): NonSpeechSpec[] {
  const specs: NonSpeechSpec[] = [];
  const add = (kind: string, family: Family, seconds: number, level: number | null, measure: LevelMeasure | null, floorDbfs: number | null): void => {
    const index = specs.filter((s) => s.kind === kind).length;
    specs.push({ kind, family, index, seconds, level, measure, seed: clipSeed(seed, kind, index), floorDbfs });
  };
  for (const kind of ['white', 'pink', 'brown']) NOISE_LEVELS.forEach((level, i) => add(kind, 'noise', [10, 15, 20][i % 3]!, level, 'rms', null));
  for (const kind of ['hum-50', 'hum-60']) [-60, -45, -30].forEach((level, i) => add(kind, 'hum', [10, 15, 20][i]!, level, 'rms', null));
  for (const tone of Object.keys(CALL_PROGRESS_TONES) as CallProgressTone[]) {
    const ringback = tone.startsWith('ringback');
    [-30, -20].forEach((level, i) => add(tone, 'tone', ringback ? [20, 30][i]! : [10, 15][i]!, level, 'rms-on', LINE_FLOOR_DBFS));
  }
  [-25, -20, -15, -20].forEach((level, i) => add('dtmf', 'tone', [10, 15, 20, 25][i]!, level, 'rms-on', LINE_FLOOR_DBFS));
  for (const kind of MUSIC_KINDS) [-35, -25, -18].forEach((level, i) => add(`music-${kind}`, 'music', [15, 20, 30][i]!, level, 'rms', null));
  for (const kind of ['clicks', 'pops', 'keyboard'])
    [-30, -15, -3].forEach((level, i) => add(kind, 'impulse', [10, 20, 30][i]!, level, 'peak', LINE_FLOOR_DBFS));
  add('silence', 'silence', 10, null, null, null);
  return specs;
}

/** The samples of one planned clip (16 kHz). */
export function renderNonSpeech(spec: NonSpeechSpec): Float32Array {
  const random: Random = seededRandom(spec.seed);
  const { seconds } = spec;
  let samples: Float32Array;
  if (spec.family === 'silence') return new Float32Array(Math.round(seconds * RATE));
  if (spec.kind === 'white') samples = whiteNoise(seconds, random);
  else if (spec.kind === 'pink') samples = pinkNoise(seconds, random);
  else if (spec.kind === 'brown') samples = brownNoise(seconds, random);
  else if (spec.kind === 'hum-50' || spec.kind === 'hum-60') samples = mainsHum(seconds, spec.kind === 'hum-50' ? 50 : 60, random);
  else if (spec.kind === 'dtmf') samples = dtmfSequence(seconds, spec.level!, random).samples;
  else if (spec.kind in CALL_PROGRESS_TONES) samples = callProgressTone(spec.kind as CallProgressTone, seconds, spec.level!, random);
  else if (spec.kind.startsWith('music-')) samples = synthesiseMusicKind(spec.kind.slice('music-'.length) as MusicKind, seconds, random, spec.seed);
  else if (spec.kind === 'clicks') samples = clicks(seconds, random);
  else if (spec.kind === 'pops') samples = pops(seconds, random);
  else if (spec.kind === 'keyboard') samples = keyboard(seconds, random);
  else throw new Error(`no generator for ${spec.kind}`);
  if (spec.measure === 'rms') atLevel(samples, spec.level!);
  else if (spec.measure === 'peak') atPeak(samples, spec.level!);
  if (spec.floorDbfs !== null) addInto(samples, atLevel(whiteNoise(seconds, seededRandom(spec.seed ^ 0x5bd1e995)), spec.floorDbfs));
  return samples;
}

/** The noises speech is mixed with, and the SNRs. */
export const SPEECH_NOISES = ['pink', 'white', 'brown', 'hum-50', 'music-mix', 'keyboard'] as const;
export type SpeechNoise = (typeof SPEECH_NOISES)[number];
export const SPEECH_SNRS = [20, 10, 5] as const;
export const QUIETER_DB = 30;
export const CLIP_OVER_DB = 12;

export type SpeechCondition =
  | { readonly name: 'clean' }
  | { readonly name: string; readonly noise: SpeechNoise; readonly snrDb: number }
  | { readonly name: string; readonly quieterDb: number }
  | { readonly name: string; readonly clipOverDb: number }
  | { readonly name: string; readonly law: G711Law };

export const SPEECH_CONDITIONS: readonly SpeechCondition[] = [
  { name: 'clean' },
  ...SPEECH_NOISES.flatMap((noise) => SPEECH_SNRS.map((snrDb) => ({ name: `${noise}-snr${snrDb}`, noise, snrDb }))),
  { name: `quieter-${QUIETER_DB}db`, quieterDb: QUIETER_DB },
  { name: `clipped-${CLIP_OVER_DB}db`, clipOverDb: CLIP_OVER_DB },
  { name: 'telephone-mulaw', law: 'mulaw' },
  { name: 'telephone-alaw', law: 'alaw' },
];

/** A noise of `kind` (one of SPEECH_NOISES), `samples` long, for mixing under speech; levelled by the mix. */
export function speechNoise(kind: SpeechNoise, samples: number, seed: number): Float32Array {
  const seconds = samples / RATE + 0.01;
  const random = seededRandom(seed);
  switch (kind) {
    case 'pink':
      return pinkNoise(seconds, random);
    case 'white':
      return whiteNoise(seconds, random);
    case 'brown':
      return brownNoise(seconds, random);
    case 'hum-50':
      return mainsHum(seconds, 50, random);
    case 'music-mix':
      return synthesiseMusicKind('mix', seconds, random, seed);
    case 'keyboard':
      return keyboard(seconds, random);
  }
}

export interface NonSpeechEntry {
  /** Relative to the corpus folder. */
  readonly file: string;
  readonly kind: string;
  readonly family: Family;
  readonly seconds: number;
  readonly level: { readonly dbfs: number | null; readonly measure: LevelMeasure | null };
  readonly seed: number | null;
  readonly floorDbfs: number | null;
  /** Room tone: the recordings it was cut from. */
  readonly sources?: readonly string[];
}

export interface SpeechEntry {
  readonly file: string;
  readonly utterance: string;
  /** ALFFA speaker group (the 3 digits after `_tr`). */
  readonly group: string;
  readonly reference: string;
  readonly condition: string;
  readonly noise?: SpeechNoise;
  readonly snrDb?: number;
  readonly quieterDb?: number;
  readonly clipOverDb?: number;
  readonly clippedFraction?: number;
  readonly law?: G711Law;
  readonly sampleRate: number;
  readonly seconds: number;
}

export interface RobustnessManifest {
  readonly corpus: 'robustness';
  readonly version: 1;
  readonly seed: number;
  readonly description: string;
  readonly nonSpeech: readonly NonSpeechEntry[];
  readonly speech: readonly SpeechEntry[];
  readonly totals: {
    readonly nonSpeechSeconds: number;
    readonly nonSpeechKinds: number;
    readonly speechUtterances: number;
    readonly speechFiles: number;
  };
}
