/**
 * SIMULATED conversations that look more like real use than the joined-utterance set
 * (diarization-conversations.ts): every speaker of a conversation passes through the SAME channel
 * (one synthetic room impulse response, one room-tone noise floor, one level normalisation of
 * the whole file, and in some conversations one telephone band with mu-law companding), turns
 * have natural lengths (cut from the speakers' utterances at quiet frames; many under 2 s),
 * backchannels (0.25-0.6 s clips of another speaker inside a turn) and overlapped starts give
 * 5-20% overlapped speech, pauses carry the room tone, 2-6 speakers. The reference turns are the
 * placed pieces' own speech (10 ms frames within 35 dB of the clip's loudest, pauses under
 * 0.25 s bridged), so a pause inside a piece is not reference speech. Seeded: a rerun gives the
 * same audio. Nothing here is a real multi-speaker recording (none with reference turns exists
 * for us); what the simulation leaves out is listed in docs/diarization.md (*Realistic set*).
 *
 * Speakers (HELD OUT from the speaker model's training; the split is written here and in
 * models/diarization/README.md):
 * - ALFFA Amharic groups: development DEV_GROUPS (021, 031, 041, 051), test TEST_GROUPS (061,
 *   091, 120, 131, 231, 301, 531); every other group may train.
 * - speechocean762-spk: the upstream `test` speakers are held out (by sorted id, even positions
 *   development, odd test); the upstream `train` speakers may train.
 * - librispeech-spk: the 10 test-other readers are held out (sorted, first five development, last
 *   five test); the 251 train-clean-100 readers may train.
 * A conversation draws its speakers from one language: ALFFA (Amharic) or the English pool
 * (speechocean762 + LibriSpeech test-other), alternately.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LabelledTurn } from '../../src/engines/training.js';
import { decodeFile } from './decoded-file.js';
import { type Conversation, DEV_GROUPS, groupClips, loadGroupClips, TEST_GROUPS } from './diarization-conversations.js';
import { seededRandom } from './seeded-random.js';
import { activeFrames, convolveSparse, muLaw, roomResponse, speechRms, telephoneBand, withoutRumble } from './simulated-channel.js';

const DATA = process.env['SHARED_DATA_DIR'] ?? '/work/shared/data';
const RATE = 16_000;

export type HeldOutSide = 'dev' | 'test';

/** A simulated conversation with what its channel was (for the bench's report). */
export interface RealisticConversation extends Conversation {
  readonly channel: { readonly rt60S: number; readonly snrDb: number; readonly telephone: boolean; readonly language: 'am' | 'en' };
  /** Share of the reference speech time where two or more speak. */
  readonly overlapShare: number;
}

/** One voice: its utterances (16 kHz, trimmed to speech), decoded when first used. */
interface Voice {
  readonly id: string;
  clips(): Promise<Float32Array[]>;
}

const lines = (path: string): string[][] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s+/));

/** Speaker ids of the speaker-embedding data by side: `train` may train, `dev` / `test` are held out. */
export function extraSpeakerSplit(): { speechocean: Record<'train' | HeldOutSide, string[]>; librispeech: Record<'train' | HeldOutSide, string[]> } {
  const soSplit = new Map(lines(join(DATA, 'speechocean762-spk/utt2split')).map(([u, s]) => [u!, s!]));
  const soSpk = lines(join(DATA, 'speechocean762-spk/utt2spk'));
  const soTrain = [...new Set(soSpk.filter(([u]) => soSplit.get(u!) === 'train').map(([, s]) => s!))].sort();
  const soHeld = [...new Set(soSpk.filter(([u]) => soSplit.get(u!) === 'test').map(([, s]) => s!))].sort();
  const lsSubset = new Map(lines(join(DATA, 'librispeech-spk/utt2subset')).map(([u, s]) => [u!, s!]));
  const lsSpk = lines(join(DATA, 'librispeech-spk/utt2spk'));
  const lsTrain = [...new Set(lsSpk.filter(([u]) => lsSubset.get(u!) === 'train-clean-100').map(([, s]) => s!))].sort();
  const lsHeld = [...new Set(lsSpk.filter(([u]) => lsSubset.get(u!) === 'test-other').map(([, s]) => s!))].sort((a, b) => Number(a) - Number(b));
  return {
    speechocean: { train: soTrain, dev: soHeld.filter((_, i) => i % 2 === 0), test: soHeld.filter((_, i) => i % 2 === 1) },
    librispeech: { train: lsTrain, dev: lsHeld.slice(0, 5), test: lsHeld.slice(5) },
  };
}

