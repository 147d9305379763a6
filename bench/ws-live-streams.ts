/**
 * Live streams: N concurrent WebSocket sessions (turn_detection=server_vad, energy VAD), each
 * sending 16 kHz PCM at real time in 100 ms chunks and speaking half the time (3 s of speech, 3 s
 * of quiet). Measures, per detected turn, the time from the send of the chunk holding the end of
 * speech (as the server's turn end reports it) to the turn_detected message, minus the configured
 * endpoint silence (target: p95 within 300 ms), and checks that no audio was dropped (every
 * byte acknowledged, session_stats.dropped_audio_ms = 0, every turn detected).
 *
 * The server runs in its own process (bench/ws-bench-server.ts); this process is the load.
 * Baseline in the same run: one stream alone, same audio, so the ratio shows what N streams
 * cost each turn's latency.
 *
 *   npm run bench:ws-live -- [streams=100] [cycles=5]
 *   MODELS_DIR=/tmp/bench-models npm run bench:ws-live      # a model with the planned small models' compute profile
 *   LIVE_SPEECH_GATE=off MODELS_DIR=models npm run bench:ws-live   # the gate's cost: run with off and on, alternating
 *   PARTIALS=1 LIVE_INCREMENTAL_PARTIALS=on|off MODEL=small-am-stream-v1 MODELS_DIR=models npm run bench:ws-live
 *       # interim results every WS_PARTIAL_INTERVAL_MS (500) from live streams (on) or by re-running the open turn (off)
 *   PARTIALS=1 LIVE_PARTIAL_TAIL_BEAM=0|8 MODELS_DIR=models npm run bench:ws-live   # the partials' tail beam (0: the model's)
 *       # with PARTIALS=1 it also prints the partials each stream got against one stream alone (every
 *       # partial due); the target then needs at least 0.9 of them. OVERLOAD_*, LIVE_* and WS_PARTIAL_*
 *       # settings in this environment reach the server (e.g. OVERLOAD_PARTIALS_MAX_STRIDE=0)
 *
 * Model: MODELS_DIR, else the UNTRAINED fixture models; the output names the model that ran and
 * the results go to bench/results/ws-live-streams-<model>.json (-gate-on / -gate-off with LIVE_SPEECH_GATE set).
 */
import { writeBenchResults } from './bench-results.js';
import {
  LiveStream,
  modelFileName,
  openHonouringRefusals,
  percentile,
  reportHeader,
  round1,
  runRealTime,
  sleep,
  speakingStream,
  startServer,
  type BenchServer,
  type ServerStats,
} from './ws-bench-common.js';

const streamsWanted = Number(process.argv[2] ?? 100);
const cycles = Number(process.argv[3] ?? 5);
const ENDPOINT_SILENCE_MS = 500;
/** PARTIALS=1: the share of the interim results one stream alone gets that each loaded stream must get. */
const MIN_PARTIALS_DELIVERED = 0.9;

// PARTIALS=1: the sessions ask for interim results; MODEL: a model by name (else the language's default).
const partials = process.env['PARTIALS'] === '1';
const modelName = process.env['MODEL'] ?? null;
const incremental = process.env['LIVE_INCREMENTAL_PARTIALS'] ?? null;
const tailBeam = process.env['LIVE_PARTIAL_TAIL_BEAM'] ?? null;

