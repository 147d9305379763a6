/**
 * Window statistics of ALFFA speakers for training the diarization speaker projection:
 * `npx tsx training/speakers/speaker-windows.ts OUT.json GROUP...` writes { group: [[40 numbers]...] }
 * from the first 40 utterances of each group (trimmed to speech), 1.5 s windows every 0.5 s,
 * computed by the gateway's own code (speakerFrames + windowStatistics), so training and
 * serving see the same numbers.
 */
import { writeFileSync } from 'node:fs';
import { groupClips, loadGroupClips } from '../common/diarization-conversations.js';
import { speakerFrames, windowStatistics } from '../../src/engines/training.js';

/** The shipped speaker models were trained on frames every 10 ms (the gateway serves them on SPEAKER_FRAME_MS frames). */
const TRAINING_FRAME_MS = 10;

const [out, ...groups] = process.argv.slice(2);
if (out === undefined || groups.length === 0) throw new Error('usage: speaker-windows.ts OUT.json GROUP...');
await loadGroupClips(groups, 40);
const windows: Record<string, number[][]> = {};
for (const group of groups) {
  windows[group] = [];
  for (const clip of groupClips(group, 40)) {
    const features = speakerFrames(clip, TRAINING_FRAME_MS);
    for (let start = 0; start + 150 <= features.frames; start += 50) {
      const stats = windowStatistics(features, null, start, start + 150, 50);
      if (stats !== null) windows[group]!.push([...stats]);
    }
  }
  console.log(`${group}: ${windows[group]!.length} windows`);
}
writeFileSync(out, JSON.stringify(windows));
