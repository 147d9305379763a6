import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { FrontEndCounters } from './session-types.js';
import type { MainThreadPart } from './main-thread-parts.js';
import type { CapacityEstimate, OverloadLevel } from './stream-capacity.js';
import { audioMetrics, rejectionMetrics, type AudioMetrics, type RejectionMetrics } from '../platform/metrics/shared-metrics.js';

type CounterChild = ReturnType<Counter<'kind'>['labels']>;

/** Close codes the gateway or a well-behaved client uses; any other code a client sends is `other`. */
const KNOWN_CLOSE_CODES = new Set([1000, 1001, 1005, 1006, 1008, 1009, 1011, 1013, 4001, 4003, 4004, 4009, 4029]);

export function closeCodeLabel(code: number): string {
  return KNOWN_CLOSE_CODES.has(code) ? String(code) : 'other';
}

/** Prometheus figures of the streaming endpoint. */
export class WsMetrics {
  readonly sessions: Gauge;
  readonly closes: Counter<'code'>;
  readonly sessionDuration: Histogram<'code'>;
  readonly messages: Counter<'kind'>;
  readonly turnLatency: Histogram;
  readonly pieceSeconds: Histogram<'kind'>;
  readonly pieceWaitSeconds: Histogram<'kind' | 'stage'>;
  readonly droppedAudio: Counter;
  readonly partialsSkipped: Counter;
  /** The new audio the skipped partials would have decoded, each stretch counted once. */
  readonly partialsSkippedAudio: Counter;
  /** Resumable sessions: parked, resumed, taken_over, expired (window passed unresumed). */
  readonly resumeEvents: Counter<'event'>;
  readonly audio: AudioMetrics;
  readonly refused: RejectionMetrics;
  /** Bound once: counting a message is on the per-message path. */
  readonly audioMessages: CounterChild;
  readonly commandMessages: CounterChild;

  /** Event-loop seconds on live sessions by part (main-thread-parts.ts), read at scrape time. */
  readonly mainThreadSeconds: Counter<'part'>;