/** The audio files of one extra-corpus speaker (`speechocean` or `librispeech`), sorted. */
export function extraSpeakerFiles(corpus: 'speechocean' | 'librispeech', speaker: string): string[] {
  if (corpus === 'speechocean') {
    const utts = new Set(
      lines(join(DATA, 'speechocean762-spk/utt2spk'))
        .filter(([, s]) => s === speaker)
        .map(([u]) => u!),
    );
    return lines(join(DATA, 'speechocean762-spk/wav.scp'))
      .filter(([u]) => utts.has(u!))
      .map(([, p]) => join(DATA, 'speechocean762-spk', p!))
      .sort();
  }
  return lines(join(DATA, 'librispeech-spk/utt2spk'))
    .filter(([, s]) => s === speaker)
    .map(([u]) => join(DATA, 'librispeech-spk/audio', speaker, `${u}.flac`))
    .sort();
}

/** The clip between its first and last 10 ms frame within 35 dB of its loudest. */
function trimClip(pcm: Float32Array): Float32Array {
  const active = activeFrames(pcm);
  const first = active.indexOf(1);
  const last = active.lastIndexOf(1);
  return first < 0 ? pcm : pcm.slice(first * 160, (last + 1) * 160);
}

const clipCache = new Map<string, Float32Array[]>();

function extraVoice(corpus: 'speechocean' | 'librispeech', speaker: string): Voice {
  const id = `${corpus === 'speechocean' ? 'so' : 'ls'}${speaker}`;
  return {
    id,
    clips: async () => {
      const cached = clipCache.get(id);
      if (cached) return cached;
      const clips: Float32Array[] = [];
      for (const f of extraSpeakerFiles(corpus, speaker)) clips.push(trimClip(await decodeFile(f)));
      clipCache.set(id, clips);
      return clips;
    },
  };
}

/** The utterances of an extra-corpus speaker, trimmed (decoded once per process). */
export async function extraSpeakerClips(corpus: 'speechocean' | 'librispeech', speaker: string): Promise<Float32Array[]> {
  return extraVoice(corpus, speaker).clips();
}

/**
 * The ALFFA groups the speaker models train on (in neither DEV_GROUPS nor TEST_GROUPS): `train`
 * conversations, for models that learn from realistic conversations (the overlap detector), use
 * them and the extra speakers' `train` side.
 */
export const REALISTIC_TRAIN_GROUPS = ['010', '011', '020', '097', '098', '099', '100', '110', '111'];

/** The voices of one side (the held-out `dev` and `test` speakers, or the `train` speakers), by language. */
export async function heldOutVoices(side: HeldOutSide | 'train'): Promise<{ am: Voice[]; en: Voice[] }> {
  const groups = side === 'dev' ? DEV_GROUPS : side === 'test' ? TEST_GROUPS : REALISTIC_TRAIN_GROUPS;
  const am = groups.map((g) => ({
    id: `am${g}`,
    clips: async () => {
      await loadGroupClips([g], 20);
      return groupClips(g, 20);
    },
  }));
  const split = extraSpeakerSplit();
  const en = [...split.speechocean[side].map((s) => extraVoice('speechocean', s)), ...split.librispeech[side].map((s) => extraVoice('librispeech', s))];
  return { am, en };
}

/** Standard normal (Box-Muller). */
function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A piece of `clip` from `from` of about `lengthS`, ending at the quietest 10 ms frame within ±0.2 s of the target, 10 ms fades. */
function cutPiece(clip: Float32Array, from: number, lengthS: number): Float32Array {
  let end = Math.min(clip.length, from + Math.round(lengthS * RATE));
  if (end < clip.length) {
    let best = end;
    let quietest = Number.POSITIVE_INFINITY;
    for (let c = Math.max(from + 4000, end - 3200); c <= Math.min(clip.length - 160, end + 3200); c += 160) {
      let e = 0;
      for (let j = c; j < c + 160; j++) e += clip[j]! * clip[j]!;
      if (e < quietest) {
        quietest = e;
        best = c + 80;
      }
    }
    end = best;
  }
  const piece = clip.slice(from, end);
  const fade = Math.min(160, Math.floor(piece.length / 4));
  for (let i = 0; i < fade; i++) {
    piece[i]! *= i / fade;
    piece[piece.length - 1 - i]! *= i / fade;
  }
  return piece;
}

