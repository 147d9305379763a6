/**
 * Event-loop delay of the gateway with 500 connected live streams, each sending 16 kHz PCM at
 * real time in 100 ms chunks with turn_detection=server_vad (energy VAD). Three phases in one
 * run, on the same server process and the same connections:
 *   idle     no connection (the baseline)
 *   quiet    every stream sends low-level noise: ingest, VAD and acks, no turns
 *   speaking every stream speaks half the time (3 s speech / 3 s quiet): turns are cut and
 *            recognised on the shared inference pool as well
 * The server's main-thread delay is sampled with perf_hooks.monitorEventLoopDelay (1 ms
 * resolution) inside the server process (bench/ws-bench-server.ts); the load runs here.
 * Target: p99 under 5 ms. Ratios are against the idle phase.
 *
 *   npm run bench:ws-event-loop -- [streams=500] [seconds=12]
 */
import { writeBenchResults } from './bench-results.js';
import { LiveStream, quietStream, reportHeader, round1, runRealTime, sleep, speakingStream, startServer, type ServerStats } from './ws-bench-common.js';

const count = Number(process.argv[2] ?? 500);
const seconds = Number(process.argv[3] ?? 12);
const IDLE_SECONDS = 5;

const view = (s: ServerStats) => ({
  event_loop_delay_ms: { p50: round1(s.eventLoopMs.p50), p99: round1(s.eventLoopMs.p99), max: round1(s.eventLoopMs.max) },
  server_cpu_cores_busy: round1(s.cpuSeconds / s.wallSeconds),
  main_thread_utilization: s.eventLoopUtilization,
  server_rss_mb: s.rssMb,
  inference_pool: s.pool,
});

const header = reportHeader('ws-event-loop');
const server = await startServer('gateway', {});
console.log(`model: ${server.model}`);
try {
  await sleep(1000);
  await server.mark();
  await sleep(IDLE_SECONDS * 1000);
  const idle = await server.stats();
  console.log('idle:', JSON.stringify(view(idle)));

  const url = `ws://127.0.0.1:${server.port}/v1/ws/transcribe?turn_detection=server_vad&format=pcm_s16le`;
  const streams: LiveStream[] = [];
  // Connect in groups so the upgrades do not all land in one instant.
  for (let i = 0; i < count; i += 50) {
    const group = Array.from({ length: Math.min(50, count - i) }, (_, k) => new LiveStream(url, server.key, quietStream(seconds, i + k + 1)));
    await Promise.all(group.map((s) => s.opened));
    streams.push(...group);
  }
  await server.mark();
  await runRealTime(streams, 100);
  const quiet = await server.stats();
  console.log('quiet:', JSON.stringify(view(quiet)));

  const cycles = Math.max(1, Math.round(seconds / 6));
  streams.forEach((s, i) => s.load(speakingStream(cycles, i + 1)));
  await server.mark();
  await runRealTime(streams, 6_000);
  const speaking = await server.stats();
  console.log('speaking:', JSON.stringify(view(speaking)));
  for (const s of streams) s.socket.send('END');
  await Promise.race([Promise.all(streams.map((s) => s.closed)), sleep(60_000)]);

  const result = {
    ...header(),
    model: server.model,
    inference_workers: 1,
    inference_worker_priority: server.workerPriority,
    streams: count,
    audio_messages_per_second_in: count * 10,
    seconds_per_phase: seconds,
    turns_detected: streams.reduce((n, s) => n + s.turns.length, 0),
    errors: streams.flatMap((s) => s.errors).length,
    lag_messages: streams.reduce((n, s) => n + s.lagMessages, 0),
    idle: view(idle),
    quiet: view(quiet),
    speaking: view(speaking),
    ratio_p99_quiet_to_idle: round1(quiet.eventLoopMs.p99 / idle.eventLoopMs.p99),
    ratio_p99_speaking_to_idle: round1(speaking.eventLoopMs.p99 / idle.eventLoopMs.p99),
    target: { p99_ms: 5, met_quiet: quiet.eventLoopMs.p99 < 5, met_speaking: speaking.eventLoopMs.p99 < 5 },
  };
  const out = writeBenchResults('ws-event-loop', result);
  console.log(
    `event-loop delay p99 with ${count} streams: quiet ${result.quiet.event_loop_delay_ms.p99} ms, speaking ${result.speaking.event_loop_delay_ms.p99} ms ` +
      `(idle ${result.idle.event_loop_delay_ms.p99} ms; ratios ${result.ratio_p99_quiet_to_idle}, ${result.ratio_p99_speaking_to_idle}); ` +
      `target < 5 ms met: quiet ${result.target.met_quiet}, speaking ${result.target.met_speaking}. Wrote ${out}`,
  );
} finally {
  await server.stop();
}
