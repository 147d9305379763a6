// WebSocket memory under senders far above real time (docs/streaming.md "Limits"): one gateway in
// this process on loopback; first N sessions send 16 kHz PCM at real time (the baseline), then N
// sessions send WS_FLOOD_BYTES_PER_SECOND each (manual mode: everything they send is buffered).
// Prints and writes bench/results/ws-flood.json: peak RSS above the start in each phase, their
// ratio, the event loop's longest stall, and how the sessions ended. Bounded: two phases of
// WS_FLOOD_SECONDS each plus the ends. WS_* variables of the environment go to the gateway (e.g.
// WS_MAX_AUDIO_SPEED=0 WS_MAX_PROCESS_BUFFER_BYTES=1TB for the behaviour without the bounds).
//   npx tsx bench/ws-flood.ts            (WS_FLOOD_SESSIONS=20 WS_FLOOD_SECONDS=5 by default)
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { startTestGateway } from '../test/helpers/test-gateway.js';
import { publishReport, ratio3 } from './bench-results.js';

const SESSIONS = Number(process.env['WS_FLOOD_SESSIONS'] ?? 20);
const SECONDS = Number(process.env['WS_FLOOD_SECONDS'] ?? 5);
const FLOOD_BYTES_PER_SECOND = Number(process.env['WS_FLOOD_BYTES_PER_SECOND'] ?? 1_000_000);
const TICK_MS = 100;
const REAL_TIME_BYTES_PER_SECOND = 32_000;
const MB = 1024 * 1024;

interface PhaseResult {
  readonly sessions: number;
  readonly bytesPerSecondEach: number;
  readonly peakRssMb: number;
  readonly rssGrowthMb: number;
  readonly maxEventLoopStallMs: number;
  readonly closes: Record<string, number>;
}

/** N sessions sending `bytesPerSecond` each for SECONDS, then END; the peak RSS above the phase's start. */
async function phase(url: string, key: string, bytesPerSecond: number): Promise<PhaseResult> {
  global.gc?.();
  const start = process.memoryUsage().rss;
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const closes: Record<string, number> = {};
  const sockets = await Promise.all(
    Array.from(
      { length: SESSIONS },
      () =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(url, { headers: { Authorization: `Bearer ${key}` } });
          socket.on('message', (data) => {
            if (String(data).includes('"type":"ready"')) resolve(socket);
          });
          socket.on('error', reject);
          socket.on('close', (code, reason) => {
            const label = `${code} ${String(reason).split(':')[0]}`;
            closes[label] = (closes[label] ?? 0) + 1;
          });
        }),
    ),
  );
  const chunk = Buffer.alloc(Math.round((bytesPerSecond * TICK_MS) / 1000));
  for (let i = 0; i < chunk.length; i += 2) chunk.writeInt16LE(Math.round(Math.sin(i / 20) * 3000), i);
  const started = Date.now();
  while (Date.now() - started < SECONDS * 1000) {
    for (const socket of sockets) if (socket.readyState === WebSocket.OPEN) socket.send(chunk);
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  for (const socket of sockets) if (socket.readyState === WebSocket.OPEN) socket.send('END');
  await Promise.all(sockets.map((socket) => (socket.readyState === WebSocket.CLOSED ? undefined : new Promise((resolve) => socket.once('close', resolve)))));
  clearInterval(sampler);
  loop.disable();
  return {
    sessions: SESSIONS,
    bytesPerSecondEach: bytesPerSecond,
    peakRssMb: Math.round(peak / MB),
    rssGrowthMb: Math.round((peak - start) / MB),
    maxEventLoopStallMs: Math.round(loop.max / 1e6),
    closes,
  };
}

async function main(): Promise<void> {
  const passed = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('WS_') && !name.startsWith('WS_FLOOD_'))) as Record<
    string,
    string
  >;
  const env = { WS_MAX_CONNECTIONS_PER_KEY: String(SESSIONS), ...passed };
  const gw = await startTestGateway(env, { validateResponses: false });
  try {
    const key = await gw.key({ scopes: ['write'] });
    const url = `${gw.url.replace(/^http/, 'ws')}/v1/ws/transcribe`;
    const baseline = await phase(url, key, REAL_TIME_BYTES_PER_SECOND);
    const flood = await phase(url, key, FLOOD_BYTES_PER_SECOND);
    publishReport('ws-flood', {
      gatewayEnv: env,
      secondsPerPhase: SECONDS,
      baseline,
      flood,
      rssGrowthRatio: ratio3(Math.max(1, flood.rssGrowthMb), Math.max(1, baseline.rssGrowthMb)),
      peakRssRatio: ratio3(flood.peakRssMb, baseline.peakRssMb),
    });
  } finally {
    await gw.close();
  }
}

await main();
