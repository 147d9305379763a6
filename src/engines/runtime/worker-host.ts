// One worker thread for an engine, kept alive: spawns it, lowers its priority, pairs requests
// with replies by id and, when it dies, fails what it was asked and (if told to) starts another.
//
// Rules:
// - Entry: the caller names its compiled entry (`new URL('./x-worker.js', import.meta.url)`).
//   When this module runs from sources (vitest, tsx) the `.ts` twin is loaded through tsx's
//   loader, registered inside the thread (an `--import` in a worker's execArgv does not reach
//   its entry module on Node 20).
// - Priority: with `nice`, the thread takes SCHED_BATCH and that nice value (thread-priority.ts)
//   before its entry module loads, so the threads onnxruntime starts later inherit them; the
//   outcome goes to `onPriority` before any message of the entry.
// - Start: `starts` reads the messages until it names one `ready` (or an Error: the start is
//   refused and the thread terminated); without `starts` the thread is ready at once. The first
//   start settles `started`; a restart that fails goes to `onRestartFailed`.
// - Requests: `request` gives each message an id; the message `replyId` maps to that id settles
//   it (a reply to no pending id is dropped); every other message goes to `onMessage`.
// - Loss: when the thread exits without close() (after an uncaught error or not), every pending
//   request rejects with WorkerLostError, then `onExit` hears why and whether a restart follows.
//   A restart waits `restart.delayMs` and happens only while `restart.allowed()` holds, at the
//   exit and when the delay ends; a thread that exited before it was ready is restarted only with
//   `restart.whileStarting`, one that refused its start never.
//
// Lifetime: from the constructor (the first thread starts) to close(), which is idempotent:
// no restart after it; the close message, if any, is posted and the thread terminated after
// `close.graceMs` unless it ends first; without one it is terminated at once; pending requests
// reject with WorkerClosedError. No FinalizationRegistry (as native-handle.ts has): a running
// thread keeps its listeners, and so this host, reachable, so close() is the only end.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { type TransferListItem, Worker } from 'node:worker_threads';
import type { ThreadPriorityReport } from './thread-priority.js';

/** What lowering the thread's priority gave: the report, or why it failed (no addon, not Linux). */
export interface WorkerPriority {
  readonly report: ThreadPriorityReport | null;
  readonly error: string | null;
}

/** A thread that exited without close(). */
export interface WorkerExit {
  readonly code: number;
  /** The uncaught error that ended it, if one did. */
  readonly error: Error | null;
  /** It had become ready. */
  readonly started: boolean;
  /** Another thread starts after `restart.delayMs`. */
  readonly restarting: boolean;
  /** What pending requests were rejected with (WorkerLostError's message). */
  readonly message: string;
}

/** A pending request's thread exited (`exitCode`; `error` when an uncaught error ended it). */
export class WorkerLostError extends Error {
  constructor(
    label: string,
    readonly exitCode: number,
    readonly error: Error | null,
  ) {
    super(error ? `${label} failed: ${error.message}` : `${label} exited with code ${exitCode}`);
    this.name = 'WorkerLostError';
  }
}

/** The host was closed, or had no thread running, before the request was answered. */
export class WorkerClosedError extends Error {
  constructor(label: string) {
    super(`${label} is closed`);
    this.name = 'WorkerClosedError';
  }
}

