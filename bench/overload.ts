/**
 * Graceful overload at twice the measured capacity. The gateway estimates its live capacity from
 * the inference cost it measures (docs/streaming.md "Overload"); this bench reads that estimate
 * under a calibration load, then tries to open twice as many sessions, ramped, each speaking
 * half the time (3 s speech, 3 s quiet, real time, 100 ms chunks, partial_results=true).
 * Reports: sessions admitted and refused (1013 server_overloaded with retry_after), the admitted
 * streams' turn latency beyond the endpoint silence (target p95 <= 300 ms), turns detected vs
 * sent, the overload level over time, partials skipped, the interim results the admitted sessions got per
 * second of speech (beside the calibration's light load in the same run), and the server's CPU.
 *
 *   npm run build && nice -n 10 node dist/bench/overload.js [maxStreams=600] [rampSeconds=20] [cycles=3]
 *   MODELS_DIR=models ...    # the shipped small models (default: the untrained fixture models)
 *
 *   LIVE_INCREMENTAL_PARTIALS=on|off MODEL=small-am-stream-v1 ...   # partials from live streams or by re-running the turn; a model by name
 *   LIVE_FINAL_PASS=stream ...   # turns from the live streams' frames (no second pass)
 *   LIVE_PARTIAL_MODELS=small-am-v2=small-am-stream-v3 ...   # partials from another model's live stream
 *   LIVE_PARTIAL_TAIL_BEAM=16 ...   # the beam over each partial's provisional tail (0: the model's)
 *   OVERLOAD_HOST_CPU_FULL_AT=0 ...   # the host CPU guard (default 0.9; 0: off; docs/streaming.md "Overload")
 *   INFERENCE_INTRA_OP_THREADS=1 ...   # onnxruntime threads per worker (default: cores / workers)
 *
 * Results go to bench/results/overload-<model>[-incremental-on|off].json, with `server_time_parts_ms`:
 * the server's turn latency, piece, piece-wait (session queue, speech verdict), inference queue-wait
 * and run histograms over the loaded phase.
 */
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../src/platform/config/config.js';
import { writeBenchResults } from './bench-results.js';
import { histogramBetween } from './prom-histogram.js';
import { LiveStream, modelFileName, percentile, reportHeader, round1, sleep, speakingStream, startServer, type BenchServer } from './ws-bench-common.js';

const maxStreams = Number(process.argv[2] ?? 600);
const rampSeconds = Number(process.argv[3] ?? 20);
const cycles = Number(process.argv[4] ?? 3);
const ENDPOINT_SILENCE_MS = 500;
const CALIBRATION_STREAMS = 20;

