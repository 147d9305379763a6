/**
 * Text translation benchmark: sentences per second and latency of POST /translate/v1 for one
 * 20-word English sentence (en -> am, greedy, as the endpoint decodes), sent one at a time
 * (concurrency 1) and by 16 concurrent clients (the engine batches their sentences), against
 * one gateway serving the shipped model's network (models/translate-am-en-ti-v1, TRANSLATION_TRANSFER=off), in one run. The clients
 * and the gateway share this process, so the event-loop delay it reports bounds what model work
 * would add if it ran on the loop. Prints the figures and their ratios and writes
 * bench/results/translate-text.json.
 *
 *   npm run bench:translate [-- requests-per-level=96]
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestGateway } from '../test/helpers/test-gateway.js';
import { REPO_MODELS_DIR, TRANSLATION_MODEL_DIR, TWENTY_WORDS } from '../test/helpers/translation-model.js';
import { publishReport, ratio3 } from './bench-results.js';

const requestsPerLevel = Number(process.argv[2] ?? 96);

interface Level {
  readonly concurrency: number;
  readonly requests: number;
  readonly sentencesPerSecond: number;
  readonly latencyP50Ms: number;
  readonly latencyP95Ms: number;
  readonly meanBatchSize: number;
  /** The gateway's event-loop delay while the level ran (model work runs in the worker thread). */
  readonly eventLoopDelayP99Ms: number;
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round1 = (x: number): number => Math.round(x * 10) / 10;

async function main(): Promise<void> {
  const started = await startTestGateway(
    // The network's batching is measured: the shipped folder answers en -> am from its phrase table otherwise.
    { MODELS_DIR: REPO_MODELS_DIR, RATE_LIMIT_PER_MINUTE: '1000000', INFERENCE_WORKERS: '1', TRANSLATION_TRANSFER: 'off' },
    { validateResponses: false, account: 'bench', dataDirPrefix: 'bench-translate-' },
  );
  const engine = started.gateway.backends.translation;
  if (engine === null) throw new Error('the gateway has no translation model (models/translate-am-en-ti-v1)');
  const key = await started.key({ limits: { requestsPerMinute: 1_000_000_000 } });
  const body = new URLSearchParams({ key, text: TWENTY_WORDS, src_lang: 'en', tgt_lang: 'am' }).toString();
  const once = async (): Promise<number> => {
    const t0 = performance.now();
    const response = await fetch(`${started.url}/translate/v1`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    const answer = (await response.json()) as { tgt_text?: string };
    if (response.status !== 200 || !answer.tgt_text) throw new Error(`status ${response.status}: ${JSON.stringify(answer)}`);
    return performance.now() - t0;
  };
  const stats = (): { batches: number; sentences: number } => {
    const s = (engine as unknown as { stats(): { batches: number; sentences: number } }).stats();
    return { batches: s.batches, sentences: s.sentences };
  };
  try {
    for (let i = 0; i < 8; i++) await once(); // warm-up
    // The loop's delay with nothing to do, on this machine at this moment (other processes share the cores).
    const idle = monitorEventLoopDelay({ resolution: 5 });
    idle.enable();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    idle.disable();
    const levels: Level[] = [];
    for (const concurrency of [1, 16]) {
      const latencies: number[] = [];
      let next = 0;
      const before = stats();
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < requestsPerLevel) {
            next++;
            latencies.push(await once());
          }
        }),
      );
      const elapsed = (performance.now() - t0) / 1000;
      loop.disable();
      const after = stats();
      latencies.sort((a, b) => a - b);
      levels.push({
        concurrency,
        requests: latencies.length,
        sentencesPerSecond: round1(latencies.length / elapsed),
        latencyP50Ms: round1(percentile(latencies, 50)),
        latencyP95Ms: round1(percentile(latencies, 95)),
        meanBatchSize: round1((after.sentences - before.sentences) / Math.max(1, after.batches - before.batches)),
        eventLoopDelayP99Ms: round1(loop.percentile(99) / 1e6),
      });
    }
    const [single, batched] = levels as [Level, Level];
    publishReport('translate-text', {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: availableParallelism(),
      model: engine.name,
      modelCheckpointStep:
        (JSON.parse(readFileSync(join(TRANSLATION_MODEL_DIR, 'manifest.json'), 'utf8')) as { training?: { checkpoint_step?: number } }).training
          ?.checkpoint_step ?? null,
      sentence: TWENTY_WORDS,
      direction: 'en-am',
      decoding: 'greedy',
      idleEventLoopDelayP99Ms: round1(idle.percentile(99) / 1e6),
      levels,
      ratios: {
        throughputBatchedOverSingle: ratio3(batched.sentencesPerSecond, single.sentencesPerSecond),
        p95BatchedOverSingle: ratio3(batched.latencyP95Ms, single.latencyP95Ms),
      },
    });
  } finally {
    await started.close();
  }
}

await main();