/** How a realistic conversation is drawn. */
export interface RealisticStyle {
  /** Conversation length in seconds (drawn between). */
  readonly minSeconds: number;
  readonly maxSeconds: number;
  /** Median turn length (log-normal, sigma 0.8, 0.4-10 s). */
  readonly medianTurnS: number;
  /** Per conversation, the share of turns that start before the previous ends is drawn between these. */
  readonly overlapStart: readonly [number, number];
  /** Chance per second of a turn that another speaker backchannels in it. */
  readonly backchannelPerS: number;
  /** Share of conversations through a telephone band and mu-law. */
  readonly telephoneShare: number;
}

export const REALISTIC_STYLE: RealisticStyle = {
  minSeconds: 35,
  maxSeconds: 75,
  medianTurnS: 1.8,
  overlapStart: [0.2, 0.45],
  backchannelPerS: 0.12,
  telephoneShare: 0.3,
};

/** One simulated conversation of `speakers` voices (2-6) through one channel. */
export async function buildRealisticConversation(
  name: string,
  pool: readonly Voice[],
  speakers: number,
  seed: number,
  language: 'am' | 'en',
  style: RealisticStyle = REALISTIC_STYLE,
): Promise<RealisticConversation> {
  const random = seededRandom(seed);
  const picked = [...pool].sort(() => random() - 0.5).slice(0, speakers);
  if (picked.length < speakers) throw new Error(`only ${pool.length} voices for ${speakers} speakers`);
  const chosen: { id: string; clips: Float32Array[] }[] = [];
  // Some source recordings carry a DC offset or rumble, which would set the level instead of the
  // voice: every clip through a 60 Hz high-pass first (as a recording chain's own filter).
  for (const v of picked) chosen.push({ id: v.id, clips: (await v.clips()).map(withoutRumble) });
  // Who talks how much: weights 0.4-1.6; each voice's level ±3 dB after normalising its speech RMS.
  const weight = chosen.map(() => 0.4 + 1.2 * random());
  const level = chosen.map(() => 10 ** ((6 * random() - 3) / 20));
  const cursorOf = chosen.map(() => ({ clip: 0, at: 0 }));
  const rms = chosen.map((v) => v.clips.map(speechRms));
  chosen.forEach((v, s) => {
    cursorOf[s]!.clip = Math.floor(random() * v.clips.length);
  });
  const targetS = style.minSeconds + (style.maxSeconds - style.minSeconds) * random();
  const overlapP = style.overlapStart[0] + (style.overlapStart[1] - style.overlapStart[0]) * random();
  const placed: { at: number; piece: Float32Array; speaker: number }[] = [];
  const nextPiece = (s: number, lengthS: number): Float32Array => {
    const v = chosen[s]!;
    const c = cursorOf[s]!;
    let clip = v.clips[c.clip]!;
    if (clip.length - c.at < 0.5 * RATE) {
      c.clip = (c.clip + 1) % v.clips.length;
      clip = v.clips[c.clip]!;
      // A clip used again starts elsewhere (its earlier pieces heard again, cut differently).
      c.at = Math.floor(random() * Math.max(1, clip.length / 3));
    }
    const piece = cutPiece(clip, c.at, lengthS);
    c.at += piece.length;
    const g = (0.1 * level[s]!) / rms[s]![c.clip]!;
    return piece.map((x) => x * g);
  };
  const backchannel = (s: number): Float32Array => {
    const v = chosen[s]!;
    const clip = v.clips[Math.floor(random() * v.clips.length)]!;
    const active = activeFrames(clip);
    const loud: number[] = [];
    active.forEach((a, f) => {
      if (a) loud.push(f);
    });
    const f = loud[Math.floor(random() * loud.length)] ?? 0;
    const length = Math.round((0.25 + 0.35 * random()) * RATE);
    const from = Math.max(0, Math.min(clip.length - length, f * 160 - length / 3));
    const piece = clip.slice(from, from + length);
    const fade = 320;
    for (let i = 0; i < Math.min(fade, piece.length / 2); i++) {
      piece[i]! *= i / fade;
      piece[piece.length - 1 - i]! *= i / fade;
    }
    // Scaled as the voice's first clip is (its recordings share one session's level, near enough).
    const g = (0.1 * level[s]!) / rms[s]![0]!;
    return piece.map((x) => x * g);
  };
  let cursor = Math.round(RATE * (0.3 + 0.7 * random()));
  let previous = -1;
  let turn = 0;
  while (cursor < targetS * RATE) {
    let s: number;
    if (turn < speakers)
      s = turn; // everyone speaks early on
    else {
      const total = weight.reduce((sum, w, i) => sum + (i === previous ? 0 : w), 0);
      let r = random() * total;
      s = 0;
      for (let i = 0; i < speakers; i++) {
        if (i === previous) continue;
        r -= weight[i]!;
        s = i;
        if (r <= 0) break;
      }
    }
    const lengthS = Math.min(10, Math.max(0.4, style.medianTurnS * Math.exp(0.8 * gaussian(random))));
    const piece = nextPiece(s, lengthS);
    let at: number;
    if (turn > 0 && random() < overlapP) at = cursor - Math.round(RATE * Math.min(0.2 + 1.0 * random(), piece.length / RATE / 2));
    else if (random() < 0.05)
      at = cursor + Math.round(RATE * (2 + 3 * random())); // a long pause: room tone only
    else at = cursor + Math.round(RATE * Math.min(2.5, Math.max(0.05, 0.3 * Math.exp(0.7 * gaussian(random)))));
    at = Math.max(0, at);
    placed.push({ at, piece, speaker: s });
    // Backchannels of another speaker inside this turn (the turn goes on under them).
    if (speakers > 1 && piece.length > 1.5 * RATE && random() < (style.backchannelPerS * piece.length) / RATE) {
      let other = Math.floor(random() * (speakers - 1));
      if (other >= s) other++;
      const b = backchannel(other);
      const bAt = at + Math.round((0.3 + 0.4 * random()) * piece.length);
      placed.push({ at: bAt, piece: b, speaker: other });
    }
    cursor = Math.max(cursor, at + piece.length);
    previous = s;
    turn++;
  }
  const total = cursor + Math.round(RATE * (0.5 + random()));
  const dry = new Float32Array(total);
  for (const p of placed) for (let j = 0; j < p.piece.length && p.at + j < total; j++) dry[p.at + j]! += p.piece[j]!;
  // The one channel: room, room tone, optional telephone band and codec, one level normalisation.
  const rt60S = 0.2 + 0.5 * random();
  const wet = convolveSparse(dry, roomResponse(rt60S, random));
  const snrDb = 12 + 18 * random();
  const telephone = random() < style.telephoneShare;
  let speechPower = 0;
  let speechSamples = 0;
  const reference: LabelledTurn[] = [];
  for (const p of placed) {
    const active = activeFrames(p.piece);
    // Pauses under 0.25 s inside a piece are bridged; each run of speech is a reference turn.
    let f = 0;
    while (f < active.length) {
      if (active[f] === 0) {
        f++;
        continue;
      }
      let end = f;
      let gap = 0;
      for (let g = f; g < active.length; g++) {
        if (active[g]) {
          end = g + 1;
          gap = 0;
        } else if (++gap >= 25) break;
      }
      const startMs = Math.round((p.at + f * 160) / 16);
      const endMs = Math.round((p.at + end * 160) / 16);
      reference.push({ startMs, endMs: Math.min(endMs, Math.round(total / 16)), speaker: chosen[p.speaker]!.id });
      for (let j = p.at + f * 160; j < Math.min(total, p.at + end * 160); j++) {
        speechPower += wet[j]! * wet[j]!;
        speechSamples++;
      }
      f = end;
    }
  }
  const speechLevel = Math.sqrt(speechPower / Math.max(1, speechSamples));
  // Room tone: pink-ish noise (white through a one-pole low-pass plus a little white), constant over the file.
  const noise = new Float32Array(total);
  let lp = 0;
  for (let i = 0; i < total; i++) {
    const w = 2 * random() - 1;
    lp = 0.97 * lp + 0.03 * w;
    noise[i] = 6 * lp + 0.3 * w;
  }
  let noisePower = 0;
  for (let i = 0; i < total; i++) noisePower += noise[i]! * noise[i]!;
  const noiseGain = (speechLevel * 10 ** (-snrDb / 20)) / Math.sqrt(noisePower / total);
  for (let i = 0; i < total; i++) wet[i]! += noiseGain * noise[i]!;
  if (telephone) telephoneBand(wet);
  // One level normalisation: the speech at about -23 dBFS RMS, peaks held under 0.99.
  let peak = 0;
  for (let i = 0; i < total; i++) peak = Math.max(peak, Math.abs(wet[i]!));
  const gain = Math.min(10 ** (-23 / 20) / speechLevel, 0.99 / Math.max(peak, 1e-9));
  for (let i = 0; i < total; i++) wet[i]! *= gain;
  if (telephone) muLaw(wet);
  return {
    name,
    pcm: wet,
    reference,
    speakers,
    channel: { rt60S, snrDb, telephone, language },
    overlapShare: overlapShareOf(reference, total),
  };
}