  /** `native`: the native front ends' counters by the format sessions opened with, ended sessions included. */
  constructor(
    registry: Registry,
    activeSessions: () => number,
    overload: () => CapacityEstimate,
    native: () => ReadonlyMap<string, FrontEndCounters>,
    mainThread: () => Record<MainThreadPart, number>,
  ) {
    this.mainThreadSeconds = new Counter({
      name: 'gateway_ws_main_thread_seconds_total',
      help: 'Event-loop seconds spent on live sessions, by part (exclusive): session (handling client messages), front_end (decode, resample, energy VAD), silero (audio to the Silero VAD and speech gate), json (server messages serialised and written), results (recognised pieces delivered), ticks (the 50 ms ticker)',
      labelNames: ['part'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [part, seconds] of Object.entries(mainThread())) this.inc({ part }, seconds);
      },
    });
    this.sessions = new Gauge({
      name: 'gateway_ws_sessions',
      help: 'Open WebSocket transcription sessions',
      registers: [registry],
      collect() {
        this.set(activeSessions());
      },
    });
    this.closes = new Counter({
      name: 'gateway_ws_closes_total',
      help: 'WebSocket sessions closed, by close code',
      labelNames: ['code'],
      registers: [registry],
    });
    this.sessionDuration = new Histogram({
      name: 'gateway_ws_session_duration_seconds',
      help: 'Length of admitted WebSocket sessions, by close code',
      labelNames: ['code'],
      buckets: [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600],
      registers: [registry],
    });
    this.messages = new Counter({ name: 'gateway_ws_messages_total', help: 'WebSocket messages received', labelNames: ['kind'], registers: [registry] });
    this.audioMessages = this.messages.labels({ kind: 'audio' });
    this.commandMessages = this.messages.labels({ kind: 'command' });
    this.turnLatency = new Histogram({
      name: 'gateway_ws_turn_latency_seconds',
      help: 'From the arrival of the end of a turn to its turn_detected/transcription message',
      buckets: [0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1, 2, 5, 10],
      registers: [registry],
    });
    this.pieceSeconds = new Histogram({
      name: 'gateway_ws_piece_seconds',
      help: 'Queue + recognition time of a streaming piece, by kind',
      labelNames: ['kind'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
      registers: [registry],
    });
    this.pieceWaitSeconds = new Histogram({
      name: 'gateway_ws_piece_wait_seconds',
      help: "Wait of a turn, TRANSCRIBE or final piece before recognition, by kind and stage: session_queue (cut to start, behind its session's piece in flight), speech_verdict (the speech gate)",
      labelNames: ['kind', 'stage'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1, 2, 5],
      registers: [registry],
    });
    this.droppedAudio = new Counter({
      name: 'gateway_ws_dropped_audio_seconds_total',
      help: 'Audio seconds dropped by the native front end or the VAD queue of ended sessions (read from their counters at close)',
      registers: [registry],
    });
    this.partialsSkipped = new Counter({
      name: 'gateway_ws_partials_skipped_total',
      help: 'Partial results not computed because the gateway was past its partials threshold (overload)',
      registers: [registry],
    });
    this.partialsSkippedAudio = new Counter({
      name: 'gateway_ws_partials_skipped_audio_seconds_total',
      help: 'Audio seconds the skipped partial results would have decoded (each stretch once; the whole open turn where partials re-run it), charged as demand',
      registers: [registry],
    });
    this.resumeEvents = new Counter({
      name: 'gateway_ws_resume_events_total',
      help: 'Resumable sessions: parked (connection dropped), resumed (from parked), taken_over (from a connection still open), expired (window passed)',
      labelNames: ['event'],
      registers: [registry],
    });
    const LEVEL: Record<OverloadLevel, number> = { normal: 0, partials_thinned: 1, larger_batches: 2, full: 3 };
    // One estimate per scrape serves the five gauges (collect runs them in registration order).
    let scraped: CapacityEstimate | null = null;
    new Gauge({
      name: 'gateway_overload_level',
      help: 'Streaming overload level: 0 normal, 1 partials thinned, 2 larger batches, 3 full (new sessions refused, no partials)',
      registers: [registry],
      collect() {
        scraped = overload();
        this.set(LEVEL[scraped.level]);
      },
    });
    new Gauge({
      name: 'gateway_overload_partials_every',
      help: 'One due partial result in this many is computed (1 every one; more past OVERLOAD_PARTIALS_OFF_AT; 0 none)',
      registers: [registry],
      collect() {
        this.set((scraped ?? overload()).partialEvery);
      },
    });
    new Gauge({
      name: 'gateway_inference_utilization_ratio',
      help: 'Busy fraction of the inference workers from the live streams (measured, decayed over seconds)',
      registers: [registry],
      collect() {
        this.set((scraped ?? overload()).utilization);
      },
    });
    new Gauge({
      name: 'gateway_inference_demand_ratio',
      help: 'Utilisation the live streams ask for: measured work plus the partial results skipped under overload (levels and admission go by it)',
      registers: [registry],
      collect() {
        this.set((scraped ?? overload()).demandUtilization);
      },
    });
    new Gauge({
      name: 'gateway_host_cpu_utilization_ratio',
      help: "The host's busy cores over its cores: the cgroup's quota and usage where a quota is set, else every process on the machine, a VM's steal time included (decayed; NaN when OVERLOAD_HOST_CPU_FULL_AT is 0)",
      registers: [registry],
      collect() {
        this.set((scraped ?? overload()).hostUtilization ?? Number.NaN);
      },
    });
    new Gauge({
      name: 'gateway_host_cpu_live_sessions_cores',
      help: "The host's cores the live sessions hold: this process's CPU less its REST and job recognition (decayed; NaN when OVERLOAD_HOST_CPU_FULL_AT is 0)",
      registers: [registry],
      collect() {
        this.set((scraped ?? overload()).hostSessionCores ?? Number.NaN);
      },
    });
    new Gauge({
      name: 'gateway_stream_capacity_sessions',
      help: 'Live sessions this gateway can hold at its full threshold (estimate; NaN before any measurement)',
      registers: [registry],
      collect() {
        this.set((scraped ?? overload()).capacitySessions ?? Number.NaN);
      },
    });
    new Gauge({
      name: 'gateway_inference_cost_ratio',
      help: 'Inference worker seconds per audio second of stream pieces (measured; NaN before any measurement)',
      registers: [registry],
      collect() {
        this.set((scraped ?? overload()).costPerAudioSecond ?? Number.NaN);
        scraped = null;
      },
    });
    this.audio = audioMetrics(registry);
    this.refused = rejectionMetrics(registry);
    registerNativeCounters(registry, native);
  }
}

/**
 * The native front ends' counters, read from the live sessions' handles at each scrape (plus
 * what ended sessions left): `gateway_native_decoded_samples_total{format}`,
 * `gateway_native_packets_total{format, result="decoded"|"rejected"}` (Opus formats),
 * `gateway_native_dropped_samples_total{format}`. One read per scrape serves the three.
 */
function registerNativeCounters(registry: Registry, native: () => ReadonlyMap<string, FrontEndCounters>): void {
  let scraped: ReadonlyMap<string, FrontEndCounters> | null = null;
  const read = (): ReadonlyMap<string, FrontEndCounters> => (scraped ??= native());
  new Counter({
    name: 'gateway_native_decoded_samples_total',
    help: '16 kHz samples the native front ends of WebSocket sessions produced (decoded and resampled), by the format sessions opened with',
    labelNames: ['format'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [format, counters] of read()) this.inc({ format }, counters.decodedSamples);
    },
  });
  new Counter({
    name: 'gateway_native_packets_total',
    help: 'Opus packets the native front ends decoded or rejected, by format and result',
    labelNames: ['format', 'result'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [format, counters] of read()) {
        if (counters.packetsDecoded + counters.packetsRejected === 0) continue;
        this.inc({ format, result: 'decoded' }, counters.packetsDecoded);
        this.inc({ format, result: 'rejected' }, counters.packetsRejected);
      }
    },
  });
  new Counter({
    name: 'gateway_native_dropped_samples_total',
    help: 'Samples dropped by the native front ends (audio buffer full) or the Silero VAD queue, by format',
    labelNames: ['format'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [format, counters] of read()) this.inc({ format }, counters.droppedSamples);
      scraped = null;
    },
  });
}
