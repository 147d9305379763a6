/**
 * Silero VAD batching benchmark (one run): per-stream cost of one 32 ms window when 32
 * streams are run as one batch, against one inference call per stream.
 *
 * Times are CPU time of the process (user + system, all threads), not wall time.
 *
 *  A. onnxruntime directly (SileroSession, the code the VAD worker runs, one intra-op
 *     thread): the 32 streams' windows in calls of 1, 4, 8, 16 and 32 rows, gather/scatter
 *     included; interleaved repeats, medians. Target: batch 32 / one at a time <= 0.4.
 *  B. End to end through SileroVad (worker thread, messaging, endpointing): 32 streams each
 *     with a backlog of audio, maxBatch 32 vs maxBatch 1.
 *  C. Where the time goes in a call: onnxruntime's own profile ("model_run") against the
 *     wall time of session.run() from JavaScript. The difference is what running the model
 *     natively through the onnxruntime C API could save per call.
 *
 *   nice -n 10 npx tsx bench/silero-batch.ts [repeats=7] [stepsPerRepeat=20]
 * Writes bench/results/silero-batch.json.
 */
import ort from 'onnxruntime-node';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SILERO_CONTEXT, SILERO_INPUT, SILERO_STATE, SILERO_WINDOW, sileroModelPath } from '../src/engines/vad/silero-model.js';
import { SileroSession } from '../src/engines/vad/silero-session.js';
import { SileroVad } from '../src/engines/vad/silero-vad.js';
import { nativeSpeech16k } from '../test/helpers/fixtures.js';
import { writeBenchResults } from './bench-results.js';

const REPEATS = Number(process.argv[2] ?? 7);
const STEPS = Number(process.argv[3] ?? 20);
const STREAMS = 32;

// Fixtures come from test/helpers/fixtures.ts (this file runs from bench/ under tsx or from
// dist/bench/ compiled).
const speech = nativeSpeech16k();
const windowsInFixture = Math.floor(speech.length / SILERO_WINDOW);
const windowOf = (stream: number, step: number) => {
  const w = (stream * 7 + step) % windowsInFixture;
  return speech.subarray(w * SILERO_WINDOW, (w + 1) * SILERO_WINDOW);
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// ------------------------------------------------------------------ A. direct
interface DirectResult {
  oneAtATimeUs: number;
  batchedUs: number;
  /** Per-stream µs when the 32 streams run in batches of this size. */
  byBatchSize: Record<string, number>;
  runs: Record<string, number[]>;
}

async function direct(): Promise<DirectResult> {
  const session = await SileroSession.create({ threads: 1 });
  // Per-stream state and context, as the worker keeps them.
  const states = Array.from({ length: STREAMS }, () => new Float32Array(2 * SILERO_STATE));
  const contexts = Array.from({ length: STREAMS }, () => new Float32Array(SILERO_CONTEXT));
  const batchInput = new Float32Array(STREAMS * SILERO_INPUT);
  const batchState = new Float32Array(2 * STREAMS * SILERO_STATE);
  let step = 0;

  // One step: every stream's next window, in groups of `size` streams per call (gather and
  // scatter of state and context included, as in the worker).
  const runStep = async (size: number) => {
    for (let first = 0; first < STREAMS; first += size) {
      const n = Math.min(size, STREAMS - first);
      for (let b = 0; b < n; b++) {
        const s = first + b;
        batchInput.set(contexts[s]!, b * SILERO_INPUT);
        batchInput.set(windowOf(s, step), b * SILERO_INPUT + SILERO_CONTEXT);
        batchState.set(states[s]!.subarray(0, SILERO_STATE), b * SILERO_STATE);
        batchState.set(states[s]!.subarray(SILERO_STATE), (n + b) * SILERO_STATE);
      }
      await session.run(n, batchInput, batchState);
      for (let b = 0; b < n; b++) {
        const s = first + b;
        states[s]!.set(batchState.subarray(b * SILERO_STATE, (b + 1) * SILERO_STATE), 0);
        states[s]!.set(batchState.subarray((n + b) * SILERO_STATE, (n + b + 1) * SILERO_STATE), SILERO_STATE);
        contexts[s]!.set(windowOf(s, step).subarray(SILERO_WINDOW - SILERO_CONTEXT));
      }
    }
    step++;
  };

  const sizes = [1, 4, 8, 16, 32];
  for (let i = 0; i < 3; i++) for (const size of sizes) await runStep(size);
  // CPU time of the process (the machine is shared; descheduled time is not ours).
  const cpuUs = (u: NodeJS.CpuUsage) => u.user + u.system;
  const runs: Record<string, number[]> = Object.fromEntries(sizes.map((b) => [String(b), []]));
  for (let r = 0; r < REPEATS; r++) {
    for (const size of sizes) {
      const t = process.cpuUsage();
      for (let k = 0; k < STEPS; k++) await runStep(size);
      runs[String(size)]!.push(cpuUs(process.cpuUsage(t)) / (STEPS * STREAMS));
    }
  }
  await session.release();
  const byBatchSize = Object.fromEntries(sizes.map((b) => [String(b), median(runs[String(b)]!)]));
  return { oneAtATimeUs: byBatchSize['1']!, batchedUs: byBatchSize['32']!, byBatchSize, runs };
}

// ------------------------------------------------------------------ B. worker pool
async function pool(maxBatch: number, seconds: number): Promise<{ usPerWindow: number; averageBatch: number; inferenceUsPerWindow: number }> {
  const vad = await SileroVad.create({ maxBatch, maxQueuedWindowsPerStream: 1 << 20 });
  const streams = Array.from({ length: STREAMS }, () => vad.openStream());
  const samples = Math.floor(seconds * 16000);
  // Warm-up.
  for (const [s, st] of streams.entries()) st.feed(speech.subarray(s * 100, s * 100 + 8 * SILERO_WINDOW));
  await vad.idle();
  const before = vad.stats;
  const t = process.cpuUsage(); // main thread + worker thread
  for (const [s, st] of streams.entries()) {
    for (let at = 0; at < samples; at += 4096) {
      const from = (s * 3001 + at) % (speech.length - 4096);
      st.feed(speech.subarray(from, from + Math.min(4096, samples - at)));
    }
  }
  await vad.idle();
  const used = process.cpuUsage(t);
  const elapsed = (used.user + used.system) / 1000;
  const after = vad.stats;
  const windows = after.windows - before.windows;
  await vad.close();
  return {
    usPerWindow: (elapsed * 1000) / windows,
    averageBatch: windows / (after.batches - before.batches),
    inferenceUsPerWindow: ((after.inferenceMs - before.inferenceMs) * 1000) / windows,
  };
}

// ------------------------------------------------------------------ C. profile
async function profile(batch: number, runs: number): Promise<{ wallUs: number; modelRunUs: number }> {
  const dir = join(tmpdir(), `silero-profile-${process.pid}-${batch}`);
  mkdirSync(dir, { recursive: true });
  const session = await ort.InferenceSession.create(sileroModelPath(), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableProfiling: true,
    profileFilePrefix: join(dir, 'silero'),
  });
  const sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
  const input = new Float32Array(batch * SILERO_INPUT);
  for (let b = 0; b < batch; b++) input.set(windowOf(b, 3), b * SILERO_INPUT + SILERO_CONTEXT);
  const state = new Float32Array(2 * batch * SILERO_STATE);
  const feeds = () => ({
    input: new ort.Tensor('float32', input, [batch, SILERO_INPUT]),
    state: new ort.Tensor('float32', state, [2, batch, SILERO_STATE]),
    sr,
  });
  for (let i = 0; i < 10; i++) await session.run(feeds());
  const walls: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await session.run(feeds());
    walls.push((performance.now() - t) * 1000);
  }
  session.endProfiling();
  await session.release();
  const file = readdirSync(dir).find((f) => f.endsWith('.json'));
  const events = JSON.parse(readFileSync(join(dir, file!), 'utf8')) as Array<{ name: string; dur?: number; cat?: string }>;
  rmSync(dir, { recursive: true, force: true });
  const modelRuns = events.filter((e) => e.name === 'model_run' && typeof e.dur === 'number').map((e) => e.dur!);
  // The profile holds the warm-up runs too: use the last `runs`.
  return { wallUs: median(walls), modelRunUs: median(modelRuns.slice(-runs)) };
}

