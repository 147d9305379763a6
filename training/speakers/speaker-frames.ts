/**
 * MFCC frames of ALFFA speakers for training the diarization speaker model (UBM, total-variability
 * matrix, discriminant): `npx tsx training/speakers/speaker-frames.ts OUT_PREFIX COUNT GROUP...`
 * writes OUT_PREFIX.bin (float32 [frames][20], speech frames only: the gateway's own energy gate)
 * and OUT_PREFIX.json ({ dim, utterances: [{ group, start, frames }] }) from the first COUNT
 * utterances of each group (trimmed to speech), computed by the gateway's own code
 * (speakerFrames), so training and serving see the same numbers.
 */
import { writeFileSync } from 'node:fs';
import { groupClips, loadGroupClips } from '../common/diarization-conversations.js';
import { energySpeechMask, MFCC_COEFFICIENTS, speakerFrames } from '../../src/engines/training.js';

/** The shipped speaker models were trained on frames every 10 ms (the gateway serves them on SPEAKER_FRAME_MS frames). */
const TRAINING_FRAME_MS = 10;

const [prefix, countText, ...groups] = process.argv.slice(2);
const count = Number(countText);
if (prefix === undefined || !(count > 0) || groups.length === 0) throw new Error('usage: speaker-frames.ts OUT_PREFIX COUNT GROUP...');
await loadGroupClips(groups, count);
const chunks: Float32Array[] = [];
const utterances: { group: string; start: number; frames: number }[] = [];
let total = 0;
for (const group of groups) {
  for (const clip of groupClips(group, count)) {
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
  console.log(`${group}: ${utterances.filter((u) => u.group === group).length} utterances`);
}
const all = new Float32Array(total * MFCC_COEFFICIENTS);
let at = 0;
for (const c of chunks) {
  all.set(c, at);
  at += c.length;
}
writeFileSync(`${prefix}.bin`, all);
writeFileSync(`${prefix}.json`, JSON.stringify({ dim: MFCC_COEFFICIENTS, utterances }));
console.log(`${total} frames`);