export interface WorkerHostOptions<In, Out> {
  /** The compiled entry module (`.js`), beside the caller. */
  readonly entry: URL;
  /** Names the thread in messages: 'inference worker 0'. */
  readonly label: string;
  /** The thread's name (Worker option). */
  readonly name?: string;
  readonly workerData?: unknown;
  /** Nice value (with SCHED_BATCH) the thread takes before its entry loads; null or absent leaves it. */
  readonly nice?: number | null;
  /** While starting: 'ready', an Error (start refused) or null (any other message). Absent: ready at once. */
  readonly starts?: (message: Out) => 'ready' | Error | null;
  /** The request id a message answers; null when it answers none. */
  readonly replyId: (message: Out) => number | null;
  readonly onMessage?: (message: Out) => void;
  readonly onPriority?: (priority: WorkerPriority) => void;
  /** Each thread, the first and every restarted one, became ready. */
  readonly onReady?: () => void;
  /** An uncaught error in the thread (its exit follows). */
  readonly onError?: (error: Error) => void;
  readonly onExit?: (exit: WorkerExit) => void;
  readonly onRestartFailed?: (error: Error) => void;
  /** Restart a thread that exits without close(); absent: never. */
  readonly restart?: {
    readonly delayMs: number;
    readonly whileStarting: boolean;
    readonly allowed?: () => boolean;
  };
  /** Asks the thread to end (posted by close()), terminated after graceMs; absent: terminated at once. */
  readonly close?: { readonly message: In; readonly graceMs: number };
}

const here = import.meta.url;
const fromSources = here.endsWith('.ts');
/** The boot's priority message: `{ [PRIORITY_TAG]: WorkerPriority }`. */
const PRIORITY_TAG = '__workerHostPriority';

/** Boot code of a thread: tsx's loader (from sources), the priority, then the entry; null when the entry can start alone. */
function bootCode(entry: URL, nice: number | null): string | null {
  if (!fromSources && nice === null) return null;
  const steps: string[] = [];
  if (fromSources) steps.push(`(await import(${JSON.stringify(pathToFileURL(createRequire(here).resolve('tsx/esm/api')).href)})).register();`);
  if (nice !== null) {
    const priorityModule = new URL(fromSources ? './thread-priority.ts' : './thread-priority.js', here).href;
    steps.push(
      'let report = null, error = null;',
      `try { report = (await import(${JSON.stringify(priorityModule)})).setThreadBackground(${JSON.stringify(nice)}); }`,
      'catch (e) { error = e instanceof Error ? e.message : String(e); }',
      `(await import('node:worker_threads')).parentPort.postMessage({ ${PRIORITY_TAG}: { report, error } });`,
    );
  }
  steps.push(`await import(${JSON.stringify(entry.href)});`);
  return `(async () => { ${steps.join(' ')} })();`;
}

function priorityOf(message: unknown): WorkerPriority | null {
  if (typeof message !== 'object' || message === null || !(PRIORITY_TAG in message)) return null;
  return (message as Record<typeof PRIORITY_TAG, WorkerPriority>)[PRIORITY_TAG];
}

interface Pending<Out> {
  readonly resolve: (reply: Out) => void;
  readonly reject: (error: Error) => void;
}

export class WorkerHost<In, Out> {
  /** The first thread's start: ready, or why not. */
  readonly started: Promise<void>;
  readonly #options: WorkerHostOptions<In, Out>;
  readonly #entry: URL;
  readonly #pending = new Map<number, Pending<Out>>();
  #worker: Worker | null = null;
  #lastWorker: Worker | null = null;
  #ready = false;
  #nextId = 1;
  #restartTimer: NodeJS.Timeout | null = null;
  #closing = false;
  #closed: Promise<void> | null = null;

  constructor(options: WorkerHostOptions<In, Out>) {
    this.#options = options;
    this.#entry = fromSources ? new URL(options.entry.href.replace(/\.js$/, '.ts')) : options.entry;
    this.started = this.#spawn();
    // A caller that never awaits `started` hears of a failed start through onExit.
    this.started.catch(() => undefined);
  }

  /** A thread runs and is ready. */
  get ready(): boolean {
    return this.#ready;
  }

  /** The thread running now, or the last one (exited: its threadId is -1); for tests and diagnostics. */
  get thread(): Worker | null {
    return this.#lastWorker;
  }