async function run(server: BenchServer, count: number) {
  const url =
    `ws://127.0.0.1:${server.port}/v1/ws/transcribe?turn_detection=server_vad&format=pcm_s16le` +
    (partials ? '&partial_results=true' : '') +
    (modelName === null ? '' : `&model=${encodeURIComponent(modelName)}`);
  // Refused sessions (1013, e.g. OVERLOAD_HOST_CPU_FULL_AT while a burst connects) retry after retry_after.
  const { streams, admission } = await openHonouringRefusals(count, (i) => new LiveStream(url, server.key, speakingStream(cycles, i + 1)));
  if (streams.length === 0) throw new Error(`none of ${count} streams was admitted (${admission.refusals} refusals)`);
  await server.mark();
  await runRealTime(streams, 6_000);
  for (const s of streams) s.socket.send('END');
  await Promise.race([Promise.all(streams.map((s) => s.closed)), sleep(60_000)]);
  const stats = await server.stats();
  const beyond = streams.flatMap((s) => s.turns.map((t) => t.endOfSpeechToTurnMs - ENDPOINT_SILENCE_MS));
  const serverLatency = streams.flatMap((s) => s.turns.map((t) => t.serverLatencyMs));
  const expectedTurns = streams.length * cycles;
  const detected = streams.reduce((n, s) => n + s.turns.length, 0);
  const unacknowledged = streams.filter((s) => s.lastAckBytes !== s.bytesSent).length;
  const droppedAudioMs = streams.reduce((n, s) => n + ((s.stats?.['dropped_audio_ms'] as number | undefined) ?? 0), 0);
  const streamHours = (streams.length * streams[0]!.chunks.length) / 10 / 3600;
  return {
    streams: count,
    streams_admitted: streams.length,
    admission: {
      refusals: admission.refusals,
      streams_refused: admission.streamsRefused,
      streams_never_admitted: admission.neverAdmitted,
      open_seconds: admission.openSeconds,
    },
    audio_seconds_per_stream: streams[0]!.chunks.length / 10,
    turns_expected: expectedTurns,
    turns_detected: detected,
    end_of_speech_to_turn_beyond_silence_ms: {
      p50: round1(percentile(beyond, 0.5)),
      p95: round1(percentile(beyond, 0.95)),
      p99: round1(percentile(beyond, 0.99)),
      max: round1(percentile(beyond, 1)),
    },
    server_reported_latency_ms_p95: percentile(serverLatency, 0.95),
    dropped_audio_ms: droppedAudioMs,
    streams_with_unacknowledged_audio: unacknowledged,
    streams_without_session_stats: streams.filter((s) => s.stats === null).length,
    lag_messages: streams.reduce((n, s) => n + s.lagMessages, 0),
    partial_messages: streams.reduce((n, s) => n + s.partials, 0),
    partials_per_stream: round1(streams.reduce((n, s) => n + s.partials, 0) / streams.length),
    errors: streams.flatMap((s) => s.errors),
    close_codes: [...new Set(streams.map((s) => s.closeCode))],
    server: {
      cpu_seconds: round1(stats.cpuSeconds),
      cpu_cores_busy: round1(stats.cpuSeconds / stats.wallSeconds),
      main_thread_utilization: stats.eventLoopUtilization,
      event_loop_delay_ms: { p50: round1(stats.eventLoopMs.p50), p99: round1(stats.eventLoopMs.p99), max: round1(stats.eventLoopMs.max) },
      rss_mb: stats.rssMb,
      inference_pool: stats.pool,
      silero: stats.silero ?? null,
      cpu_seconds_per_stream_hour: cpuPerStreamHour(stats, streamHours),
    },
  };
}

/**
 * CPU seconds per stream-hour by component: the event loop's timed parts (main-thread-parts.ts),
 * its garbage collection, the rest of its busy time (uWebSockets.js I/O, worker messages, promise
 * continuations), the inference workers' parts (pool figures) and Silero's worker, and
 * the process total (everything, GC and threads included).
 */
function cpuPerStreamHour(stats: ServerStats, streamHours: number): Record<string, number> {
  const per = (seconds: number): number => round1(seconds / streamHours)!;
  const parts = stats.mainThreadParts ?? {};
  const timed = Object.values(parts).reduce((a, b) => a + b, 0);
  const busy = stats.eventLoopUtilization * stats.wallSeconds;
  const out: Record<string, number> = {};
  for (const [part, seconds] of Object.entries(parts)) out[`event_loop_${part}`] = per(seconds);
  // A pause that falls inside a timed part counts in that part too, so `other` is a lower bound.
  const gc = stats.gcSeconds ?? 0;
  out['event_loop_gc'] = per(gc);
  out['event_loop_other'] = per(Math.max(0, busy - timed - gc));
  // Worker time: whole-piece rows (turns, finals, re-run partials) and live streams' steps, by part.
  const pool = (stats.pool ?? {}) as { rows_ms?: Record<string, number>; stream_steps?: Record<string, number> };
  for (const part of ['features', 'model', 'decoder']) {
    const ms = (pool.rows_ms?.[part] ?? 0) + (pool.stream_steps?.[`${part}_ms`] ?? 0);
    out[`inference_${part}`] = per(ms / 1000);
  }
  const silero = stats.silero as { inference_ms?: number } | null | undefined;
  if (typeof silero?.inference_ms === 'number') out['silero_inference'] = per(silero.inference_ms / 1000);
  out['process_total'] = per(stats.cpuSeconds);
  return out;
}

