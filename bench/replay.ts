/**
 * Replays a recorded WebSocket session (record=true; format in src/streaming/session-recording.ts
 * and docs/streaming.md) against a gateway: `--copies N` sessions at once, each opened with the
 * recorded query and re-sending every client message at its recorded time divided by `--speed`.
 * Reports per copy the turns (turn_detected, and the final transcription's text), the turn
 * latency the server reports (latency_ms: last audio of the turn to the message) at p50/p95, the
 * close code and errors; writes bench/results/replay.json.
 *
 *   npm run replay -- --url http://localhost:8080 --key sk_... --recording rec.ndjson [--copies 10] [--speed 2]
 *
 * `--recording` is a file path or a URL (a signed URL, or GET /v1/transcriptions/{id}/recording,
 * fetched with the key). Times are measured from each copy's `ready` message, as the recording's
 * are from the session's start.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';
import { parseRecording, type ParsedRecording } from '../src/streaming/session-recording.js';
import { publishReport } from './bench-results.js';
import { percentile } from './ws-bench-common.js';

export interface ReplayOptions {
  /** The gateway's base URL (http(s) or ws(s)). */
  readonly url: string;
  readonly key: string;
  readonly recording: ParsedRecording;
  readonly copies?: number;
  /** Recorded times are divided by this (2: twice as fast). */
  readonly speed?: number;
  /** How long to wait for the server to close after the last message before closing (ms). */
  readonly drainMs?: number;
}

export interface CopyResult {
  readonly copy: number;
  readonly jobId: string | null;
  /** Committed texts in order: each turn_detected, then the final transcription's when not empty. */
  readonly turns: readonly string[];
  readonly turnLatencyMs: { readonly p50: number | null; readonly p95: number | null };
  readonly sent: number;
  readonly closeCode: number | null;
  readonly errors: readonly string[];
  readonly wallMs: number;
}

export interface ReplayReport {
  readonly copies: readonly CopyResult[];
  readonly speed: number;
  readonly messages: number;
  readonly recordedMs: number;
  readonly turnLatencyMs: { readonly p50: number | null; readonly p95: number | null };
  readonly errors: number;
}

/** Reads a recording from a path or a URL (fetched with the key as bearer). */
export async function loadRecording(source: string, key?: string): Promise<ParsedRecording> {
  if (/^https?:\/\//.test(source)) {
    const response = await fetch(source, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    if (!response.ok) throw new Error(`fetching the recording: HTTP ${response.status}`);
    return parseRecording(await response.text());
  }
  return parseRecording(readFileSync(source, 'utf8'));
}

export async function replay(options: ReplayOptions): Promise<ReplayReport> {
  const copies = Math.max(1, options.copies ?? 1);
  const speed = options.speed ?? 1;
  if (!(speed > 0)) throw new Error('speed must be positive');
  const results = await Promise.all(Array.from({ length: copies }, (_, i) => replayOne(options, i, speed)));
  const latencies = results.flatMap((r) => r.latencies);
  const { messages, end } = options.recording;
  return {
    copies: results.map((r) => r.result),
    speed,
    messages: messages.length,
    recordedMs: end?.t ?? messages.at(-1)?.t ?? 0,
    turnLatencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
    errors: results.reduce((n, r) => n + r.result.errors.length, 0),
  };
}

function sessionUrl(base: string, query: Readonly<Record<string, string>>): string {
  const url = new URL('/v1/ws/transcribe', base.replace(/^http/, 'ws'));
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}

function replayOne(options: ReplayOptions, copy: number, speed: number): Promise<{ result: CopyResult; latencies: number[] }> {
  const { recording, key, drainMs = 30_000 } = options;
  const started = Date.now();
  const socket = new WebSocket(sessionUrl(options.url, recording.header.query), { headers: { authorization: `Bearer ${key}` } });
  const turns: string[] = [];
  const latencies: number[] = [];
  const errors: string[] = [];
  const timers: NodeJS.Timeout[] = [];
  let jobId: string | null = null;
  let sent = 0;

  const sendAll = (): void => {
    const last = recording.messages.at(-1)?.t ?? 0;
    for (const message of recording.messages) {
      timers.push(
        setTimeout(() => {
          if (socket.readyState !== WebSocket.OPEN) return;
          if (message.audio !== undefined) socket.send(Buffer.from(message.audio, 'base64'), { binary: true });
          else socket.send(message.text ?? '', { binary: false });
          sent += 1;
        }, message.t / speed),
      );
    }
    // A recording that ended without END (the client hung up): close once the server had time to answer.
    timers.push(setTimeout(() => socket.close(1000), last / speed + drainMs));
  };

  socket.on('message', (data, isBinary) => {
    if (isBinary) return;
    const message = JSON.parse(data.toString()) as Record<string, unknown>;
    switch (message['type']) {
      case 'ready':
        jobId = (message['job_id'] as string | undefined) ?? null;
        sendAll();
        break;
      case 'turn_detected':
        turns.push(message['text'] as string);
        latencies.push(message['latency_ms'] as number);
        break;
      case 'transcription':
        if (message['is_final'] === true && (message['text'] as string) !== '') {
          turns.push(message['text'] as string);
          latencies.push(message['latency_ms'] as number);
        }
        break;
      case 'error': {
        const error = message['error'] as { code?: string; message?: string } | undefined;
        errors.push(`${error?.code ?? 'error'}: ${error?.message ?? ''}`);
        break;
      }
    }
  });
  socket.on('error', (error) => errors.push(error.message));
  return new Promise((resolve) => {
    socket.on('close', (code) => {
      for (const timer of timers) clearTimeout(timer);
      resolve({
        latencies,
        result: {
          copy,
          jobId,
          turns,
          turnLatencyMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
          sent,
          closeCode: code,
          errors,
          wallMs: Date.now() - started,
        },
      });
    });
  });
}

function argument(args: readonly string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}

async function main(args: readonly string[]): Promise<void> {
  const url = argument(args, 'url');
  const key = argument(args, 'key') ?? process.env['GATEWAY_API_KEY'];
  const source = argument(args, 'recording');
  if (!url || !key || !source) {
    console.error('usage: npm run replay -- --url <gateway> --key <api key> --recording <file or URL> [--copies N] [--speed X]');
    process.exitCode = 2;
    return;
  }
  const recording = await loadRecording(source, key);
  const report = await replay({ url, key, recording, copies: Number(argument(args, 'copies') ?? 1), speed: Number(argument(args, 'speed') ?? 1) });
  publishReport('replay', { benchmark: 'replay', url, recording: recording.header.job_id, ...report });
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