async function scrape(server: BenchServer): Promise<Record<string, number>> {
  const text = await (await fetch(server.metricsUrl!)).text();
  const read = (name: string, labels = ''): number => {
    const line = text.split('\n').find((l) => l.startsWith(name + '{') && l.includes(labels));
    return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return {
    level: read('gateway_overload_level'),
    utilization: round1(read('gateway_inference_utilization_ratio') * 100)! / 100,
    demand: round1(read('gateway_inference_demand_ratio') * 100)! / 100,
    hostCpu: round1(read('gateway_host_cpu_utilization_ratio') * 100)! / 100,
    capacity: read('gateway_stream_capacity_sessions'),
    sessions: read('gateway_ws_sessions'),
    cost: read('gateway_inference_cost_ratio'),
    partialsSkipped: read('gateway_ws_partials_skipped_total'),
    refusedOverload: read('gateway_rejections_total', 'reason="server_overloaded"'),
  };
}

type Outcome = 'ready' | 'refused' | 'failed';

function outcome(stream: LiveStream): Promise<Outcome> {
  // a refused session closes before `ready`, which rejects `opened` first: its close code says why
  const closedOutcome = (): Promise<Outcome> => stream.closed.then(() => (stream.closeCode === 1013 ? 'refused' : 'failed'));
  return Promise.race([stream.opened.then(() => 'ready' as const, closedOutcome), closedOutcome()]);
}

/** Streams open as they are admitted and speak at real time from then on; END after their last chunk. */
async function load(server: BenchServer, attempts: number, rampMs: number, url: string, sampleEveryMs: number) {
  const admitted: LiveStream[] = [];
  const ended = new Set<LiveStream>();
  const results: Promise<Outcome>[] = [];
  const timeline: Record<string, number>[] = [];
  const driver = setInterval(() => {
    const now = performance.now();
    for (const s of admitted) {
      if (ended.has(s)) continue;
      if (s.tick(now)) {
        ended.add(s);
        if (s.socket.readyState === s.socket.OPEN) s.socket.send('END');
      }
    }
  }, 10);
  const started = performance.now();
  const sampler = setInterval(() => {
    void scrape(server).then(
      (m) => timeline.push({ t: Math.round((performance.now() - started) / 1000), ...m }),
      () => undefined,
    );
  }, sampleEveryMs);
  for (let i = 0; i < attempts; i++) {
    const stream = new LiveStream(url, server.key, speakingStream(cycles, i + 1));
    results.push(
      outcome(stream).then((o) => {
        if (o === 'ready') {
          stream.startAt = performance.now();
          admitted.push(stream);
        }
        return o;
      }),
    );
    await sleep(rampMs / attempts);
  }
  const outcomes = await Promise.all(results);
  while (ended.size < admitted.length) await sleep(100);
  await Promise.race([Promise.all(admitted.map((s) => s.closed)), sleep(60_000)]);
  clearInterval(driver);
  clearInterval(sampler);
  return { admitted, outcomes, timeline };
}

const header = reportHeader('overload');
const incremental = process.env['LIVE_INCREMENTAL_PARTIALS'] ?? null;
const finalPass = process.env['LIVE_FINAL_PASS'] ?? null;
const modelName = process.env['MODEL'] ?? null;
const partialModels = process.env['LIVE_PARTIAL_MODELS'] ?? null;
const tailBeam = process.env['LIVE_PARTIAL_TAIL_BEAM'] ?? null;
const hostCpuFullAt = process.env['OVERLOAD_HOST_CPU_FULL_AT'] ?? null;
const intraOpThreads = process.env['INFERENCE_INTRA_OP_THREADS'] ?? null;
const server = await startServer('gateway', {
  WS_ENDPOINT_SILENCE_MS: String(ENDPOINT_SILENCE_MS),
  METRICS_ENABLED: 'true',
  ...(incremental === null ? {} : { LIVE_INCREMENTAL_PARTIALS: incremental }),
  ...(finalPass === null ? {} : { LIVE_FINAL_PASS: finalPass }),
  ...(partialModels === null ? {} : { LIVE_PARTIAL_MODELS: partialModels }),
  ...(tailBeam === null ? {} : { LIVE_PARTIAL_TAIL_BEAM: tailBeam }),
  ...(hostCpuFullAt === null ? {} : { OVERLOAD_HOST_CPU_FULL_AT: hostCpuFullAt }),
});
/** Partial messages per second of speech (3 s a cycle) the streams received; null for none. */
function partialsPerSpeechSecond(streams: readonly LiveStream[], speechCycles: number): number | null {
  if (streams.length === 0) return null;
  return Math.round((100 * streams.reduce((n, s) => n + s.partials, 0)) / (streams.length * speechCycles * 3)) / 100;
}

const url =
  `ws://127.0.0.1:${server.port}/v1/ws/transcribe?turn_detection=server_vad&format=pcm_s16le&partial_results=true` +
  (modelName === null ? '' : `&model=${encodeURIComponent(modelName)}`);
console.log(`model: ${server.model}`);
try {
  // Calibration: a light load, long enough for turns to be recognised and measured.
  let calibrationPartials: number | null = null;
  const calibration = await (async () => {
    const streams = Array.from({ length: CALIBRATION_STREAMS }, (_, i) => new LiveStream(url, server.key, speakingStream(2, 1000 + i)));
    await Promise.all(streams.map((s) => s.opened));
    const start = performance.now();
    streams.forEach((s, i) => (s.startAt = start + ((i * 7919) % 6000)));
    const timer = setInterval(() => {
      const now = performance.now();
      for (const s of streams) s.tick(now);
    }, 10);
    await sleep(17_000);
    const estimate = await scrape(server);
    clearInterval(timer);
    for (const s of streams) s.socket.send('END');
    await Promise.race([Promise.all(streams.map((s) => s.closed)), sleep(30_000)]);
    calibrationPartials = partialsPerSpeechSecond(streams, 2);
    return estimate;
  })();
  console.log('calibration with', CALIBRATION_STREAMS, 'streams:', JSON.stringify(calibration));
  await sleep(15_000); // let the measured load decay (half-life 5 s)
  const capacity = Number.isFinite(calibration['capacity']) ? calibration['capacity']! : maxStreams / 2;
  const attempts = Math.min(maxStreams, Math.max(2, Math.round(2 * capacity)));
  console.log(
    `trying ${attempts} sessions over ${rampSeconds} s (2 x the estimated capacity of ${capacity}${attempts < 2 * capacity ? `, capped at ${maxStreams}` : ''})`,
  );
  await server.mark();
  const metricsAt = async (): Promise<string> => (await fetch(server.metricsUrl!)).text();
  const metricsBefore = await metricsAt();
  const run = await load(server, attempts, rampSeconds * 1000, url, 2_000);
  const stats = await server.stats();
  const final = await scrape(server);
  const metricsAfter = await metricsAt();
  // Where the loaded phase's time went, from the server's histograms (ms; quantiles are bucket upper bounds).
  const between = (name: string) => histogramBetween(metricsBefore, metricsAfter, name, 1000);
  const timeParts = {
    turn_latency: between('gateway_ws_turn_latency_seconds'),
    piece_queue_and_recognition: between('gateway_ws_piece_seconds'),
    // of which: cut to start (behind the session's piece in flight), and the speech gate's verdict
    piece_wait: between('gateway_ws_piece_wait_seconds'),
    inference_queue_wait: between('inference_queue_wait_seconds'),
    inference_run: between('inference_run_seconds'),
  };
  const beyond = run.admitted.flatMap((s) => s.turns.map((t) => t.endOfSpeechToTurnMs - ENDPOINT_SILENCE_MS));
  // The server's own figure (arrival of the turn's last audio to its message): without the load generator's delays.
  const serverLatency = run.admitted.flatMap((s) => s.turns.map((t) => t.serverLatencyMs));
  const count = (o: Outcome): number => run.outcomes.filter((x) => x === o).length;
  const closeCodes: Record<string, number> = {};
  for (const s of run.admitted) closeCodes[String(s.closeCode)] = (closeCodes[String(s.closeCode)] ?? 0) + 1;
  const p95 = round1(percentile(beyond, 0.95));
  const admittedPartials = partialsPerSpeechSecond(run.admitted, cycles);
  const result = {
    ...header(),
    model: server.model,
    endpoint_silence_ms: ENDPOINT_SILENCE_MS,
    speaking: `3 s speech / 3 s quiet x ${cycles}, real time, partial_results=true`,
    calibration: { streams: CALIBRATION_STREAMS, ...calibration },
    attempted: attempts,
    ramp_seconds: rampSeconds,
    admitted: count('ready'),
    refused_1013: count('refused'),
    failed_otherwise: count('failed'),
    admitted_turns: { expected: count('ready') * cycles, detected: beyond.length },
    admitted_end_of_speech_to_turn_beyond_silence_ms: {
      p50: round1(percentile(beyond, 0.5)),
      p95,
      p99: round1(percentile(beyond, 0.99)),
      max: round1(percentile(beyond, 1)),
    },
    admitted_server_reported_latency_ms: { p50: percentile(serverLatency, 0.5), p95: percentile(serverLatency, 0.95), max: percentile(serverLatency, 1) },
    // interim results received per second of speech: the admitted sessions against the calibration's light load
    partials_per_speech_second: {
      calibration: calibrationPartials,
      admitted: admittedPartials,
      ratio:
        calibrationPartials !== null && admittedPartials !== null && calibrationPartials > 0
          ? Math.round((100 * admittedPartials) / calibrationPartials) / 100
          : null,
    },
    admitted_close_codes: closeCodes,
    admitted_errors: run.admitted.flatMap((s) => s.errors),
    dropped_audio_ms: run.admitted.reduce((n, s) => n + ((s.stats?.['dropped_audio_ms'] as number | undefined) ?? 0), 0),
    overload_timeline: run.timeline,
    server_time_parts_ms: timeParts,
    final_metrics: final,
    server: { cpu_cores_busy: round1(stats.cpuSeconds / stats.wallSeconds), event_loop_delay_ms_p99: round1(stats.eventLoopMs.p99), rss_mb: stats.rssMb },
    target: { p95_beyond_silence_ms: 300, met: p95 !== null && p95 <= 300 && count('refused') > 0 },
  };
  const variant =
    (modelName === null ? modelFileName(server.model) : modelFileName(modelName)) +
    (incremental === null ? '' : `-incremental-${incremental}`) +
    (finalPass === null ? '' : `-final-${finalPass}`) +
    (partialModels === null ? '' : `-partials-${modelFileName(partialModels.split('=')[1] ?? partialModels)}`) +
    (tailBeam === null ? '' : `-tail-beam-${modelFileName(tailBeam)}`) +
    (hostCpuFullAt === null ? '' : `-host-cpu-${modelFileName(hostCpuFullAt)}`) +
    (intraOpThreads === null ? '' : `-intra-op-${modelFileName(intraOpThreads)}`);
  const out = writeBenchResults(`overload-${variant}`, {
    ...result,
    live_incremental_partials: incremental ?? 'default',
    live_final_pass: finalPass ?? 'default',
    live_partial_models: partialModels ?? 'none',
    overload_host_cpu_full_at: hostCpuFullAt ?? `default (${loadConfig({}).overload.hostCpuFullAt})`,
    session_model: modelName ?? 'default',
    inference_intra_op_threads: intraOpThreads ?? 'default (automatic)',
  });
  console.log(JSON.stringify({ ...result, overload_timeline: undefined }, null, 1));
  console.log(
    `${attempts} sessions tried (2x capacity ${capacity}): ${result.admitted} admitted, ${result.refused_1013} refused with 1013, ${result.failed_otherwise} other; ` +
      `admitted p95 end of speech -> turn beyond ${ENDPOINT_SILENCE_MS} ms: ${p95} ms; turns ${beyond.length}/${result.admitted_turns.expected}; ` +
      `partials per speech second ${admittedPartials} (calibration ${calibrationPartials}). Wrote ${out}`,
  );
} finally {
  await server.stop();
}