const header = reportHeader('ws-live-streams');
// LIVE_SPEECH_GATE=on|off in this process's environment sets the server's (its default otherwise), to measure the gate's cost.
const liveSpeechGate = process.env['LIVE_SPEECH_GATE'] ?? null;
const server = await startServer('gateway', {
  WS_ENDPOINT_SILENCE_MS: String(ENDPOINT_SILENCE_MS),
  ...(liveSpeechGate === null ? {} : { LIVE_SPEECH_GATE: liveSpeechGate }),
  ...(incremental === null ? {} : { LIVE_INCREMENTAL_PARTIALS: incremental }),
  ...(tailBeam === null ? {} : { LIVE_PARTIAL_TAIL_BEAM: tailBeam }),
});
console.log(`model: ${server.model}`);
try {
  const baseline = await run(server, 1);
  console.log('1 stream (baseline):', JSON.stringify(baseline.end_of_speech_to_turn_beyond_silence_ms));
  const loaded = await run(server, streamsWanted);
  console.log(`${streamsWanted} streams:`, JSON.stringify(loaded, null, 1));
  const p95 = loaded.end_of_speech_to_turn_beyond_silence_ms.p95;
  // the interim results each loaded stream got, against the one stream alone (every partial due)
  const partialsDelivered =
    partials && baseline.partials_per_stream !== null && baseline.partials_per_stream > 0
      ? Math.round((100 * (loaded.partials_per_stream ?? 0)) / baseline.partials_per_stream) / 100
      : null;
  const result = {
    ...header(),
    model: server.model,
    inference_worker_priority: server.workerPriority,
    endpoint_silence_ms: ENDPOINT_SILENCE_MS,
    live_speech_gate: liveSpeechGate ?? 'default',
    partial_results: partials,
    live_incremental_partials: incremental ?? 'default',
    live_partial_tail_beam: tailBeam ?? 'default',
    session_model: modelName ?? 'default',
    chunk_ms: 100,
    speaking: '3 s speech / 3 s quiet, real time',
    baseline_1_stream: baseline,
    loaded,
    partials_delivered_ratio_to_1_stream: partialsDelivered,
    ratio_p95_loaded_to_1_stream:
      p95 !== null && baseline.end_of_speech_to_turn_beyond_silence_ms.p95
        ? round1(p95 / Math.max(1, baseline.end_of_speech_to_turn_beyond_silence_ms.p95))
        : null,
    target: {
      p95_beyond_silence_ms: 300,
      // with PARTIALS=1 the interim results must arrive too (shedding them under overload is no pass)
      partials_delivered_ratio_at_least: partials ? MIN_PARTIALS_DELIVERED : null,
      met:
        p95 !== null &&
        p95 <= 300 &&
        (partialsDelivered === null || partialsDelivered >= MIN_PARTIALS_DELIVERED) &&
        loaded.dropped_audio_ms === 0 &&
        loaded.streams_with_unacknowledged_audio === 0 &&
        loaded.admission.streams_never_admitted === 0,
    },
  };
  const variant =
    (modelName === null ? modelFileName(server.model) : modelFileName(modelName)) +
    (liveSpeechGate === null ? '' : `-gate-${liveSpeechGate}`) +
    (partials
      ? `-partials${incremental === null ? '' : `-incremental-${incremental}`}${tailBeam === null ? '' : `-tail-beam-${modelFileName(tailBeam)}`}`
      : '');
  const out = writeBenchResults(`ws-live-streams-${variant}`, result);
  console.log(
    `p95 end of speech -> turn_detected beyond ${ENDPOINT_SILENCE_MS} ms silence: ${p95} ms with ${streamsWanted} streams ` +
      `(1 stream: ${baseline.end_of_speech_to_turn_beyond_silence_ms.p95} ms, ratio ${result.ratio_p95_loaded_to_1_stream}); ` +
      `turns ${loaded.turns_detected}/${loaded.turns_expected}; dropped audio ${loaded.dropped_audio_ms} ms; ` +
      (partials ? `partials per stream ${loaded.partials_per_stream} (1 stream: ${baseline.partials_per_stream}, ratio ${partialsDelivered}); ` : '') +
      `target met: ${result.target.met}. Wrote ${out}`,
  );
} finally {
  await server.stop();
}
