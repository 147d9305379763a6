/**
 * The server side of the WebSocket benchmarks, run as a child process of the load generator
 * (bench/ws-*.ts) so that the load never shares a process with the server.
 *
 *   argv[2] = 'gateway' | 'plain-ws'   argv[3] = JSON of environment overrides (gateway)
 *
 * IPC: sends {type:'ready', port, metricsUrl, key, model}; answers {type:'mark'} (resets the event-loop
 * histogram and the CPU baseline) with {type:'marked'}, {type:'stats'} with the event-loop
 * delay percentiles and CPU seconds since the mark, and {type:'stop'} by exiting.
 *
 * 'plain-ws' is the baseline of bench/ws-ingest.ts: a plain `ws` server doing the same ingest
 * work per connection (copy each binary message's 16-bit samples into a ring buffer with
 * memcpy, coalesced JSON acks every 100 ms, PING -> pong), without our native front end
 * (decoding, resampling, VAD, endpointing), limits or sessions.
 */
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { WebSocketServer, type WebSocket } from 'ws';
import type { PoolStats } from '../src/engines/asr/asr.js';
import type { SileroVadStats } from '../src/engines/vad/silero-vad.js';
import { loadConfig } from '../src/platform/config/config.js';
import { fixturePath } from '../test/helpers/fixtures.js';
import { startTestGateway } from '../test/helpers/test-gateway.js';

const mode = process.argv[2] ?? 'gateway';
const overrides = JSON.parse(process.argv[3] ?? '{}') as Record<string, string>;
const send = (message: unknown): void => void process.send!(message);

const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
let cpuMark = process.cpuUsage();
let wallMark = performance.now();
let eluMark = performance.eventLoopUtilization();
/** The main thread's garbage-collection pauses, in ms (the workers collect on their own threads). */
let gcMs = 0;
let gcMark = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

let stop: () => Promise<void> = async () => undefined;
/** Inference pool counters (gateway mode): batches and their sizes since the mark. */
let poolStats: () => PoolStats | null = () => null;
let poolMark: PoolStats | null = null;
/** The shared Silero VAD's counters (gateway mode, once a session started it: vad_type=silero or the speech gate). */
let sileroStats: () => Promise<SileroVadStats | null> = async () => null;
let sileroMark: SileroVadStats | null = null;
/** The event loop's seconds on live sessions by part (gateway mode: gateway_ws_main_thread_seconds_total, scraped). */
let mainThreadParts: () => Promise<Record<string, number> | null> = async () => null;
let mainThreadMark: Record<string, number> | null = null;

if (mode === 'plain-ws') {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 1024 * 1024 });
  const RING = 16_000 * 60;
  server.on('connection', (socket: WebSocket) => {
    // 16-bit samples copied with memcpy (Buffer.copy), the cheapest JS ingest.
    const ring = Buffer.alloc(RING * 2);
    let write = 0;
    let messages = 0;
    let bytes = 0;
    let total = 0;
    const timer = setInterval(() => {
      if (messages === 0) return;
      socket.send(JSON.stringify({ type: 'chunk_received', messages, bytes, total_bytes: total, stream_ms: Math.round(write / 16) }));
      messages = 0;
      bytes = 0;
    }, 100);
    socket.send(JSON.stringify({ type: 'ready', session_id: 'plain', format: 'pcm_s16le', sample_rate: 16000, job_id: 'none' }));
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) {
        if (data.toString() === 'PING') socket.send(JSON.stringify({ type: 'pong' }));
        if (data.toString() === 'END') socket.close(1000, 'end');
        return;
      }
      const samples = Math.floor(data.length / 2);
      const at = (write % RING) * 2;
      const first = Math.min(samples * 2, ring.length - at);
      data.copy(ring, at, 0, first);
      if (first < samples * 2) data.copy(ring, 0, first, samples * 2);
      write += samples;
      messages++;
      bytes += data.length;
      total += data.length;
    });
    socket.on('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  send({ type: 'ready', port, metricsUrl: null, key: 'none', model: 'none', workerPriority: 'none' });
} else {
  const started = await startTestGateway(
    {
      MODELS_DIR: process.env['MODELS_DIR'] ?? fixturePath('models'),
      INFERENCE_WORKERS: process.env['INFERENCE_WORKERS'] ?? '1',
      INFERENCE_INTRA_OP_THREADS: process.env['INFERENCE_INTRA_OP_THREADS'] ?? '0',
      // Set INFERENCE_WORKER_NICE=off to compare with workers at the event loop's priority.
      INFERENCE_WORKER_NICE: process.env['INFERENCE_WORKER_NICE'] ?? '10',
      WS_MAX_CONNECTIONS_PER_KEY: '100000',
      ALLOW_PRIVATE_NETWORK: 'false',
      // the production default (the test gateway pins the host CPU guard off for the suite)
      OVERLOAD_HOST_CPU_FULL_AT: process.env['OVERLOAD_HOST_CPU_FULL_AT'] ?? String(loadConfig({}).overload.hostCpuFullAt),
      // the overload and live-recognition settings of the bench's own environment (OVERLOAD_PARTIALS_OFF_AT, LIVE_FINAL_PASS, ...)
      ...Object.fromEntries(
        Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && /^(OVERLOAD_|LIVE_|WS_PARTIAL_)/.test(entry[0])),
      ),
      ...overrides,
    },
    { validateResponses: false, account: 'bench', dataDirPrefix: 'ws-bench-' },
  );
  const { gateway } = started;
  const { config } = gateway;
  const key = await started.key({ scopes: ['write'] });
  const models = gateway.engines.asr.models().filter((m) => m.isDefault);
  poolStats = () => gateway.engines.asr.poolStats();
  // Started by the first session that needs it; read without starting it.
  const vad = gateway.engines.vad;
  sileroStats = async () => (vad.started ? (await vad.shared()).stats : null);
  const metricsUrl = started.metricsUrl;
  if (metricsUrl !== null)
    mainThreadParts = async () => {
      const text = await (await fetch(metricsUrl)).text();
      const parts: Record<string, number> = {};
      for (const m of text.matchAll(/^gateway_ws_main_thread_seconds_total\{[^}]*part="([a-z_]+)"[^}]*\} (\S+)$/gm)) parts[m[1]!] = Number(m[2]);
      return parts;
    };
  stop = () => started.close();
  send({
    type: 'ready',
    port: gateway.port,
    metricsUrl: started.metricsUrl,
    key,
    model: models.map((m) => `${m.name} (${m.description ?? 'no description'})`).join('; '),
    workerPriority: config.inferenceWorkerNice === null ? 'event-loop priority' : `nice ${config.inferenceWorkerNice}, SCHED_BATCH`,
  });
}

