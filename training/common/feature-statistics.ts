// Statistics of raw log-mel features over training speech: the prior of live streams' running
// normalisation (stream-stats.json, training/asr/stream-statistics.ts) and the global statistics
// bench/incremental-encoder.ts compares normalisations with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogMelExtractor, type LogMelInput } from '../../src/engines/training.js';
import { decodeFile } from './decoded-file.js';

/** Per-channel mean and standard deviation (n - 1) of every frame of `utterances` ([frames, channels] each). */
export function featureStatistics(utterances: readonly Float32Array[], channels: number): { mean: number[]; std: number[] } {
  const sum = new Float64Array(channels);
  const squares = new Float64Array(channels);
  let frames = 0;
  for (const u of utterances) {
    for (let i = 0; i < u.length; i++) {
      sum[i % channels]! += u[i]!;
      squares[i % channels]! += u[i]! * u[i]!;
    }
    frames += u.length / channels;
  }
  const mean = Array.from(sum, (s) => s / frames);
  const std = Array.from(squares, (s, c) => Math.sqrt(Math.max(0, (s - frames * mean[c]! ** 2) / (frames - 1))));
  return { mean, std };
}

/**
 * Raw log-mel features of `count` training utterances, evenly spread over the training ids; with
 * `audioDir`, each read from `<audioDir>/<id>.wav` instead of its flac (the same utterances through
 * a channel, e.g. telephone_heldout.py --sets train: 8 kHz calls, upsampled as the gateway does).
 */
export async function trainingFeatures(data: string, input: LogMelInput, count: number, audioDir: string | null = null): Promise<Float32Array[]> {
  const ids = readFileSync(join(import.meta.dirname, 'splits', 'alffa-spk-train.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .sort((a, b) => Number(a.split('_')[1]) - Number(b.split('_')[1]));
  const step = Math.max(1, Math.floor(ids.length / count));
  const raw = new LogMelExtractor({ ...input, normalize: 'none' });
  const out: Float32Array[] = [];
  for (const id of ids.filter((_, i) => i % step === 0).slice(0, count)) {
    out.push(raw.compute(await decodeFile(audioDir === null ? join(data, 'alffa-am-train', 'flac', `${id}.flac`) : join(audioDir, `${id}.wav`))));
  }
  return out;
}
