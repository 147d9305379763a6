/**
 * Ingest efficiency: WebSocket audio messages per server CPU-second, our gateway against a
 * plain `ws` server doing the same ingest work (copy each message's samples into a per-
 * connection ring buffer, coalesced JSON acks every 100 ms). Same offered load for both: C
 * connections each sending 20 ms PCM messages at R per second for D seconds. CPU is
 * process.cpuUsage() of the server process (all its threads) over the load phase.
 *
 * Ours runs the full path: uWS, rate and size limits, the native front end (decode into the
 * int16 ring, energy VAD, endpointer) and the session's acks, with turn_detection off so that no
 * inference runs (this measures ingest, not recognition).
 *
 *   npm run bench:ws-ingest -- [connections=200] [messagesPerSecond=90] [seconds=10]
 */
import WebSocket from 'ws';
import { speechAmPcm } from '../test/helpers/fixtures.js';
import { writeBenchResults } from './bench-results.js';
import { reportHeader, round1, sleep, startServer } from './ws-bench-common.js';

const connections = Number(process.argv[2] ?? 200);
const rate = Number(process.argv[3] ?? 90);
const seconds = Number(process.argv[4] ?? 10);
const CHUNK_BYTES = 640;

async function measure(mode: 'gateway' | 'plain-ws') {
  const server = await startServer(mode, {});
  try {
    const url = mode === 'gateway' ? `ws://127.0.0.1:${server.port}/v1/ws/transcribe?format=pcm_s16le` : `ws://127.0.0.1:${server.port}/`;
    const pcm = speechAmPcm();
    const sockets: WebSocket[] = [];
    let acks = 0;
    for (let i = 0; i < connections; i++) {
      const socket = new WebSocket(url, { headers: { authorization: `Bearer ${server.key}` }, perMessageDeflate: false });
      await new Promise<void>((resolve, reject) => {
        socket.on('message', (data) => {
          const type = (JSON.parse(data.toString()) as { type: string }).type;
          if (type === 'ready') resolve();
          if (type === 'chunk_received') acks++;
        });
        socket.once('error', reject);
      });
      sockets.push(socket);
    }
    await server.mark();
    let sent = 0;
    const started = performance.now();
    const perTick = rate / 100; // 10 ms ticks
    let owed = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        owed += perTick;
        const n = Math.floor(owed);
        owed -= n;
        for (let k = 0; k < n; k++) {
          for (const [i, socket] of sockets.entries()) {
            const at = ((sent / connections + i * 37) * CHUNK_BYTES) % (pcm.length - CHUNK_BYTES);
            socket.send(pcm.subarray(at - (at % 2), at - (at % 2) + CHUNK_BYTES));
          }
          sent += connections;
        }
        if (performance.now() - started >= seconds * 1000) {
          clearInterval(timer);
          resolve();
        }
      }, 10);
    });
    await sleep(300);
    const stats = await server.stats();
    for (const s of sockets) s.close();
    await sleep(200);
    return {
      messages: sent,
      server_cpu_seconds: round1(stats.cpuSeconds),
      messages_per_cpu_second: Math.round(sent / stats.cpuSeconds),
      offered_messages_per_second: Math.round(sent / stats.wallSeconds),
      acks_received: acks,
      event_loop_delay_p99_ms: round1(stats.eventLoopMs.p99),
      rss_mb: stats.rssMb,
    };
  } finally {
    await server.stop();
  }
}

const header = reportHeader('ws-ingest');
const plain = await measure('plain-ws');
console.log('plain ws:', JSON.stringify(plain));
const ours = await measure('gateway');
console.log('gateway :', JSON.stringify(ours));
const result = {
  ...header(),
  connections,
  messages_per_second_per_connection: rate,
  message_bytes: CHUNK_BYTES,
  seconds,
  plain_ws: plain,
  gateway: ours,
  ratio_gateway_to_plain_ws: round1(ours.messages_per_cpu_second / plain.messages_per_cpu_second),
};
const out = writeBenchResults('ws-ingest', result);
console.log(
  `messages per server CPU-second: gateway ${ours.messages_per_cpu_second}, plain ws ${plain.messages_per_cpu_second}, ratio ${result.ratio_gateway_to_plain_ws}. Wrote ${out}`,
);
