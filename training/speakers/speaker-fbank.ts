/**
 * Kaldi fbank frames of speakers for training the diarization speaker-embedding network
 * (speaker_embedding.py): `npx tsx training/speakers/speaker-fbank.ts OUT_PREFIX COUNT GROUP...`
 * writes OUT_PREFIX.bin (float32 [frames][80], speech frames only: the gateway's own energy gate,
 * as the diarization windows keep only speech frames) and OUT_PREFIX.json ({ dim, utterances:
 * [{ group, start, frames }] }). The features are the gateway's own (kaldiFbank, int16 sample
 * scale, no mean removed: the network's metadata asks the gateway to remove the mean over each
 * window, and training removes it over each crop), so training and serving see the same numbers.
 * Speakers, splits and channel options as speaker-frames.ts (speaker-sources.ts; --seed 33000 by default).
 */
import { energySpeechMask, kaldiFbank, speakerFrames } from '../../src/engines/training.js';
import { FrameFile, heardUtterances, speakerSources } from './speaker-sources.js';

/** Both fbank and the energy gate's frames move by 10 ms here, so frame t of one is frame t of the other. */
const FRAME_MS = 10;
const BINS = 80;

const sources = await speakerSources(
  process.argv.slice(2),
  'usage: speaker-fbank.ts OUT_PREFIX COUNT [GROUP...] [--speechocean SIDE] [--librispeech SIDE] [--augment N] [--seed N] [--no-clean]',
  33_000,
);
const out = new FrameFile(BINS);
for await (const { group, pcm } of heardUtterances(sources)) {
  const fbank = kaldiFbank(pcm, { normalizeSamples: false });
  const speech = energySpeechMask(speakerFrames(pcm, FRAME_MS));
  const kept = new Float32Array(fbank.frames * BINS);
  let n = 0;
  for (let t = 0; t < fbank.frames; t++) {
    if (speech[Math.min(t, speech.length - 1)] !== 1) continue;
    kept.set(fbank.data.subarray(t * BINS, (t + 1) * BINS), n * BINS);
    n++;
  }
  out.add(group, kept.subarray(0, n * BINS));
}
const written = out.write(sources.prefix);
console.log(`${sources.sources.length} speakers, ${written.utterances} utterances, ${written.frames} frames`);
