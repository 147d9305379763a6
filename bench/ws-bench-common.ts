/**
 * Shared parts of the WebSocket benchmarks: the server child process, live speaking streams
 * (real-time 100 ms PCM chunks, speech half the time) and small statistics helpers.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, setPriority } from 'node:os';
import WebSocket from 'ws';
import { speechAmPcm } from '../test/helpers/fixtures.js';

export interface ServerStats {
  eventLoopMs: { p50: number; p99: number; max: number; mean: number };
  cpuSeconds: number;
  /** Share of the time the server's main thread was busy (not waiting for I/O). */
  eventLoopUtilization: number;
  wallSeconds: number;
  /** The server's main-thread garbage-collection pauses since the mark (gateway mode). */
  gcSeconds?: number;
  rssMb: number;
  pool: Record<string, unknown> | null;
  /** The shared Silero VAD's windows, batches and inference time since the mark (null: not started). */
  silero?: Record<string, unknown> | null;
  /** The event loop's seconds on live sessions by part since the mark (gateway_ws_main_thread_seconds_total; null: plain ws). */
  mainThreadParts?: Record<string, number> | null;
}

export interface BenchServer {
  readonly port: number;
  /** The gateway's metrics listener (GET /metrics); null for the plain ws server. */
  readonly metricsUrl: string | null;
  readonly key: string;
  readonly model: string;
  /** How the gateway's inference workers are scheduled (INFERENCE_WORKER_NICE). */
  readonly workerPriority: string;
  mark(): Promise<void>;
  stats(): Promise<ServerStats>;
  stop(): Promise<void>;
}

