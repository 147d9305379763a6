/**
 * Log-mel feature extraction, the input preparation every inference worker runs per row: time
 * per second of audio with the native kernel (native/src/dsp/log-mel.h, what the workers run)
 * against the TypeScript loop with its mixed-radix real FFT (what they ran before, and the kernel
 * for sizes the native one does not take) and with Bluestein's chirp-z FFT (the TypeScript method
 * for sizes with large prime factors), in one run, on the same audio and manifest. Rounds
 * alternate the three; medians and their ratios are printed and written to
 * bench/results/log-mel-features.json. The features must agree (max abs differences printed).
 *
 *   npm run build && node dist/bench/log-mel-features.js [rounds=7] [model folder=models/small-am-v2]
 */
import { resolve } from 'node:path';
import { LogMelExtractor } from '../src/engines/signal/features/log-mel-features.js';
import { loadModelFolder } from '../src/engines/asr/models/model-loader.js';
import { speechAmPcm } from '../test/helpers/fixtures.js';
import { median, ratio3, round2, writeBenchResults } from './bench-results.js';
import { loadAverage, machine, round1 } from './ws-bench-common.js';

const rounds = Number(process.argv[2] ?? 7);
const folder = resolve(process.argv[3] ?? 'models/small-am-v2');

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

const native = new LogMelExtractor(input, { kernel: 'native' });
const mixed = new LogMelExtractor(input, { fftMethod: 'mixed-radix' });
const bluestein = new LogMelExtractor(input, { fftMethod: 'bluestein' });

const worstDiff = { native_vs_typescript: 0, bluestein_vs_mixed_radix: 0 };
for (const turn of turns) {
  const a = mixed.compute(turn);
  const b = bluestein.compute(turn);
  const c = native.compute(turn);
  for (let i = 0; i < a.length; i++) {
    worstDiff.bluestein_vs_mixed_radix = Math.max(worstDiff.bluestein_vs_mixed_radix, Math.abs(a[i]! - b[i]!));
    worstDiff.native_vs_typescript = Math.max(worstDiff.native_vs_typescript, Math.abs(a[i]! - c[i]!));
  }
}

function timeOnce(extractor: LogMelExtractor): number {
  const started = performance.now();
  for (const turn of turns) extractor.compute(turn);
  return (performance.now() - started) / audioSeconds;
}

// Warm all up (JIT) before timing.
for (let i = 0; i < 3; i++) timeOnce(native), timeOnce(mixed), timeOnce(bluestein);
const nativeMs: number[] = [];
const mixedMs: number[] = [];
const bluesteinMs: number[] = [];
for (let r = 0; r < rounds; r++) {
  nativeMs.push(timeOnce(native));
  mixedMs.push(timeOnce(mixed));
  bluesteinMs.push(timeOnce(bluestein));
}

const ms = { native: median(nativeMs), typescript_mixed_radix: median(mixedMs), typescript_bluestein: median(bluesteinMs) };
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
  baseline: 'typescript_mixed_radix (the kernel before the native one)',
  ms_per_audio_second: {
    native: round2(ms.native),
    typescript_mixed_radix: round2(ms.typescript_mixed_radix),
    typescript_bluestein: round2(ms.typescript_bluestein),
  },
  ms_per_3s_turn: {
    native: round2(3 * ms.native),
    typescript_mixed_radix: round2(3 * ms.typescript_mixed_radix),
    typescript_bluestein: round2(3 * ms.typescript_bluestein),
  },
  ratio_native_to_typescript: ratio3(ms.native, ms.typescript_mixed_radix),
  ratio_bluestein_to_mixed_radix: ratio3(ms.typescript_bluestein, ms.typescript_mixed_radix),
  max_abs_feature_difference: worstDiff,
};
const out = writeBenchResults('log-mel-features', result);
console.log(
  `log-mel (${model.name}, n_fft ${input.nFft}): native ${result.ms_per_audio_second.native} ms per audio second, ` +
    `TypeScript ${result.ms_per_audio_second.typescript_mixed_radix} ms (ratio ${result.ratio_native_to_typescript}), ` +
    `TypeScript Bluestein ${result.ms_per_audio_second.typescript_bluestein} ms; max feature difference native/TypeScript ` +
    `${worstDiff.native_vs_typescript.toExponential(2)}; native ${round1(1000 / ms.native)}x real time on one core. Wrote ${out}`,
);
