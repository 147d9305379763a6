import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

// Families that several layers feed (REST jobs and WebSocket sessions both ingest audio; the
// router and the WebSocket upgrade both refuse callers). Created once per registry, on first use.

/** Where audio entered: the REST/job APIs or a WebSocket session. */
export type Surface = 'rest' | 'ws';

export interface AudioMetrics {
  /** Audio seconds received (decoded length of a job's file; every second pushed on a WebSocket). */
  readonly ingested: Counter<'surface' | 'format' | 'language'>;
  /** Audio seconds that went through recognition (completed jobs; turns and finals of streams). */
  readonly transcribed: Counter<'surface' | 'format' | 'language'>;
  /** Processing seconds per audio second of one job or streaming piece (queue included). */
  readonly realTimeFactor: Histogram<'surface'>;
}

export interface RejectionMetrics {
  /** Callers refused for a limit or for overload, by error code (a fixed set: the error registry). */
  readonly rejections: Counter<'surface' | 'reason'>;
}

const audio = new WeakMap<Registry, AudioMetrics>();
const rejections = new WeakMap<Registry, RejectionMetrics>();

export function audioMetrics(registry: Registry): AudioMetrics {
  let metrics = audio.get(registry);
  if (metrics === undefined) {
    const registers = [registry];
    const labelNames = ['surface', 'format', 'language'] as const;
    metrics = {
      ingested: new Counter({
        name: 'gateway_audio_ingested_seconds_total',
        help: 'Audio seconds received, by surface, format and language',
        labelNames,
        registers,
      }),
      transcribed: new Counter({
        name: 'gateway_audio_transcribed_seconds_total',
        help: 'Audio seconds recognised, by surface, format and language',
        labelNames,
        registers,
      }),
      realTimeFactor: new Histogram({
        name: 'gateway_real_time_factor',
        help: 'Processing seconds per audio second of a job or streaming piece (below 1: faster than real time)',
        labelNames: ['surface'],
        buckets: [0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 5, 10],
        registers,
      }),
    };
    audio.set(registry, metrics);
  }
  return metrics;
}

export function rejectionMetrics(registry: Registry): RejectionMetrics {
  let metrics = rejections.get(registry);
  if (metrics === undefined) {
    metrics = {
      rejections: new Counter({
        name: 'gateway_rejections_total',
        help: 'Requests and WebSocket sessions refused for a rate limit, quota or overload, by reason',
        labelNames: ['surface', 'reason'],
        registers: [registry],
      }),
    };
    rejections.set(registry, metrics);
  }
  return metrics;
}

/** Error codes counted as rejections: limits, quotas and overload (never client mistakes). */
export function isRejection(status: number, code: string): boolean {
  return status === 429 || code === 'server_overloaded' || code === 'service_unavailable';
}

const FORMATS = new Set(['wav', 'mp3', 'flac', 'ogg', 'opus', 'webm', 'm4a', 'mp4', 'aac', 'mkv', 'mov', 'wma', 'amr', '3gp', 'caf', 'aiff']);

/** A bounded `format` label for a stored file or URL: its extension when it is a known audio/video one. */
export function formatLabel(name: string | null): string {
  if (name === null) return 'unknown';
  const path = name.split(/[?#]/)[0]!;
  const dot = path.lastIndexOf('.');
  const ext = dot < 0 ? '' : path.slice(dot + 1).toLowerCase();
  return FORMATS.has(ext) ? ext : 'other';
}

/** A bounded `language` label: a 2-3 letter code or `auto`. */
export function languageLabel(language: string | null): string {
  if (language === null || language === '') return 'unknown';
  return /^(?:[a-z]{2,3}|auto)$/.test(language) ? language : 'other';
}

/** A gauge whose value is read at each scrape (`read` runs inside prom-client's collect). */
export function sampledGauge(registry: Registry, name: string, help: string, read: () => number): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}

/** A sampled gauge whose source is handed in later (0 until then): for owners built after their metrics. */
export function deferredGauge(registry: Registry, name: string, help: string): (read: () => number) => void {
  let source: () => number = () => 0;
  sampledGauge(registry, name, help, () => source());
  return (read) => {
    source = read;
  };
}
