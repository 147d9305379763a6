/**
 * Writes a model folder's stream-stats.json (docs/model-format.md "Streaming step graph"): the
 * per-channel mean and standard deviation (n - 1) of raw log-mel features (the manifest's front
 * end without normalisation) over training utterances, the prior that live streams' running
 * normalisation starts from (RunningNormalizer). Training speakers only: the ALFFA training
 * groups of training/common/splits/alffa-spk-train.txt, `--count` utterances evenly spread.
 *
 * `--audio-dir DIR` reads the same utterances from DIR/<id>.wav (a telephone model's statistics: the
 * training groups through a mu-law call, `telephone_heldout.py --sets train --out DIR`).
 *
 * Run: npx tsx training/asr/stream-statistics.ts --model models/small-am-v2 [--data ../shared/data --count 200 --prior-frames 100 --audio-dir DIR]
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadModelFolder } from '../../src/engines/training.js';
import { featureStatistics, trainingFeatures } from '../common/feature-statistics.js';

/** `--name value` from the command line, else `fallback`. */
function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && at + 1 < process.argv.length ? process.argv[at + 1]! : fallback;
}

const folder = resolve(option('model', 'models/small-am-v2'));
const data = option('data', join(process.cwd(), '..', 'shared', 'data'));
const count = Number(option('count', '200'));
const priorFrames = Number(option('prior-frames', '100'));
const audioDir = option('audio-dir', '') || null;
const model = await loadModelFolder(folder);
if (model.kind !== 'ctc' || model.manifest.input.kind !== 'log_mel') throw new Error(`${folder} is not a log-mel CTC model`);
const input = model.manifest.input;
const { mean, std } = featureStatistics(await trainingFeatures(data, input, count, audioDir), input.nMels);
const round = (v: number): number => Math.round(v * 1e5) / 1e5;
const stats = {
  mean: mean.map(round),
  std: std.map(round),
  prior_frames: priorFrames,
  source: `raw log-mel of ${count} ALFFA Amharic training utterances (training/common/splits/alffa-spk-train.txt)${audioDir === null ? '' : ' through an 8 kHz G.711 mu-law call (telephone_heldout.py)'}, training/asr/stream-statistics.ts`,
};
writeFileSync(join(folder, 'stream-stats.json'), `${JSON.stringify(stats)}\n`);
console.log(`wrote ${join(folder, 'stream-stats.json')}`);
