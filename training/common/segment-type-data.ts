/**
 * Data for fitting and measuring the segment types (training/segment-types/segment-types.ts,
 * bench/segment-types.ts, scripts/make-segment-types-fixture.ts), all seeded:
 * - voices: espeak-ng voice variants whose variant file says `gender male` / `gender female`,
 *   reading HornMT sentences in am, om and ti (ti through ESPEAK_DATA_PATH, see the data README),
 *   at a random espeak pitch (-p 35-65) and speed. FIT_VOICES / FIT_TEXTS are for fitting,
 *   HELD_OUT_VOICES / HELD_OUT_TEXTS (other variants, other sentences) for the figures;
 * - music: training/common/music-synth.ts, seeds under 2,000 for fitting, 10001+ for the figures;
 * - real speech: ALFFA speaker groups (no gender labels: only used as speech vs music, and for the
 *   per-group F0 report), FIT_SPEECH_GROUPS for fitting, TEST_GROUPS for the figures.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveMediaTools } from '../../src/engines/training.js';
import { seededRandom } from './seeded-random.js';

const DATA = process.env['SHARED_DATA_DIR'] ?? '/work/shared/data';
const TI_DATA = join(DATA, 'espeak-ng-data-ti');

/**
 * ALFFA speaker groups whose speech the music model is fitted on: every group outside the
 * diarization's TEST_GROUPS (diarization-conversations.ts) with ten or more utterances.
 */
export const FIT_SPEECH_GROUPS = ['020', '021', '031', '041', '051', '097', '098', '099', '100', '110'];

export type Gender = 'male' | 'female';
export interface Voice {
  readonly variant: string;
  readonly gender: Gender;
}

const v = (gender: Gender, names: string): Voice[] => names.split(' ').map((variant) => ({ variant, gender }));
/** Genders as each variant file in espeak-ng-data/voices/!v states them (`gender male` / `gender female`). */
export const FIT_VOICES: readonly Voice[] = [...v('male', 'm1 m2 m3 m4 Andy antonio Denis sandro'), ...v('female', 'f1 f2 f3 Alicia belinda grandma linda')];
export const HELD_OUT_VOICES: readonly Voice[] = [
  ...v('male', 'm5 m6 m7 m8 Hugo Marco miguel victor travis Lee'),
  ...v('female', 'f4 f5 Andrea Annie anika steph aunty'),
];
export const LANGUAGES = ['am', 'om', 'ti'] as const;
export type Language = (typeof LANGUAGES)[number];
const HORNMT: Record<Language, string> = { am: 'amh', om: 'orm', ti: 'tir' };

const textCache = new Map<Language, string[]>();
function sentences(language: Language): string[] {
  let lines = textCache.get(language);
  if (lines === undefined) {
    lines = readFileSync(join(DATA, 'text/hornmt', `${HORNMT[language]}.txt`), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length > 20);
    textCache.set(language, lines);
  }
  return lines;
}
/** Sentence indices for fitting (the first 1,000) and for the figures (the rest). */
export const FIT_TEXTS = { from: 0, to: 1000 } as const;
export const HELD_OUT_TEXTS = { from: 1000, to: 2000 } as const;

/** Any audio file or stream through ffmpeg to 16 kHz mono float samples. */
export function toPcm16k(input: Buffer): Float32Array {
  const run = spawnSync(resolveMediaTools().ffmpeg, ['-v', 'error', '-i', 'pipe:0', '-ar', '16000', '-ac', '1', '-f', 'f32le', 'pipe:1'], {
    input,
    maxBuffer: 1 << 28,
  });
  if (run.status !== 0) throw new Error(`ffmpeg: ${run.stderr.toString()}`);
  const bytes = run.stdout;
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/** espeak-ng reading `text` with `voice` (16 kHz mono float). */
export function speak(language: Language, voice: string, text: string, pitch = 50, speed = 160): Float32Array {
  const env = language === 'ti' ? { ...process.env, ESPEAK_DATA_PATH: TI_DATA } : process.env;
  const run = spawnSync('espeak-ng', ['-v', `${language}+${voice}`, '-p', String(pitch), '-s', String(speed), '--stdout', text], { env, maxBuffer: 1 << 28 });
  if (run.status !== 0 || run.stdout.length < 100) throw new Error(`espeak-ng -v ${language}+${voice}: ${run.stderr.toString()}`);
  return toPcm16k(run.stdout);
}

export interface VoiceClip {
  readonly pcm: Float32Array;
  readonly voice: Voice;
  readonly language: Language;
  readonly text: number;
}

/** `perVoice` clips per voice and language: random sentences from `texts`, random pitch 35-65 and speed 130-190. */
export function voiceClips(voices: readonly Voice[], texts: { from: number; to: number }, perVoice: number, seed: number): VoiceClip[] {
  const random = seededRandom(seed);
  const out: VoiceClip[] = [];
  for (const voice of voices) {
    for (const language of LANGUAGES) {
      const lines = sentences(language);
      for (let i = 0; i < perVoice; i++) {
        const text = texts.from + Math.floor(random() * (Math.min(texts.to, lines.length) - texts.from));
        const pitch = 35 + Math.floor(random() * 31);
        const speed = 130 + Math.floor(random() * 61);
        out.push({ pcm: speak(language, voice.variant, lines[text]!.slice(0, 220), pitch, speed), voice, language, text });
      }
    }
  }
  return out;
}

/** a + b scaled so that b's RMS is `db` relative to a's (b repeated or cut to a's length). */
export function mixUnder(a: Float32Array, b: Float32Array, db: number): Float32Array {
  const rms = (x: Float32Array): number => Math.sqrt(x.reduce((s, y) => s + y * y, 0) / Math.max(1, x.length));
  const gain = b.length === 0 || rms(b) === 0 ? 0 : (rms(a) * 10 ** (db / 20)) / rms(b);
  const out = Float32Array.from(a);
  for (let i = 0; i < out.length; i++) out[i]! += gain * b[i % b.length]!;
  return out;
}

/** Pieces joined end to end with `gapSeconds` of faint noise before, between and after. */
export function joinWithPauses(pieces: readonly Float32Array[], gapSeconds: number, seed: number): { pcm: Float32Array; starts: number[] } {
  const random = seededRandom(seed);
  const gap = Math.round(16_000 * gapSeconds);
  const total = pieces.reduce((s, p) => s + p.length + gap, gap);
  const pcm = new Float32Array(total);
  for (let i = 0; i < total; i++) pcm[i] = 2e-4 * (random() * 2 - 1);
  const starts: number[] = [];
  let at = gap;
  for (const piece of pieces) {
    starts.push(at);
    for (let i = 0; i < piece.length; i++) pcm[at + i]! += piece[i]!;
    at += piece.length + gap;
  }
  return { pcm, starts };
}
