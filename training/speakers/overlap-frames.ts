/**
 * Frames for training and checking the overlapped-speech detector (src/engines/diarization/overlap-detector.ts):
 *
 *   npx tsx training/speakers/overlap-frames.ts OUT_PREFIX train|dev|realistic-train|realistic-dev CONVERSATIONS SEED
 *
 * builds synthetic conversations of real ALFFA speakers with much overlap (in every other
 * conversation half the turns start up to 2 s before the previous one ends, the others after 0-1 s,
 * so abutting turns without overlap are there too; in the rest a quarter overlap by up to 1 s;
 * each turn ±6 dB): `train` from the groups neither the development nor
 * the held-out sets use (020, 097, 098, 099, 100, 110), `dev` from the development groups.
 * `realistic-train` / `realistic-dev`: the SIMULATED same-channel conversations of
 * realistic-conversations.ts instead (2-6 speakers, short turns, backchannels, room, room tone,
 * telephone band): the training speakers (REALISTIC_TRAIN_GROUPS and the extra corpora's `train`
 * side) or the development side the diarization benchmark tunes on. Writes
 * OUT_PREFIX.bin (float32 [frames][FRAME_FEATURES], overlapFrameFeatures: the gateway's own
 * code, so training and serving see the same numbers), OUT_PREFIX.labels (uint8 per frame: the
 * reference speakers active at its centre, at most 2; 255 where the energy gate finds no speech)
 * and OUT_PREFIX.json ({ frameFeatures, conversations: [{ name, start, frames, overlapFrames }] }).
 */
import { writeFileSync } from 'node:fs';
import {
  addGroupClips,
  buildConversation,
  type Conversation,
  type ConversationStyle,
  DEV_GROUPS,
  groupClips,
  loadGroupClips,
} from '../common/diarization-conversations.js';
import { realisticSet } from '../common/realistic-conversations.js';
import {
  centredFrames,
  energySpeechMask,
  FRAME_FEATURES,
  overlapFrameFeatures,
  SPEAKER_FRAME_MS,
  speakerFrames,
  trackPitch,
} from '../../src/engines/training.js';

/** `pcm` played `factor` times faster (linear interpolation): pitch and tempo both scale. */
function resample(pcm: Float32Array, factor: number): Float32Array {
  const out = new Float32Array(Math.floor(pcm.length / factor));
  for (let i = 0; i < out.length; i++) {
    const x = i * factor;
    const j = Math.floor(x);
    const f = x - j;
    out[i] = (1 - f) * pcm[j]! + f * pcm[Math.min(pcm.length - 1, j + 1)]!;
  }
  return out;
}

/** The ALFFA groups in neither DEV_GROUPS nor TEST_GROUPS with more than one utterance. */
export const OVERLAP_TRAIN_GROUPS = ['020', '097', '098', '099', '100', '110'];
const SPEED_FACTORS = [0.9, 1.1];
/** Every other conversation much overlapped, the rest nearer the evaluation sets (where overlaps are rarer and shorter). */
const TRAINING_STYLES: readonly ConversationStyle[] = [
  { overlapShare: 0.5, maxOverlapS: 2, minGapS: 0, maxGapS: 1, gainDb: 6, clipsPerSpeaker: 40 },
  { overlapShare: 0.25, maxOverlapS: 1, minGapS: 0.1, maxGapS: 1.2, gainDb: 6, clipsPerSpeaker: 40 },
];
const CLIPS_PER_SPEAKER = 40;

const [prefix, set, countText, seedText] = process.argv.slice(2);
const count = Number(countText);
const seed = Number(seedText);
const SETS = ['train', 'dev', 'realistic-train', 'realistic-dev'] as const;
if (prefix === undefined || !SETS.includes(set as (typeof SETS)[number]) || !(count > 0) || !Number.isInteger(seed)) {
  throw new Error(`usage: overlap-frames.ts OUT_PREFIX ${SETS.join('|')} CONVERSATIONS SEED`);
}
const groups: string[] = [];
if (set === 'train' || set === 'dev') {
  const baseGroups = set === 'train' ? OVERLAP_TRAIN_GROUPS : DEV_GROUPS;
  await loadGroupClips(baseGroups, CLIPS_PER_SPEAKER);
  groups.push(...baseGroups);
  // Training: each group also at 0.9x and 1.1x speed (pitch and tempo, as sox's `speed`), new
  // voices for a detector that must not learn six speakers' voices.
  if (set === 'train') {
    for (const group of baseGroups) {
      for (const factor of SPEED_FACTORS) {
        addGroupClips(
          `${group}x${factor}`,
          groupClips(group, CLIPS_PER_SPEAKER).map((clip) => resample(clip, factor)),
        );
        groups.push(`${group}x${factor}`);
      }
    }
  }
}

/** The i-th conversation of the set (the realistic sets: 2-6 speakers in turn). */
async function* conversationsOf(): AsyncGenerator<Conversation> {
  if (set === 'realistic-train' || set === 'realistic-dev') {
    const side = set === 'realistic-train' ? 'train' : 'dev';
    const perCount = Math.ceil(count / 5);
    yield* (await realisticSet(side, [2, 3, 4, 5, 6], perCount, seed)).slice(0, count);
    return;
  }
  for (let i = 0; i < count; i++) {
    const speakers = 2 + (i % 3);
    yield buildConversation(`${set}-${i}`, groups, speakers, 8 + 3 * speakers, seed + i, TRAINING_STYLES[i % 2]!);
  }
}

const chunks: Float32Array[] = [];
const labelChunks: Uint8Array[] = [];
const conversations: { name: string; start: number; frames: number; overlapFrames: number }[] = [];
let total = 0;
for await (const conversation of conversationsOf()) {
  const features = speakerFrames(conversation.pcm);
  const speech = energySpeechMask(features);
  chunks.push(overlapFrameFeatures(features, centredFrames(features, speech), speech, trackPitch(conversation.pcm).periodicity));
  const labels = new Uint8Array(features.frames);
  let overlapFrames = 0;
  for (let t = 0; t < features.frames; t++) {
    const centreMs = t * SPEAKER_FRAME_MS + SPEAKER_FRAME_MS / 2;
    const active = conversation.reference.filter((turn) => turn.startMs <= centreMs && centreMs < turn.endMs).length;
    labels[t] = speech[t] === 0 ? 255 : Math.min(2, active);
    if (labels[t] === 2) overlapFrames++;
  }
  labelChunks.push(labels);
  conversations.push({ name: conversation.name, start: total, frames: features.frames, overlapFrames });
  total += features.frames;
}
const features = new Float32Array(total * FRAME_FEATURES);
const labels = new Uint8Array(total);
chunks.forEach((chunk, i) => features.set(chunk, conversations[i]!.start * FRAME_FEATURES));
labelChunks.forEach((chunk, i) => labels.set(chunk, conversations[i]!.start));
writeFileSync(`${prefix}.bin`, features);
writeFileSync(`${prefix}.labels`, labels);
writeFileSync(`${prefix}.json`, `${JSON.stringify({ set, groups, seed, frameFeatures: FRAME_FEATURES, conversations }, null, 1)}\n`);
const overlap = conversations.reduce((sum, c) => sum + c.overlapFrames, 0);
console.log(
  `${conversations.length} conversations, ${total} frames (${((total * SPEAKER_FRAME_MS) / 1000).toFixed(0)} s), ${overlap} overlapped speech frames`,
);