/** Starts bench/ws-bench-server in its own process (compiled JS beside this file). */
export async function startServer(mode: 'gateway' | 'plain-ws', env: Record<string, string> = {}): Promise<BenchServer> {
  const child: ChildProcess = fork(new URL('./ws-bench-server.js', import.meta.url), [mode, JSON.stringify(env)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    // e.g. BENCH_SERVER_NODE_ARGS=--trace-gc to see the server's garbage collections
    execArgv: (process.env['BENCH_SERVER_NODE_ARGS'] ?? '').split(' ').filter(Boolean),
  });
  const next = (type: string): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      const onMessage = (m: Record<string, unknown>): void => {
        if (m['type'] !== type) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code: number | null): void => reject(new Error(`bench server exited (${code}) while waiting for ${type}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const ready = await next('ready');
  pinProcesses(child.pid!);
  return {
    port: ready['port'] as number,
    metricsUrl: ready['metricsUrl'] as string | null,
    key: ready['key'] as string,
    model: ready['model'] as string,
    workerPriority: ready['workerPriority'] as string,
    mark: async () => {
      const marked = next('marked');
      child.send({ type: 'mark' });
      await marked;
    },
    stats: async () => {
      const stats = next('stats');
      child.send({ type: 'stats' });
      return (await stats) as unknown as ServerStats;
    },
    stop: async () => {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

/**
 * BENCH_PIN=1 (Linux, taskset): the server process (all its threads) on CPU 0 and this load
 * generator on the other CPUs, so that the measured server does not also compete with its load
 * for the same core. Returns how the processes were placed, for the results.
 */
export function pinProcesses(serverPid: number): void {
  // BENCH_LOAD_NICE=n: this load generator (not the server, already forked) runs at niceness n,
  // standing in for clients on other machines.
  const nice = process.env['BENCH_LOAD_NICE'];
  if (nice !== undefined) setPriority(Number(nice));
  if (process.env['BENCH_PIN'] !== '1') return;
  const last = cpus().length - 1;
  execFileSync('taskset', ['-a', '-cp', '0', String(serverPid)], { stdio: 'ignore' });
  execFileSync('taskset', ['-a', '-cp', last > 0 ? `1-${last}` : '0', String(process.pid)], { stdio: 'ignore' });
}

export function placement(): string {
  const pin =
    process.env['BENCH_PIN'] === '1' ? 'server pinned to CPU 0, load generator to the other CPUs (taskset)' : 'not pinned (server and load share all CPUs)';
  const nice = process.env['BENCH_LOAD_NICE'];
  return nice === undefined ? `${pin}; load generator at the server's priority` : `${pin}; load generator at nice ${nice}, server at nice 0`;
}

/** Low-level noise (about -60 dBFS): what a quiet microphone sends between turns. */
export function quietNoise(ms: number, seed: number): Buffer {
  const n = ms * 16;
  const out = Buffer.alloc(n * 2);
  let state = seed;
  for (let i = 0; i < n; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out.writeInt16LE((state % 61) - 30, 2 * i);
  }
  return out;
}

export const CHUNK_MS = 100;
const CHUNK_BYTES = CHUNK_MS * 32;

/**
 * The audio of one speaking stream: `cycles` of (3 s of speech, 3 s of quiet), alternating two
 * excerpts of the fixture, so it speaks half the time. Returns the chunks.
 */
export function speakingStream(cycles: number, seed: number): Buffer[] {
  const speech = speechAmPcm();
  const excerpts = [speech.subarray(0, 3 * 32_000), speech.subarray(4 * 32_000, 7 * 32_000)];
  const parts: Buffer[] = [quietNoise(300 + (seed % 7) * 100, seed)];
  for (let c = 0; c < cycles; c++) parts.push(excerpts[(c + seed) % 2]!, quietNoise(3_000, seed + c));
  const all = Buffer.concat(parts);
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += CHUNK_BYTES) chunks.push(all.subarray(at, at + CHUNK_BYTES));
  return chunks;
}

/** Only low-level noise: a connected stream whose user is silent (no turns, no inference). */
export function quietStream(seconds: number, seed: number): Buffer[] {
  const all = quietNoise(seconds * 1000, seed);
  const chunks: Buffer[] = [];
  for (let at = 0; at < all.length; at += CHUNK_BYTES) chunks.push(all.subarray(at, at + CHUNK_BYTES));
  return chunks;
}

export interface TurnObservation {
  /** From the send of the chunk holding the end of speech to the turn_detected message. */
  readonly endOfSpeechToTurnMs: number;
  readonly serverLatencyMs: number;
}

/** A stream closed before `ready`: refused (1013 past capacity, 4xxx) or dropped. */
export class RefusedBeforeReady extends Error {
  constructor(
    readonly code: number,
    readonly errors: readonly string[],
    readonly retryAfterSeconds: number | null,
  ) {
    super(`closed ${code} before ready${errors.length > 0 ? ` (${errors.join(', ')})` : ''}`);
  }
}

/** What opening streams as a client that honours refusals took. */
export interface AdmissionReport {
  /** 1013 refusals met before every stream was admitted. */
  readonly refusals: number;
  /** Streams refused at least once. */
  readonly streamsRefused: number;
  /** Streams still refused at their last try (left out of the run). */
  readonly neverAdmitted: number;
  /** From the first connection to the last `ready`. */
  readonly openSeconds: number;
}

/**
 * Opens `count` streams as hosted-API clients do: a 1013 refusal (server_overloaded) is retried
 * after its `retry_after`; a stream refused `maxTries` times is left out (counted in
 * `neverAdmitted`); any other failure throws.
 */
export async function openHonouringRefusals(
  count: number,
  open: (index: number) => LiveStream,
  maxTries = 20,
): Promise<{ readonly streams: LiveStream[]; readonly admission: AdmissionReport }> {
  const started = performance.now();
  let refusals = 0;
  let streamsRefused = 0;
  const openOne = async (index: number): Promise<LiveStream | null> => {
    for (let attempt = 1; ; attempt++) {
      const stream = open(index);
      try {
        await stream.opened;
        return stream;
      } catch (error) {
        if (!(error instanceof RefusedBeforeReady) || error.code !== 1013) throw error;
        refusals++;
        if (attempt === 1) streamsRefused++;
        if (attempt >= maxTries) return null;
        await sleep(1000 * (error.retryAfterSeconds ?? 1));
      }
    }
  };
  const opened = await Promise.all(Array.from({ length: count }, (_, i) => openOne(i)));
  const streams = opened.filter((s): s is LiveStream => s !== null);
  const openSeconds = Math.round((performance.now() - started) / 100) / 10;
  return { streams, admission: { refusals, streamsRefused, neverAdmitted: count - streams.length, openSeconds } };
}

/**
 * One live stream: sends its chunks at real time (driven by `tick`), notes when each chunk was
 * sent, and measures turn_detected against the end of speech the server reports
 * (turn end_ms minus the 500 ms a turn is padded after its speech: the endpointer's 300 ms and the session's 200 ms post-roll).
 */
export class LiveStream {
  readonly socket: WebSocket;
  readonly sentAt: number[] = [];
  readonly turns: TurnObservation[] = [];
  next = 0;
  startAt = 0;
  bytesSent = 0;
  lastAckBytes = 0;
  lagMessages = 0;
  /** `partial` messages received (partial_results=true). */
  partials = 0;
  errors: string[] = [];
  /** The `retry_after` of the last error that carried one (a 1013 refusal's). */
  retryAfterSeconds: number | null = null;
  stats: Record<string, unknown> | null = null;
  closeCode: number | null = null;
  readonly opened: Promise<void>;
  readonly closed: Promise<void>;

  constructor(
    url: string,
    key: string,
    public chunks: Buffer[],
    private readonly postPadMs = 500,
  ) {
    this.socket = new WebSocket(url, { headers: { authorization: `Bearer ${key}` }, perMessageDeflate: false });
    this.opened = new Promise((resolve, reject) => {
      this.socket.on('message', (data) => {
        const m = JSON.parse(data.toString()) as Record<string, unknown>;
        const now = performance.now();
        switch (m['type']) {
          case 'ready':
            resolve();
            break;
          case 'turn_detected': {
            const speechEndMs = (m['end_ms'] as number) - this.postPadMs;
            const index = Math.min(this.sentAt.length - 1, Math.max(0, Math.floor((speechEndMs - 1) / CHUNK_MS)));
            this.turns.push({ endOfSpeechToTurnMs: now - this.sentAt[index]!, serverLatencyMs: m['latency_ms'] as number });
            break;
          }
          case 'chunk_received':
            this.lastAckBytes = m['total_bytes'] as number;
            break;
          case 'lag':
            this.lagMessages++;
            break;
          case 'partial':
            this.partials++;
            break;
          case 'session_stats':
            this.stats = m;
            break;
          case 'error': {
            const error = m['error'] as Record<string, unknown>;
            this.errors.push((error['code'] as string) ?? 'error');
            if (typeof error['retry_after'] === 'number') this.retryAfterSeconds = error['retry_after'];
            break;
          }
        }
      });
      this.socket.once('error', reject);
      // Refused before `ready` (1013 server_overloaded past capacity, 4xxx): the stream fails rather than wait forever.
      this.socket.once('close', (code) => reject(new RefusedBeforeReady(code, this.errors, this.retryAfterSeconds)));
    });
    this.closed = new Promise((resolve) =>
      this.socket.once('close', (code) => {
        this.closeCode = code;
        resolve();
      }),
    );
  }

  /** Continues the same session with new audio (stream positions go on from where they are). */
  load(chunks: Buffer[]): void {
    this.chunks = [...this.chunks.slice(0, this.next), ...chunks];
  }

  /** Sends every chunk that is due at `now`; true when all are sent. */
  tick(now: number): boolean {
    while (this.next < this.chunks.length && now >= this.startAt + this.next * CHUNK_MS) {
      if (this.socket.readyState !== WebSocket.OPEN) return true;
      const chunk = this.chunks[this.next]!;
      this.socket.send(chunk);
      this.sentAt[this.next] = performance.now();
      this.bytesSent += chunk.length;
      this.next++;
    }
    return this.next >= this.chunks.length;
  }
}

/** Drives all streams at real time from one 10 ms timer; resolves when every chunk is sent. */
export function runRealTime(streams: LiveStream[], staggerMs: number): Promise<void> {
  const start = performance.now();
  // startAt is the wall time of chunk 0: earlier chunks (a previous phase) shift it.
  streams.forEach((s, i) => (s.startAt = start + ((i * 7919) % Math.max(1, staggerMs)) - s.next * CHUNK_MS));
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      let done = true;
      for (const s of streams) if (!s.tick(now)) done = false;
      if (done) {
        clearInterval(timer);
        resolve();
      }
    }, 10);
  });
}

export function percentile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export const round1 = (v: number | null): number | null => (v === null ? null : Math.round(v * 10) / 10);

export function machine(): Record<string, unknown> {
  return { node: process.version, cpu: `${cpus()[0]?.model ?? 'unknown'} x ${cpus().length}` };
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The 1-minute load average when the run started (other engineers share the machine). */
export function loadAverage(): number {
  return Math.round(Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]) * 100) / 100;
}

/** The fields every WebSocket benchmark's report starts with. */
export interface ReportHeader {
  readonly benchmark: string;
  readonly date: string;
  readonly load_average_at_start: number;
  readonly placement: string;
  readonly [machineField: string]: unknown;
}

/**
 * Call when the run starts: it notes the load average then. The function it returns gives the
 * report's header, dated when it is called (at the end of the run).
 */
export function reportHeader(benchmark: string): () => ReportHeader {
  const loadAtStart = loadAverage();
  return () => ({ benchmark, date: new Date().toISOString(), ...machine(), load_average_at_start: loadAtStart, placement: placement() });
}

/** The model's name (its first word) as it appears in a result file's name. */
export function modelFileName(model: string): string {
  return model.split(' ')[0]!.replace(/[^A-Za-z0-9_.-]/g, '');
}
