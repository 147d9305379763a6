/**
 * Transcription throughput: audio seconds transcribed per wall-clock second, in one run, at
 * batch 1 (one request at a time, pool maxBatchSize 1: the baseline) and batched (16
 * concurrent jobs, pool maxBatchSize 8), on the same audio, pool and worker settings. The work
 * measured is the pipeline after decoding: pause segmentation, input features, onnxruntime in
 * the worker pool, CTC decoding in the workers as the model's manifest asks (beam + LM for the
 * shipped models; ffmpeg decoding is measured separately). Rounds
 * alternate the two modes; the medians and their ratio are printed and written to
 * bench/results/transcribe-throughput-<model>.json.
 *
 * Model: the default am model under models/ (MODELS_DIR) when one is installed; otherwise the
 * UNTRAINED tiny test model, which the output says. Run from the repository root:
 *
 *   npm run build && node dist/bench/transcribe-throughput.js [rounds=5] [copies=12]
 *
 * A model with the compute profile of the planned small models (random weights) for when none
 * is installed: /usr/bin/python3 scripts/make-tiny-model.py --bench-model /tmp/bench-models/bench-gru-am
 * then MODELS_DIR=/tmp/bench-models node dist/bench/transcribe-throughput.js
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { resolveMediaTools } from '../src/platform/subprocess/media-tools.js';
import { decodeToPcm } from '../src/engines/signal/files/pcm-decoder.js';
import { CtcRecognizer } from '../src/engines/asr/recognition/ctc-recognizer.js';
import { loadLanguageModels, manifestDecodingPlanner } from '../src/engines/asr/inference/decoding-planner.js';
import { InferencePool, type PoolStats } from '../src/engines/asr/inference/inference-pool.js';
import { transcribeAll } from '../src/engines/asr/recognition/transcriber.js';
import { loadModelFolder, type LoadedCtcModel } from '../src/engines/asr/models/model-loader.js';
import { ModelRegistry } from '../src/engines/asr/models/model-registry.js';
import { fixturePath } from '../test/helpers/fixtures.js';

const rounds = Number(process.argv[2] ?? 5);
const copies = Number(process.argv[3] ?? 12);
const JOBS = 16;
const root = process.cwd();

async function pickModel(): Promise<{ model: LoadedCtcModel; source: string }> {
  const registry = await ModelRegistry.scan(resolve(root, process.env.MODELS_DIR ?? 'models'));
  const installed =
    registry.defaultModel('am') ??
    registry
      .languages()
      .map((l) => registry.defaultModel(l))
      .find((m) => m !== null) ??
    null;
  if (installed) return { model: installed, source: `${installed.name} from ${registry.dir}: ${installed.manifest.description}` };
  const tiny = (await loadModelFolder(fixturePath('models/tiny-ctc'))) as LoadedCtcModel;
  return {
    model: tiny,
    source: 'no model under models/: UNTRAINED tiny test model (test/fixtures/models/tiny-ctc); figures show pipeline and batching overhead, not a real model',
  };
}

async function decodeFixture(ffmpeg: string): Promise<{ pcm: Float32Array; decodeSpeed: number }> {
  const started = performance.now();
  const parts: Float32Array[] = [];
  for await (const chunk of decodeToPcm(fixturePath('audio/speech-am.m4a'), { ffmpegPath: ffmpeg })) parts.push(chunk);
  const seconds = (performance.now() - started) / 1000;
  const one = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    one.set(p, at);
    at += p.length;
  }
  const pcm = new Float32Array(one.length * copies);
  for (let k = 0; k < copies; k++) pcm.set(one, k * one.length);
  return { pcm, decodeSpeed: one.length / 16000 / seconds };
}

async function* stream(pcm: Float32Array): AsyncGenerator<Float32Array> {
  for (let i = 0; i < pcm.length; i += 16000) yield pcm.subarray(i, i + 16000);
}

interface ModeResult {
  audioSeconds: number;
  wallSeconds: number;
  speed: number;
}

async function measure(_pool: InferencePool, recognizer: CtcRecognizer, pcm: Float32Array, jobs: number, inFlight: number): Promise<ModeResult> {
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: jobs }, () => transcribeAll(stream(pcm), { recognizer, maxInFlight: inFlight })));
  const wallSeconds = (performance.now() - started) / 1000;
  const audioSeconds = results.reduce((n, r) => n + r.audioMs / 1000, 0);
  return { audioSeconds, wallSeconds, speed: audioSeconds / wallSeconds };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round = (v: number, digits = 2): number => Math.round(v * 10 ** digits) / 10 ** digits;

async function main(): Promise<void> {
  const { model, source } = await pickModel();
  const tools = resolveMediaTools();
  const { pcm, decodeSpeed } = await decodeFixture(tools.ffmpeg);
  const audioPerJob = pcm.length / 16000;
  console.log(`model: ${source}`);
  console.log(`audio: speech-am x ${copies} = ${audioPerJob.toFixed(1)} s per job; ffmpeg decode ${decodeSpeed.toFixed(0)}x real time`);

  const single = await InferencePool.start({ maxBatchSize: 1 });
  const batched = await InferencePool.start({ maxBatchSize: 8, maxWaitMs: 10 });
  // The decoding the gateway uses for this model (its manifest; greedy if its LM does not load).
  const planner = manifestDecodingPlanner(new Set((await loadLanguageModels([model])).models.keys()));
  const singleRecognizer = new CtcRecognizer(single, model, planner);
  const batchedRecognizer = new CtcRecognizer(batched, model, planner);
  const decoding = singleRecognizer.decoding;
  // warm-up: open the sessions and let onnxruntime settle
  await measure(single, singleRecognizer, pcm.subarray(0, 16000 * 20), 1, 1);
  await measure(batched, batchedRecognizer, pcm.subarray(0, 16000 * 20), 4, 4);
  const before = batched.stats();

  const singleRuns: ModeResult[] = [];
  const batchedRuns: ModeResult[] = [];
  for (let r = 0; r < rounds; r++) {
    // batch 1: one job, one request at a time, same total audio as the batched mode
    const s = await measure(single, singleRecognizer, pcm, 1, 1);
    const total = s.audioSeconds * JOBS;
    const scaled = { audioSeconds: total, wallSeconds: (s.wallSeconds * total) / s.audioSeconds, speed: s.speed };
    singleRuns.push(scaled);
    batchedRuns.push(await measure(batched, batchedRecognizer, pcm, JOBS, 4));
    console.log(`round ${r + 1}: batch 1 ${s.speed.toFixed(1)}x real time, batched ${batchedRuns[r]!.speed.toFixed(1)}x`);
  }
  const after: PoolStats = batched.stats();
  const sizes: Record<string, number> = {};
  for (const [size, count] of Object.entries(after.batchSizes)) {
    const measured = count - (before.batchSizes[Number(size)] ?? 0);
    if (measured > 0) sizes[size] = measured;
  }
  const batches = after.batches - before.batches;
  const requests = after.completedRequests - before.completedRequests;
  const device = batched.deviceReport();
  await Promise.all([single.close(), batched.close()]);

  const singleSpeed = median(singleRuns.map((r) => r.speed));
  const batchedSpeed = median(batchedRuns.map((r) => r.speed));
  const figures = {
    date: new Date().toISOString(),
    node: process.version,
    cpu: `${cpus()[0]?.model ?? 'unknown'} x ${availableParallelism()}`,
    model: model.name,
    model_source: source,
    decoding: decoding.kind === 'beam' ? `beam ${decoding.beamWidth}${decoding.lm ? ' + LM' : ''}` : 'greedy',
    device: device.active,
    workers: device.workers,
    intra_op_threads: device.intraOpThreads,
    audio_seconds_per_job: round(audioPerJob, 1),
    rounds,
    ffmpeg_decode_x_realtime: round(decodeSpeed, 0),
    batch1: { jobs: 1, requests_in_flight: 1, max_batch_size: 1, audio_seconds_per_wall_second: round(singleSpeed, 1) },
    batched: {
      jobs: JOBS,
      requests_in_flight_per_job: 4,
      max_batch_size: 8,
      audio_seconds_per_wall_second: round(batchedSpeed, 1),
      mean_batch_size: round(requests / Math.max(1, batches)),
      batch_sizes: sizes,
      mean_queue_wait_ms: round((after.totalQueueWaitMs - before.totalQueueWaitMs) / Math.max(1, requests)),
      mean_run_ms: round((after.totalRunMs - before.totalRunMs) / Math.max(1, batches)),
    },
    ratio_batched_to_batch1: round(batchedSpeed / singleSpeed, 2),
  };
  console.log(`batch 1: ${figures.batch1.audio_seconds_per_wall_second} audio s per wall s`);
  console.log(`batched: ${figures.batched.audio_seconds_per_wall_second} audio s per wall s (mean batch ${figures.batched.mean_batch_size})`);
  console.log(`ratio batched / batch 1: ${figures.ratio_batched_to_batch1}`);
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  const out = join(root, `bench/results/transcribe-throughput-${model.name}.json`);
  writeFileSync(out, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`figures written to ${out}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