process.on('message', async (message: { type: string }) => {
  if (message.type === 'mark') {
    sileroMark = await sileroStats();
    mainThreadMark = await mainThreadParts();
    loop.reset();
    poolMark = poolStats();
    eluMark = performance.eventLoopUtilization();
    cpuMark = process.cpuUsage();
    wallMark = performance.now();
    gcMark = gcMs;
    send({ type: 'marked' });
  } else if (message.type === 'stats') {
    const cpu = process.cpuUsage(cpuMark);
    send({
      type: 'stats',
      eventLoopMs: {
        p50: loop.percentile(50) / 1e6,
        p99: loop.percentile(99) / 1e6,
        max: loop.max / 1e6,
        mean: loop.mean / 1e6,
      },
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      eventLoopUtilization: Math.round(performance.eventLoopUtilization(eluMark).utilization * 1000) / 1000,
      wallSeconds: (performance.now() - wallMark) / 1000,
      gcSeconds: (gcMs - gcMark) / 1000,
      rssMb: Math.round(process.memoryUsage().rss / 1e6),
      pool: poolDelta(poolMark, poolStats()),
      silero: sileroDelta(sileroMark, await sileroStats()),
      mainThreadParts: partsDelta(mainThreadMark, await mainThreadParts()),
    });
  } else if (message.type === 'stop') {
    void stop().finally(() => process.exit(0));
  }
});

function sileroDelta(before: SileroVadStats | null, after: SileroVadStats | null) {
  if (after === null) return null;
  const windows = after.windows - (before?.windows ?? 0);
  const batches = after.batches - (before?.batches ?? 0);
  const inferenceMs = after.inferenceMs - (before?.inferenceMs ?? 0);
  return { windows, batches, mean_batch: batches === 0 ? 0 : Math.round((windows / batches) * 10) / 10, inference_ms: Math.round(inferenceMs) };
}

function poolDelta(before: PoolStats | null, after: PoolStats | null) {
  if (before === null || after === null) return null;
  const batches = after.batches - before.batches;
  const requests = after.completedRequests - before.completedRequests;
  const sizes: Record<number, number> = {};
  for (const [size, n] of Object.entries(after.batchSizes)) {
    const d = n - (before.batchSizes[Number(size)] ?? 0);
    if (d > 0) sizes[Number(size)] = d;
  }
  return {
    batches,
    requests,
    mean_batch_size: batches === 0 ? 0 : Math.round((requests / batches) * 100) / 100,
    batch_sizes: sizes,
    mean_queue_wait_ms: requests === 0 ? 0 : Math.round(((after.totalQueueWaitMs - before.totalQueueWaitMs) / requests) * 10) / 10,
    mean_run_ms: batches === 0 ? 0 : Math.round(((after.totalRunMs - before.totalRunMs) / batches) * 10) / 10,
    // Worker time per batch around the model run: features from PCM, then CTC decoding.
    mean_prepare_ms: batches === 0 ? 0 : Math.round(((after.totalPrepareMs - before.totalPrepareMs) / batches) * 10) / 10,
    mean_decode_ms: batches === 0 ? 0 : Math.round(((after.totalDecodeMs - before.totalDecodeMs) / batches) * 10) / 10,
    rejected_busy: after.rejectedBusy - before.rejectedBusy,
    // worker time in all, by part: whole-piece runs (partials re-running the turn, turns, finals)
    // and live streams' steps (issue 30)
    rows_ms: {
      features: Math.round(after.totalPrepareMs - before.totalPrepareMs),
      model: Math.round(after.totalRunMs - before.totalRunMs),
      decoder: Math.round(after.totalDecodeMs - before.totalDecodeMs),
    },
    stream_steps: {
      steps: after.streams.steps - before.streams.steps,
      batches: after.streams.batches - before.streams.batches,
      features_ms: Math.round(after.streams.featuresMs - before.streams.featuresMs),
      model_ms: Math.round(after.streams.modelMs - before.streams.modelMs),
      decoder_ms: Math.round(after.streams.decodeMs - before.streams.decodeMs),
    },
  };
}

/** Seconds by part since the mark. */
function partsDelta(mark: Record<string, number> | null, now: Record<string, number> | null): Record<string, number> | null {
  if (now === null) return null;
  return Object.fromEntries(Object.entries(now).map(([part, seconds]) => [part, seconds - (mark?.[part] ?? 0)]));
}
