/**
 * What onnxruntime's busy-waiting pool threads cost: one model run at a time, as a live gateway
 * runs them (a turn, a pause, the next turn), with the session options the engines use
 * (`cpuSessionOptions`, idle threads sleep) against onnxruntime's default (idle threads spin).
 *
 * For each intra-op thread count (1 and 2) and each setting, interleaved over the repeats:
 * the wall time of a run and the process's CPU time (user + system, every thread) per run,
 * including what the spin burns after a run ends. Baseline in the same run: the spinning
 * default. Ratios are sleeping / spinning (CPU lower is better; wall near 1 means no latency
 * cost). Medians over the repeats.
 *
 *   npx tsx bench/onnx-thread-spinning.ts [repeats=5] [runs=100] [gapMs=5] [model=models/small-am-v2]
 * Writes bench/results/onnx-thread-spinning.json.
 */
import ort from 'onnxruntime-node';
import { join } from 'node:path';
import { cpuSessionOptions } from '../src/engines/runtime/onnx-session-options.js';
import { REPO_ROOT } from '../test/helpers/fixtures.js';
import { median, publishReport, ratio3, round2 } from './bench-results.js';

const REPEATS = Number(process.argv[2] ?? 5);
const RUNS = Number(process.argv[3] ?? 100);
const GAP_MS = Number(process.argv[4] ?? 5);
const MODEL_DIR = process.argv[5] ?? join(REPO_ROOT, 'models', 'small-am-v2');
/** One 3 s turn: 300 log-mel frames of 80 channels. */
const FRAMES = 300;
const MELS = 80;

interface Measured {
  readonly wallMs: number;
  readonly cpuMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function measure(session: ort.InferenceSession, feeds: Record<string, ort.Tensor>): Promise<Measured> {
  const before = process.cpuUsage();
  let wall = 0;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await session.run(feeds);
    wall += performance.now() - started;
    await sleep(GAP_MS);
  }
  const cpu = process.cpuUsage(before);
  return { wallMs: wall / RUNS, cpuMs: (cpu.user + cpu.system) / 1000 / RUNS };
}

async function main(): Promise<void> {
  const onnx = join(MODEL_DIR, 'model.onnx');
  const features = new Float32Array(FRAMES * MELS);
  for (let i = 0; i < features.length; i++) features[i] = Math.sin(i * 0.37) * 2;
  const feeds = {
    features: new ort.Tensor('float32', features, [1, FRAMES, MELS]),
    lengths: new ort.Tensor('int64', BigInt64Array.from([BigInt(FRAMES)]), [1]),
  };
  const rows: Record<string, unknown>[] = [];
  for (const threads of [1, 2]) {
    const sessions = {
      spinning: await ort.InferenceSession.create(onnx, cpuSessionOptions({ intraOpThreads: threads, sleepWhenIdle: false })),
      sleeping: await ort.InferenceSession.create(onnx, cpuSessionOptions({ intraOpThreads: threads })),
    };
    for (const session of Object.values(sessions)) for (let i = 0; i < 10; i++) await session.run(feeds);
    const got: Record<'spinning' | 'sleeping', Measured[]> = { spinning: [], sleeping: [] };
    for (let r = 0; r < REPEATS; r++) {
      for (const kind of r % 2 === 0 ? (['spinning', 'sleeping'] as const) : (['sleeping', 'spinning'] as const)) {
        got[kind].push(await measure(sessions[kind], feeds));
      }
    }
    const summary = (kind: 'spinning' | 'sleeping') => ({
      wall_ms_per_run: round2(median(got[kind].map((m) => m.wallMs))),
      cpu_ms_per_run: round2(median(got[kind].map((m) => m.cpuMs))),
    });
    const spinning = summary('spinning');
    const sleeping = summary('sleeping');
    rows.push({
      intra_op_threads: threads,
      spinning_default: spinning,
      sleeping_shipped: sleeping,
      cpu_ratio_sleeping_to_spinning: ratio3(sleeping.cpu_ms_per_run, spinning.cpu_ms_per_run),
      wall_ratio_sleeping_to_spinning: ratio3(sleeping.wall_ms_per_run, spinning.wall_ms_per_run),
    });
    await sessions.spinning.release();
    await sessions.sleeping.release();
  }
  publishReport('onnx-thread-spinning', {
    model: MODEL_DIR.replace(`${REPO_ROOT}/`, ''),
    input: `${FRAMES} frames x ${MELS} (one 3 s turn), batch 1`,
    runs_per_repeat: RUNS,
    repeats: REPEATS,
    gap_between_runs_ms: GAP_MS,
    rows,
  });
}

await main();
