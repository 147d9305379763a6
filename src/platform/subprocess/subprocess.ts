// Child processes (ffmpeg, ffprobe, yt-dlp) started one way: no shell, SIGKILL on abort and on
// timeout, bounded output capture, and error messages that name the tool, never its path or the
// server paths it was given (`redact`), since callers pass them on to clients.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface SubprocessOptions {
  /** The tool's name in error messages (`ffprobe`), instead of the binary's path. */
  readonly name: string;
  /** Kills the process (SIGKILL); the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /** Environment of the process; default the gateway's own. */
  readonly env?: NodeJS.ProcessEnv;
  /** Stderr kept: the first bytes (`runProcess`), the last characters (`spawnStreaming`). Default 64 000. */
  readonly maxStderrBytes?: number;
  /** Text replaced in the captured stderr, in order (server paths → `the file`). */
  readonly redact?: Readonly<Record<string, string>>;
}

export interface RunOptions extends SubprocessOptions {
  /** Kills the process and rejects with SubprocessError `timeout`. Default none. */
  readonly timeoutMs?: number;
  /** Bytes of stdout kept; the rest is read and dropped. Default 1 MiB. */
  readonly maxStdoutBytes?: number;
}

export interface RunResult {
  /** Exit code; null when the process ended by a signal. */
  readonly code: number | null;
  readonly stdout: string;
  /** Captured stderr, redacted. */
  readonly stderr: string;
}

/** A process that could not start (`spawn`: binary missing, not executable) or ran past its time (`timeout`). */
export class SubprocessError extends Error {
  constructor(
    readonly kind: 'spawn' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = 'SubprocessError';
  }
}

const DEFAULT_STDOUT_BYTES = 1 << 20;
const DEFAULT_STDERR_BYTES = 64_000;

function spawnError(name: string, error: NodeJS.ErrnoException): SubprocessError {
  return new SubprocessError('spawn', `${name} could not be started (${error.code ?? 'error'})`);
}

/** `text` with every key of `redact` replaced by its value. */
export function redactText(text: string, redact: Readonly<Record<string, string>> | undefined): string {
  if (!redact) return text;
  let out = text;
  for (const [secret, replacement] of Object.entries(redact)) if (secret !== '') out = out.split(secret).join(replacement);
  return out;
}

/** Collects a stream's text up to `max` bytes (the first ones), reading on past it. */
function capture(stream: Readable, max: number): () => string {
  const chunks: Buffer[] = [];
  let kept = 0;
  stream.on('data', (chunk: Buffer) => {
    if (kept >= max) return;
    const part = chunk.subarray(0, max - kept);
    chunks.push(part);
    kept += part.length;
  });
  return () => Buffer.concat(chunks, kept).toString('utf8');
}

/**
 * Runs a tool to its end with stdin closed and returns its exit code and output. Rejects with
 * SubprocessError (`spawn`, `timeout`) or the signal's reason; a non-zero exit is a result.
 */
export function runProcess(command: string, args: readonly string[], options: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(options.signal.reason);
      return;
    }
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(options.env ? { env: options.env } : {}) });
    const stdout = capture(child.stdout!, options.maxStdoutBytes ?? DEFAULT_STDOUT_BYTES);
    const stderr = capture(child.stderr!, options.maxStderrBytes ?? DEFAULT_STDERR_BYTES);
    let done = false;
    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      settle();
    };
    const timer =
      options.timeoutMs !== undefined
        ? setTimeout(() => {
            child.kill('SIGKILL');
            finish(() => reject(new SubprocessError('timeout', `${options.name} took longer than ${options.timeoutMs} ms`)));
          }, options.timeoutMs)
        : null;
    const onAbort = (): void => {
      child.kill('SIGKILL');
      finish(() => reject(options.signal!.reason));
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => finish(() => reject(spawnError(options.name, error))));
    child.on('close', (code) => finish(() => resolve({ code, stdout: stdout(), stderr: redactText(stderr(), options.redact) })));
  });
}

export interface StreamingOptions extends SubprocessOptions {
  /** Open a stdin pipe (the caller writes the input); otherwise stdin is closed. */
  readonly stdin?: boolean;
}

/** A running tool whose stdout the caller reads as it comes. */
export interface StreamingProcess {
  /** The input pipe, with `stdin: true`. */
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  /** The exit code once the process has ended and its pipes closed; SubprocessError `spawn` if it never started. */
  readonly closed: Promise<number | null>;
  /** The last whole lines of stderr so far, within `maxStderrBytes` characters, redacted. */
  stderrTail(): string;
  /** Whether the process has exited. */
  readonly exited: boolean;
  /** SIGKILL, unless it has exited. */
  kill(): void;
}

/**
 * Starts a tool whose output is consumed as a stream (ffmpeg decoding). The signal kills it;
 * the caller notices through `stdout` ending and `closed`, and checks the signal itself. The
 * caller must drain `stdout` or kill the process.
 */
export function spawnStreaming(command: string, args: readonly string[], options: StreamingOptions): StreamingProcess {
  const child: ChildProcess = spawn(command, args, {
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
  });
  const max = options.maxStderrBytes ?? DEFAULT_STDERR_BYTES;
  let tail = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    tail += d;
    if (tail.length > max) {
      // A cut first line could hold part of a path that `redact` no longer recognises: drop it.
      tail = tail.slice(-max);
      const newline = tail.indexOf('\n');
      if (newline >= 0) tail = tail.slice(newline + 1);
    }
  });
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  const onAbort = (): void => kill();
  if (options.signal?.aborted) kill();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const closed = new Promise<number | null>((resolve, reject) => {
    child.once('error', (error) => reject(spawnError(options.name, error)));
    child.once('close', (code) => resolve(code));
  });
  closed.catch(() => undefined).finally(() => options.signal?.removeEventListener('abort', onAbort));
  return {
    stdin: child.stdin ?? null,
    stdout: child.stdout!,
    closed,
    stderrTail: () => redactText(tail, options.redact),
    get exited() {
      return child.exitCode !== null || child.signalCode !== null;
    },
    kill,
  };
}
