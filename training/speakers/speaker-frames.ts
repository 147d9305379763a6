/**
 * MFCC frames of ALFFA speakers for training the diarization speaker model (UBM, total-variability
 * matrix, discriminant): `npx tsx training/speakers/speaker-frames.ts OUT_PREFIX COUNT GROUP...`
 * writes OUT_PREFIX.bin (float32 [frames][20], speech frames only: the gateway's own energy gate)
 * and OUT_PREFIX.json ({ dim, utterances: [{ group, start, frames }] }) from the first COUNT
 * utterances of each group (trimmed to speech), computed by the gateway's own code
 * (speakerFrames), so training and serving see the same numbers.
 *
 * Options (issue 29: many more speakers, channel augmentation; speaker-sources.ts):
 *   --speechocean SIDE / --librispeech SIDE  add that side's speakers of speechocean762-spk /
 *     librispeech-spk (SIDE train, dev or test: extraSpeakerSplit in training/common/realistic-conversations.ts),
 *     every utterance, each speaker a group of its own (`so0001`, `ls103`);
 *   --augment N   N more copies of every utterance, each through a random simulated channel
 *     (throughRandomChannel: room, room tone, telephone band and mu-law, level);
 *   --seed N      the first channel's seed (29000);
 *   --no-clean    the channel copies only (held-out evaluation frames as a real channel gives them).
 */
import { energySpeechMask, MFCC_COEFFICIENTS, speakerFrames } from '../../src/engines/training.js';
import { FrameFile, heardUtterances, speakerSources } from './speaker-sources.js';

/** The shipped speaker models were trained on frames every 10 ms (the gateway serves them on SPEAKER_FRAME_MS frames). */
const TRAINING_FRAME_MS = 10;

const sources = await speakerSources(
  process.argv.slice(2),
  'usage: speaker-frames.ts OUT_PREFIX COUNT [GROUP...] [--speechocean SIDE] [--librispeech SIDE] [--augment N] [--seed N] [--no-clean]',
  29_000,
);
const out = new FrameFile(MFCC_COEFFICIENTS);
let group: string | null = null;
const reportGroup = (): void => {
  if (group !== null && sources.alffaGroups.includes(group)) console.log(`${group}: ${out.utterancesOf(group)} utterances`);
};
for await (const heard of heardUtterances(sources)) {
  if (heard.group !== group) reportGroup();
  group = heard.group;
  const features = speakerFrames(heard.pcm, TRAINING_FRAME_MS);
  const speech = energySpeechMask(features);
  const kept = new Float32Array(features.frames * MFCC_COEFFICIENTS);
  let n = 0;
  for (let t = 0; t < features.frames; t++) {
    if (speech[t] === 0) continue;
    kept.set(features.mfcc.subarray(t * MFCC_COEFFICIENTS, (t + 1) * MFCC_COEFFICIENTS), n * MFCC_COEFFICIENTS);
    n++;
  }
  out.add(heard.group, kept.subarray(0, n * MFCC_COEFFICIENTS));
}
reportGroup();
const written = out.write(sources.prefix);
console.log(`${sources.sources.length} speakers, ${written.utterances} utterances, ${written.frames} frames`);
