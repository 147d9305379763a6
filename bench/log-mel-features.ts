/**
 * Log-mel feature extraction, the input preparation every inference worker runs per row: time
 * per second of audio with the mixed-radix real FFT (the default for n_fft 400 = 2^4 * 5^2)
 * against Bluestein's chirp-z FFT (the method for sizes with large prime factors, and what
 * n_fft 400 used before), in one run, on the same audio and manifest. Rounds alternate the two;
 * medians and their ratio are printed and written to bench/results/log-mel-features.json. The
 * features of the two must agree (max abs difference printed).
 *
 *   npm run build && node dist/bench/log-mel-features.js [rounds=7] [model folder=models/small-am-v1]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LogMelExtractor } from '../src/engines/signal/features/log-mel-features.js';
import { loadModelFolder } from '../src/engines/asr/models/model-loader.js';
import { speechAmPcm } from '../test/helpers/fixtures.js';
import { loadAverage, machine, round1 } from './ws-bench-common.js';

const rounds = Number(process.argv[2] ?? 7);
const folder = resolve(process.argv[3] ?? 'models/small-am-v1');

const model = await loadModelFolder(folder);
const input = model.manifest.input;
if (input.kind !== 'log_mel') throw new Error(`${model.name} takes ${input.kind} input, not log-mel features`);

// The speech fixture (16 kHz mono 16-bit), cut into 3 s turns as live streams send them.
const bytes = speechAmPcm();
const pcm = Float32Array.from({ length: bytes.length >> 1 }, (_, i) => bytes.readInt16LE(2 * i) / 32768);
const TURN = 3 * 16000;
const turns: Float32Array[] = [];
for (let at = 0; at + TURN <= pcm.length; at += TURN / 2) turns.push(pcm.subarray(at, at + TURN));
if (turns.length === 0) turns.push(pcm);
const audioSeconds = turns.reduce((n, t) => n + t.length, 0) / 16000;

const mixed = new LogMelExtractor(input, 'mixed-radix');
const bluestein = new LogMelExtractor(input, 'bluestein');

let worstDiff = 0;
for (const turn of turns) {
  const a = mixed.compute(turn);
  const b = bluestein.compute(turn);
  for (let i = 0; i < a.length; i++) worstDiff = Math.max(worstDiff, Math.abs(a[i]! - b[i]!));
}

function timeOnce(extractor: LogMelExtractor): number {
  const started = performance.now();
  for (const turn of turns) extractor.compute(turn);
  return (performance.now() - started) / audioSeconds;
}

const median = (values: number[]): number => [...values].sort((x, y) => x - y)[values.length >> 1]!;
// Warm both up (JIT) before timing.
for (let i = 0; i < 3; i++) timeOnce(mixed), timeOnce(bluestein);
const mixedMs: number[] = [];
const bluesteinMs: number[] = [];
for (let r = 0; r < rounds; r++) {
  mixedMs.push(timeOnce(mixed));
  bluesteinMs.push(timeOnce(bluestein));
}

const result = {
  benchmark: 'log-mel-features',
  date: new Date().toISOString(),
  ...machine(),
  load_average_at_start: loadAverage(),
  model: model.name,
  n_fft: input.nFft,
  n_mels: input.nMels,
  hop_length: input.hopLength,
  audio_seconds_per_round: audioSeconds,
  rounds,
  ms_per_audio_second: {
    mixed_radix: round2(median(mixedMs)),
    bluestein_baseline: round2(median(bluesteinMs)),
  },
  ms_per_3s_turn: {
    mixed_radix: round2(3 * median(mixedMs)),
    bluestein_baseline: round2(3 * median(bluesteinMs)),
  },
  ratio_mixed_to_bluestein: round2(median(mixedMs) / median(bluesteinMs)),
  max_abs_feature_difference: worstDiff,
};
mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
const out = join(process.cwd(), 'bench/results/log-mel-features.json');
writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
console.log(
  `log-mel (${model.name}, n_fft ${input.nFft}): mixed radix ${result.ms_per_audio_second.mixed_radix} ms per audio second, ` +
    `Bluestein ${result.ms_per_audio_second.bluestein_baseline} ms (ratio ${result.ratio_mixed_to_bluestein}); ` +
    `max feature difference ${worstDiff.toExponential(2)}; ${round1(1000 / result.ms_per_audio_second.mixed_radix)}x real time on one core. Wrote ${out}`,
);

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}