/** Of the reference speech time (10 ms grid), the share with two or more speakers. */
export function overlapShareOf(reference: readonly LabelledTurn[], samples: number): number {
  const frames = Math.ceil(samples / 160);
  const count = new Uint8Array(frames);
  const bySpeaker = new Map<string, Uint8Array>();
  for (const t of reference) {
    const mask = bySpeaker.get(t.speaker) ?? new Uint8Array(frames);
    mask.fill(1, Math.round(t.startMs / 10), Math.min(frames, Math.round(t.endMs / 10)));
    bySpeaker.set(t.speaker, mask);
  }
  for (const mask of bySpeaker.values()) for (let i = 0; i < frames; i++) count[i]! += mask[i]!;
  let speech = 0;
  let overlap = 0;
  for (const c of count) {
    if (c > 0) speech++;
    if (c > 1) overlap++;
  }
  return speech === 0 ? 0 : overlap / speech;
}

/**
 * The realistic set of one side: `perCount` conversations for each speaker count in `counts`
 * (2-6), alternately Amharic (ALFFA groups) and English (speechocean762 + LibriSpeech); an
 * Amharic conversation needs that many groups (the development side has 4), else it is English.
 */
export async function realisticSet(side: HeldOutSide | 'train', counts: readonly number[], perCount: number, seed: number): Promise<RealisticConversation[]> {
  const voices = await heldOutVoices(side);
  const out: RealisticConversation[] = [];
  for (const speakers of counts) {
    for (let i = 0; i < perCount; i++) {
      const s = seed + speakers * 100 + i;
      const language = i % 2 === 0 && voices.am.length >= speakers ? 'am' : 'en';
      const name = `real-${side}-${speakers}spk-${i}-${language}`;
      out.push(await cached(name, s, () => buildRealisticConversation(name, language === 'am' ? voices.am : voices.en, speakers, s, language)));
    }
  }
  return out;
}

/** Bump when the simulation changes: the cache (REALISTIC_CACHE_DIR, default under the temp folder) is keyed by it. */
const SIMULATION_VERSION = 2;

/** A built conversation from the cache (its audio and JSON), else built and stored: building decodes many files. */
async function cached(name: string, seed: number, build: () => Promise<RealisticConversation>): Promise<RealisticConversation> {
  const dir = process.env['REALISTIC_CACHE_DIR'] ?? join(tmpdir(), `realistic-conversations-v${SIMULATION_VERSION}`);
  const base = join(dir, `${name}-${seed}`);
  if (existsSync(`${base}.json`) && existsSync(`${base}.f32`)) {
    const meta = JSON.parse(readFileSync(`${base}.json`, 'utf8')) as Omit<RealisticConversation, 'pcm'>;
    const bytes = readFileSync(`${base}.f32`);
    return { ...meta, pcm: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) };
  }
  const built = await build();
  mkdirSync(dir, { recursive: true });
  const { pcm, ...meta } = built;
  writeFileSync(`${base}.f32`, pcm);
  writeFileSync(`${base}.json`, JSON.stringify(meta));
  return built;
}
