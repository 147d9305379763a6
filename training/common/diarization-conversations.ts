/**
 * Synthetic conversations from real ALFFA speakers (one speaker group = one speaker), with the
 * reference RTTM written by the builder: turns are whole utterances trimmed to their speech,
 * separated by pauses of 0.2-1.2 s or overlapping by up to 0.5 s (one turn in eight), over a
 * noise floor 35 dB below the speech. Seeded, so a run is reproducible. Shared by the speaker and
 * segment-type training (training/speakers, training/segment-types), the diarization benchmarks and
 * test/diarization; decoded clips stay cached for the life of the process.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LabelledTurn } from '../../src/engines/training.js';
import { decodeFile } from './decoded-file.js';
import { seededRandom } from './seeded-random.js';

export const ALFFA_DIR = join(process.env['SHARED_DATA_DIR'] ?? '/work/shared/data', 'alffa-am-train/flac');
/** Speaker groups the threshold was tuned on, and groups kept for the reported figures. */
export const DEV_GROUPS = ['021', '031', '041', '051'];
export const TEST_GROUPS = ['061', '091', '120', '131', '231', '301', '531'];

export interface Conversation {
  readonly name: string;
  readonly pcm: Float32Array;
  readonly reference: LabelledTurn[];
  readonly speakers: number;
}

/** The clip from its first to its last 10 ms frame within 30 dB of its loudest frame. */
export function trimToSpeech(pcm: Float32Array): Float32Array {
  const frame = 160;
  const energies: number[] = [];
  for (let i = 0; i + frame <= pcm.length; i += frame) {
    let e = 0;
    for (let j = i; j < i + frame; j++) e += pcm[j]! * pcm[j]!;
    energies.push(e / frame);
  }
  const gate = Math.max(...energies) / 1000;
  const first = energies.findIndex((e) => e > gate);
  let last = energies.length - 1;
  while (last > first && energies[last]! <= gate) last--;
  return pcm.slice(Math.max(0, first) * frame, (last + 1) * frame);
}

const clipCache = new Map<string, Float32Array[]>();

/** Decodes (once) the first `count` utterances of each group, trimmed, for groupClips and the builders. */
export async function loadGroupClips(groups: readonly string[], count: number): Promise<void> {
  for (const group of groups) {
    if ((clipCache.get(group)?.length ?? -1) >= count) continue;
    const files = readdirSync(ALFFA_DIR)
      .filter((f) => f.endsWith('.flac') && new RegExp(`_tr${group}\\d+\\.flac$`).test(f))
      .sort()
      .slice(0, count);
    const clips: Float32Array[] = [];
    for (const f of files) clips.push(trimToSpeech(await decodeFile(join(ALFFA_DIR, f))));
    clipCache.set(group, clips);
  }
}

/** Registers clips under a speaker name of its own (a speed-perturbed copy of a group, for training). */
export function addGroupClips(name: string, clips: Float32Array[]): void {
  clipCache.set(name, clips);
}

/** Up to `count` trimmed utterances of one speaker group, in file order (loadGroupClips first). */
export function groupClips(group: string, count: number): Float32Array[] {
  const clips = clipCache.get(group);
  if (clips === undefined) throw new Error(`speaker group ${group} is not loaded: call loadGroupClips first`);
  return clips.slice(0, count);
}

/**
 * How turns follow each other: a share of turns overlap the previous one by up to `maxOverlapS`,
 * the others follow a pause of `minGapS`-`maxGapS`; `gainDb` > 0 scales each turn by a random gain
 * within ±gainDb. The defaults are the evaluation sets' (the overlap detector trains on more overlap).
 */
export interface ConversationStyle {
  readonly overlapShare: number;
  readonly maxOverlapS: number;
  readonly minGapS: number;
  readonly maxGapS: number;
  readonly gainDb: number;
  readonly clipsPerSpeaker: number;
}

export const EVALUATION_STYLE: ConversationStyle = { overlapShare: 0.125, maxOverlapS: 0.5, minGapS: 0.2, maxGapS: 1.2, gainDb: 0, clipsPerSpeaker: 12 };