const a = await direct();
const b32 = await pool(32, 8);
const b1 = await pool(1, 2);
const p1 = await profile(1, 200);
const p32 = await profile(32, 40);

const ratioDirect = a.batchedUs / a.oneAtATimeUs;
const ratioPool = b32.usPerWindow / b1.usPerWindow;
console.log(`Silero VAD v5, ${STREAMS} streams, 32 ms windows, one onnxruntime thread; CPU ${cpus()[0]?.model ?? ''}`);
console.log(
  `A. direct   per stream-window CPU µs by batch size: ` +
    Object.entries(a.byBatchSize)
      .map(([b, v]) => `${b}: ${v.toFixed(1)}`)
      .join(', ') +
    `  -> batch 32 / one at a time ${ratioDirect.toFixed(2)} (target <= 0.4)`,
);
console.log(
  `B. worker   maxBatch 1 ${b1.usPerWindow.toFixed(1)} µs/window (avg batch ${b1.averageBatch.toFixed(1)}), maxBatch 32 ${b32.usPerWindow.toFixed(1)} µs/window (avg batch ${b32.averageBatch.toFixed(1)}) -> ratio ${ratioPool.toFixed(2)}`,
);
console.log(`   real-time streams per VAD core at batch 32: ${(32000 / b32.usPerWindow).toFixed(0)} (one 32 ms window each)`);
console.log(
  `C. per call: batch 1 wall ${p1.wallUs.toFixed(1)} µs, onnxruntime model_run ${p1.modelRunUs.toFixed(1)} µs (JS binding + tensor setup ${(p1.wallUs - p1.modelRunUs).toFixed(1)} µs); ` +
    `batch 32 wall ${p32.wallUs.toFixed(1)} µs, model_run ${p32.modelRunUs.toFixed(1)} µs (${((p32.wallUs - p32.modelRunUs) / 32).toFixed(2)} µs per stream)`,
);

const results = {
  benchmark: 'silero-batch',
  date: new Date().toISOString(),
  cpu: cpus()[0]?.model ?? 'unknown',
  node: process.version,
  streams: STREAMS,
  direct: { ...a, ratio: ratioDirect },
  workerPool: { maxBatch1: b1, maxBatch32: b32, ratio: ratioPool },
  callProfile: {
    batch1: { ...p1, bindingOverheadUs: p1.wallUs - p1.modelRunUs },
    batch32: { ...p32, bindingOverheadUs: p32.wallUs - p32.modelRunUs },
  },
  target: { maxRatio: 0.4 },
};
writeBenchResults('silero-batch', results);
console.log('wrote bench/results/silero-batch.json');