  /** Sends `build(id)` and resolves with the message that answers `id`. */
  request(build: (id: number) => In, transfer: readonly TransferListItem[] = []): Promise<Out> {
    const worker = this.#worker;
    if (worker === null || this.#closing) return Promise.reject(new WorkerClosedError(this.#options.label));
    const id = this.#nextId++;
    return new Promise<Out>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.postMessage(build(id), transfer);
    });
  }

  /** Sends a message that expects no reply; false when no thread runs. */
  post(message: In, transfer: readonly TransferListItem[] = []): boolean {
    if (this.#worker === null || this.#closing) return false;
    this.#worker.postMessage(message, transfer);
    return true;
  }

  /** Whether the thread keeps the process alive (Worker ref/unref). */
  ref(): void {
    this.#worker?.ref();
  }

  unref(): void {
    this.#worker?.unref();
  }

  /** Ends the thread (see the header) and resolves once it has exited. Idempotent. */
  close(): Promise<void> {
    this.#closed ??= this.#shutdown();
    return this.#closed;
  }

  async #shutdown(): Promise<void> {
    this.#closing = true;
    this.#ready = false;
    if (this.#restartTimer !== null) clearTimeout(this.#restartTimer);
    const worker = this.#worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const close = this.#options.close;
    if (close === undefined) {
      await worker.terminate();
    } else {
      const kill = setTimeout(() => void worker.terminate(), close.graceMs);
      try {
        worker.postMessage(close.message);
      } catch {
        // the thread is gone already
      }
      await exited;
      clearTimeout(kill);
    }
    await exited;
  }

  #spawn(): Promise<void> {
    const options = this.#options;
    const workerOptions = { workerData: options.workerData, ...(options.name === undefined ? {} : { name: options.name }) };
    const boot = bootCode(this.#entry, options.nice ?? null);
    const worker = boot === null ? new Worker(this.#entry, workerOptions) : new Worker(boot, { ...workerOptions, eval: true });
    this.#worker = worker;
    this.#lastWorker = worker;
    this.#ready = false;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      let refused = false;
      let uncaught: Error | null = null;
      const ready = (): void => {
        started = true;
        this.#ready = true;
        resolve();
        options.onReady?.();
      };
      if (options.starts === undefined) ready();
      worker.on('message', (message: Out) => {
        const priority = priorityOf(message);
        if (priority !== null) return options.onPriority?.(priority);
        if (!started && !refused && options.starts !== undefined) {
          const verdict = options.starts(message);
          if (verdict === 'ready') return ready();
          if (verdict instanceof Error) {
            refused = true;
            reject(verdict);
            void worker.terminate();
            return;
          }
        }
        const id = options.replyId(message);
        if (id === null) return options.onMessage?.(message);
        const pending = this.#pending.get(id);
        this.#pending.delete(id);
        pending?.resolve(message);
      });
      worker.on('error', (error) => {
        uncaught ??= error;
        options.onError?.(error);
        if (!started) reject(error);
      });
      worker.on('exit', (code) => {
        this.#worker = null;
        this.#ready = false;
        if (!started) reject(new Error(`${options.label} exited with code ${code} while starting`));
        const pending = [...this.#pending.values()];
        this.#pending.clear();
        if (this.#closing) {
          for (const p of pending) p.reject(new WorkerClosedError(options.label));
          return;
        }
        const lost = new WorkerLostError(options.label, code, uncaught);
        for (const p of pending) p.reject(lost);
        const restart = options.restart;
        const restarting = restart !== undefined && !refused && (started || restart.whileStarting) && (restart.allowed?.() ?? true);
        options.onExit?.({ code, error: uncaught, started, restarting, message: lost.message });
        if (restarting) this.#restartAfter(restart.delayMs);
      });
    });
  }

  #restartAfter(delayMs: number): void {
    this.#restartTimer = setTimeout(() => {
      this.#restartTimer = null;
      if (this.#closing || !(this.#options.restart?.allowed?.() ?? true)) return;
      this.#spawn().catch((error: Error) => this.#options.onRestartFailed?.(error));
    }, delayMs);
    this.#restartTimer.unref();
  }
}
