/**
 * Event-loop delay of the gateway with 500 connected live streams: each sends 16 kHz PCM at
 * real time in 100 ms chunks, speaking half the time, with turn_detection=server_vad (energy
 * VAD, turns recognised on the shared pool). The server's main-thread delay is sampled with
 * perf_hooks.monitorEventLoopDelay (1 ms resolution) in the server process; the baseline is
 * the same process idle (no connection) in the same run. Target: p99 under 5 ms.
 *
 *   npm run bench:ws-event-loop -- [streams=500] [cycles=2]
 *
 * The load runs in this process, the server in its own (bench/ws-bench-server.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LiveStream, loadAverage, machine, round1, runRealTime, sleep, speakingStream, startServer } from './ws-bench-common.js';

const count = Number(process.argv[2] ?? 500);
const cycles = Number(process.argv[3] ?? 2);
const IDLE_SECONDS = 5;

const loadAtStart = loadAverage();
const server = await startServer('gateway', {});
console.log(`model: ${server.model}`);
try {
  await sleep(1000);
  await server.mark();
  await sleep(IDLE_SECONDS * 1000);
  const idle = await server.stats();
  console.log('idle:', JSON.stringify(idle.eventLoopMs));

  const url = `ws://127.0.0.1:${server.port}/v1/ws/transcribe?turn_detection=server_vad&format=pcm_s16le`;
  const streams: LiveStream[] = [];
  // Connect in groups so the upgrades do not all land in one instant.
  for (let i = 0; i < count; i += 50) {
    const group = Array.from({ length: Math.min(50, count - i) }, (_, k) => new LiveStream(url, server.key, speakingStream(cycles, i + k + 1)));
    await Promise.all(group.map((s) => s.opened));
    streams.push(...group);
  }
  await server.mark();
  await runRealTime(streams, 6_000);
  const loaded = await server.stats();
  for (const s of streams) s.socket.send('END');
  await Promise.race([Promise.all(streams.map((s) => s.closed)), sleep(60_000)]);
  const turns = streams.reduce((n, s) => n + s.turns.length, 0);
  const result = {
    benchmark: 'ws-event-loop',
    date: new Date().toISOString(),
    ...machine(),
    load_average_at_start: loadAtStart,
    model: server.model,
    streams: count,
    audio_seconds_per_stream: streams[0]!.chunks.length / 10,
    audio_messages_per_second_in: count * 10,
    turns_detected: turns,
    errors: streams.flatMap((s) => s.errors).length,
    idle_event_loop_delay_ms: { p50: round1(idle.eventLoopMs.p50), p99: round1(idle.eventLoopMs.p99), max: round1(idle.eventLoopMs.max) },
    loaded_event_loop_delay_ms: { p50: round1(loaded.eventLoopMs.p50), p99: round1(loaded.eventLoopMs.p99), max: round1(loaded.eventLoopMs.max) },
    server_cpu_cores_busy: round1(loaded.cpuSeconds / loaded.wallSeconds),
    server_rss_mb: loaded.rssMb,
    ratio_p99_loaded_to_idle: round1(loaded.eventLoopMs.p99 / idle.eventLoopMs.p99),
    target: { p99_ms: 5, met: loaded.eventLoopMs.p99 < 5 },
  };
  mkdirSync(join(process.cwd(), 'bench/results'), { recursive: true });
  const out = join(process.cwd(), 'bench/results/ws-event-loop.json');
  writeFileSync(out, JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result, null, 1));
  console.log(
    `event-loop delay p99 with ${count} live streams: ${result.loaded_event_loop_delay_ms.p99} ms (idle ${result.idle_event_loop_delay_ms.p99} ms, ` +
      `ratio ${result.ratio_p99_loaded_to_idle}); target < 5 ms met: ${result.target.met}. Wrote ${out}`,
  );
} finally {
  await server.stop();
}
