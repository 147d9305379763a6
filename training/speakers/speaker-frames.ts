/**
 * MFCC frames of ALFFA speakers for training the diarization speaker model (UBM, total-variability
 * matrix, discriminant): `npx tsx training/speakers/speaker-frames.ts OUT_PREFIX COUNT GROUP...`
 * writes OUT_PREFIX.bin (float32 [frames][20], speech frames only: the gateway's own energy gate)
 * and OUT_PREFIX.json ({ dim, utterances: [{ group, start, frames }] }) from the first COUNT
 * utterances of each group (trimmed to speech), computed by the gateway's own code
 * (speakerFrames), so training and serving see the same numbers.
 *
 * Options (issue 29: many more speakers, channel augmentation):
 *   --speechocean SIDE / --librispeech SIDE  add that side's speakers of speechocean762-spk /
 *     librispeech-spk (SIDE train, dev or test: extraSpeakerSplit in training/common/realistic-conversations.ts),
 *     every utterance, each speaker a group of its own (`so0001`, `ls103`);
 *   --augment N   N more copies of every utterance, each through a random simulated channel
 *     (throughRandomChannel: room, room tone, telephone band and mu-law, level);
 *   --no-clean    the channel copies only (held-out evaluation frames as a real channel gives them).
 */
import { writeFileSync } from 'node:fs';
import { groupClips, loadGroupClips } from '../common/diarization-conversations.js';
import { extraSpeakerClips, extraSpeakerSplit, type HeldOutSide } from '../common/realistic-conversations.js';
import { throughRandomChannel } from '../common/simulated-channel.js';
import { energySpeechMask, MFCC_COEFFICIENTS, speakerFrames } from '../../src/engines/training.js';

/** The shipped speaker models were trained on frames every 10 ms (the gateway serves them on SPEAKER_FRAME_MS frames). */
const TRAINING_FRAME_MS = 10;

const argv = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(name);
  if (i < 0) return undefined;
  const value = argv[i + 1];
  argv.splice(i, 2);
  return value;
};
const soSide = flag('--speechocean') as 'train' | HeldOutSide | undefined;
const lsSide = flag('--librispeech') as 'train' | HeldOutSide | undefined;
const augment = Number(flag('--augment') ?? 0);
const clean = !argv.includes('--no-clean');
if (!clean) argv.splice(argv.indexOf('--no-clean'), 1);
const [prefix, countText, ...groups] = argv;
const count = Number(countText);
if (prefix === undefined || !(count > 0))
  throw new Error('usage: speaker-frames.ts OUT_PREFIX COUNT [GROUP...] [--speechocean SIDE] [--librispeech SIDE] [--augment N] [--no-clean]');
await loadGroupClips(groups, count);
const sources: { group: string; clips: () => Promise<Float32Array[]> }[] = groups.map((g) => ({ group: g, clips: async () => groupClips(g, count) }));
const split = extraSpeakerSplit();
if (soSide !== undefined) for (const s of split.speechocean[soSide]) sources.push({ group: `so${s}`, clips: () => extraSpeakerClips('speechocean', s) });
if (lsSide !== undefined) for (const s of split.librispeech[lsSide]) sources.push({ group: `ls${s}`, clips: () => extraSpeakerClips('librispeech', s) });
const chunks: Float32Array[] = [];
const utterances: { group: string; start: number; frames: number }[] = [];
let total = 0;
let seed = 29_000;
for (const { group, clips } of sources) {
  const heard: Float32Array[] = [];
  for (const clip of await clips()) {
    if (clean) heard.push(clip);
    for (let k = 0; k < augment; k++) heard.push(throughRandomChannel(clip, seed++));
  }
  for (const clip of heard) {
    const features = speakerFrames(clip, TRAINING_FRAME_MS);
    const speech = energySpeechMask(features);
    const kept = new Float32Array(features.frames * MFCC_COEFFICIENTS);
    let n = 0;
    for (let t = 0; t < features.frames; t++) {
      if (speech[t] === 0) continue;
      kept.set(features.mfcc.subarray(t * MFCC_COEFFICIENTS, (t + 1) * MFCC_COEFFICIENTS), n * MFCC_COEFFICIENTS);
      n++;
    }
    chunks.push(kept.subarray(0, n * MFCC_COEFFICIENTS));
    utterances.push({ group, start: total, frames: n });
    total += n;
  }
  if (groups.includes(group)) console.log(`${group}: ${utterances.filter((u) => u.group === group).length} utterances`);
}
const all = new Float32Array(total * MFCC_COEFFICIENTS);
let at = 0;
for (const c of chunks) {
  all.set(c, at);
  at += c.length;
}
writeFileSync(`${prefix}.bin`, all);
writeFileSync(`${prefix}.json`, JSON.stringify({ dim: MFCC_COEFFICIENTS, utterances }));
console.log(`${sources.length} speakers, ${utterances.length} utterances, ${total} frames`);