export function buildConversation(
  name: string,
  groups: readonly string[],
  speakers: number,
  turns: number,
  seed: number,
  style: ConversationStyle = EVALUATION_STYLE,
): Conversation {
  const random = seededRandom(seed);
  const chosen = [...groups].sort(() => random() - 0.5).slice(0, speakers);
  const clips = chosen.map((g) => groupClips(g, style.clipsPerSpeaker));
  const used = chosen.map(() => 0);
  const placed: { at: number; clip: Float32Array; speaker: string }[] = [];
  let cursor = Math.round(16_000 * (0.3 + random()));
  let previous = -1;
  for (let i = 0; i < turns; i++) {
    let s = Math.floor(random() * speakers);
    if (s === previous) s = (s + 1 + Math.floor(random() * (speakers - 1))) % speakers;
    if (i < speakers) s = i; // everyone speaks early on
    let clip = clips[s]![used[s]! % clips[s]!.length]!;
    used[s]! += 1;
    const overlapping = i > 0 && random() < style.overlapShare;
    const gap = overlapping
      ? -Math.round(16_000 * style.maxOverlapS * random())
      : Math.round(16_000 * (style.minGapS + (style.maxGapS - style.minGapS) * random()));
    if (style.gainDb > 0) {
      const gain = 10 ** ((style.gainDb * (2 * random() - 1)) / 20);
      clip = clip.map((x) => x * gain);
    }
    const at = Math.max(0, cursor + gap);
    placed.push({ at, clip, speaker: `S${chosen[s]}` });
    cursor = at + clip.length;
    previous = s;
  }
  const total = cursor + 16_000;
  const pcm = new Float32Array(total);
  let peak = 0;
  for (const p of placed) {
    for (let j = 0; j < p.clip.length; j++) pcm[p.at + j]! += p.clip[j]!;
  }
  for (let j = 0; j < total; j++) peak = Math.max(peak, Math.abs(pcm[j]!));
  const noise = (peak / 10) * 10 ** (-35 / 20);
  for (let j = 0; j < total; j++) pcm[j]! += noise * (random() * 2 - 1);
  const reference = placed.map((p) => ({ startMs: Math.round(p.at / 16), endMs: Math.round((p.at + p.clip.length) / 16), speaker: p.speaker }));
  return { name, pcm, reference, speakers };
}

/** The evaluation set: `perCount` conversations for each speaker count, 12-24 turns each. */
export function conversationSet(groups: readonly string[], counts: readonly number[], perCount: number, seed: number): Conversation[] {
  const out: Conversation[] = [];
  for (const speakers of counts) {
    for (let i = 0; i < perCount; i++) {
      const s = seed + speakers * 100 + i;
      out.push(buildConversation(`conv-${speakers}spk-${i}`, groups, speakers, 10 + 4 * speakers + (s % 5), s));
    }
  }
  return out;
}

/**
 * The conversation with seeded white noise `snrDb` under its speech (the RMS of the samples inside
 * the reference turns): a hiss-heavy microphone or line, for robustness figures. The reference turns stay.
 */
export function withNoise(conversation: Conversation, snrDb: number, seed: number): Conversation {
  let power = 0;
  let n = 0;
  for (const turn of conversation.reference) {
    for (let i = Math.round(turn.startMs * 16); i < Math.min(conversation.pcm.length, Math.round(turn.endMs * 16)); i++) {
      power += conversation.pcm[i]! ** 2;
      n++;
    }
  }
  // Uniform noise in [-a, a] has an RMS of a / sqrt(3).
  const amplitude = Math.sqrt((3 * power) / Math.max(1, n)) * 10 ** (-snrDb / 20);
  const random = seededRandom(seed);
  const pcm = conversation.pcm.map((x) => x + amplitude * (2 * random() - 1));
  return { ...conversation, name: `${conversation.name}-snr${snrDb}`, pcm };
}
