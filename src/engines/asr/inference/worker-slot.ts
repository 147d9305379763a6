// One inference worker thread's lifecycle, as the pool sees it: starting (ready message, the
// priority report), the models whose spec it was sent and whose session it opened, the one
// batch it runs at a time, and its end (close, crash, exit). The pool decides what to run and
// what to do when a worker fails or exits (fail the batch, start a replacement).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ModelRunError } from './inference-errors.js';
import type { FromWorker, LoadReport, PoolModelSpec, ToWorker, WorkerSettings } from './inference-protocol.js';

export interface SlotLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export type BatchAnswer = Extract<FromWorker, { type: 'result' | 'failed' }>;

/** What the pool hears from a slot. */
export interface SlotEvents<B extends { readonly id: number }> {
  /** The worker can take batches. */
  ready(slot: WorkerSlot<B>): void;
  /** A session opened in the worker (on `load`, or lazily with a batch). */
  loaded(slot: WorkerSlot<B>, report: LoadReport): void;
  /** The running batch was answered; the slot is idle again. */
  answered(slot: WorkerSlot<B>, batch: B, answer: BatchAnswer): void;
  /** The worker failed or exited unexpectedly: `batch` (the one it was running, if any) is lost. */
  failed(slot: WorkerSlot<B>, batch: B | null, message: string): void;
  /** The worker exited without being closed (after `failed`). */
  exited(slot: WorkerSlot<B>, code: number): void;
}

const require = createRequire(import.meta.url);

/**
 * Starts a worker on inference-worker.js next to this module. Under vitest/tsx the sources are
 * `.ts`: the worker then boots through tsx's loader (registered inside the worker, because
 * `--import` in a worker's execArgv does not reach its entry module on Node 20).
 */
function createInferenceWorker(settings: WorkerSettings): Worker {
  const self = import.meta.url;
  const options = { workerData: settings, name: `inference-${settings.index}` };
  if (self.endsWith('.ts')) {
    const entry = new URL('./inference-worker.ts', self).href;
    const tsx = pathToFileURL(require.resolve('tsx/esm/api')).href;
    const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); });`;
    return new Worker(boot, { ...options, eval: true });
  }
  return new Worker(new URL('./inference-worker.js', self), options);
}

/** One worker thread; `B` is the pool's batch record (the slot only keeps it while it runs). */
export class WorkerSlot<B extends { readonly id: number }> {
  readonly index: number;
  private readonly worker: Worker;
  private ready = false;
  private running: B | null = null;
  private closing = false;
  /** Models whose spec this worker has been sent (`register` or `load`). */
  private readonly registered = new Set<string>();
  private readonly sessions = new Map<string, LoadReport>();
  private readonly loadWaiters = new Map<string, Array<{ resolve: (r: LoadReport) => void; reject: (e: Error) => void }>>();
  private readonly exitedPromise: Promise<void>;
  /** Settles once: ready, or the worker failed while starting. */
  readonly started: Promise<void>;

  constructor(
    settings: WorkerSettings,
    private readonly events: SlotEvents<B>,
    logger: SlotLogger | null,
  ) {
    this.index = settings.index;
    const index = settings.index;
    this.worker = createInferenceWorker(settings);
    let exitedResolve!: () => void;
    this.exitedPromise = new Promise<void>((resolve) => (exitedResolve = resolve));
    this.started = new Promise<void>((resolve, reject) => {
      let started = false;
      this.worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          if (message.priorityError !== null) logger?.warn({ worker: index, err: message.priorityError }, 'inference worker priority not lowered');
          else if (message.priority !== null && index === 0)
            logger?.info({ worker: index, ...message.priority }, 'inference workers run at background priority');
          started = true;
          this.ready = true;
          resolve();
          this.events.ready(this);
          return;
        }
        this.onMessage(message, logger);
      });
      this.worker.on('error', (error) => {
        logger?.warn({ worker: index, err: error }, 'inference worker error');
        if (!started) reject(error);
        this.fail(`inference worker ${index} failed: ${error.message}`);
      });
      this.worker.on('exit', (code) => {
        this.ready = false;
        exitedResolve();
        if (!started) reject(new Error(`inference worker ${index} exited with code ${code} while starting`));
        if (this.closing) return;
        this.fail(`inference worker ${index} exited with code ${code}`);
        this.events.exited(this, code);
      });
    });
  }

  /** Ready, not running a batch and not closing. */
  get idle(): boolean {
    return this.ready && this.running === null && !this.closing;
  }

  /** The batch it runs now, if any. */
  get busy(): B | null {
    return this.running;
  }

  /** Sessions this worker has open, by model name. */
  get loaded(): ReadonlyMap<string, LoadReport> {
    return this.sessions;
  }

  /** Opens the model's session in this worker (once); resolves with the worker's report. */
  load(spec: PoolModelSpec): Promise<LoadReport> {
    const known = this.sessions.get(spec.name);
    if (known) return Promise.resolve(known);
    return new Promise<LoadReport>((resolve, reject) => {
      const waiters = this.loadWaiters.get(spec.name) ?? [];
      waiters.push({ resolve, reject });
      this.loadWaiters.set(spec.name, waiters);
      if (waiters.length === 1) {
        this.registered.add(spec.name);
        this.worker.postMessage({ type: 'load', model: spec } satisfies ToWorker);
      }
    });
  }

  /** Sends a batch (its padded input and lengths are transferred, not copied); the slot is busy until `answered`. */
  run(batch: B, spec: PoolModelSpec, input: Float32Array, dims: [number, number], lengths: BigInt64Array | null): void {
    this.running = batch;
    if (!this.registered.has(spec.name)) {
      this.registered.add(spec.name);
      this.worker.postMessage({ type: 'register', model: spec } satisfies ToWorker);
    }
    const message: ToWorker = { type: 'run', batchId: batch.id, model: spec.name, input, dims, lengths };
    const transfer: ArrayBuffer[] = [input.buffer as ArrayBuffer];
    if (lengths) transfer.push(lengths.buffer as ArrayBuffer);
    this.worker.postMessage(message, transfer);
  }

  /** Asks the worker to release its sessions and end; terminates it after 10 s. Resolves when it has exited. */
  async close(): Promise<void> {
    this.closing = true;
    const timeout = setTimeout(() => void this.worker.terminate(), 10_000);
    try {
      this.worker.postMessage({ type: 'close' } satisfies ToWorker);
    } catch {
      // the worker is gone already
    }
    await this.exitedPromise;
    clearTimeout(timeout);
  }

  private fail(message: string): void {
    const batch = this.running;
    this.running = null;
    const waiters = [...this.loadWaiters];
    this.loadWaiters.clear();
    this.events.failed(this, batch, message);
    for (const [model, list] of waiters) for (const w of list) w.reject(new ModelRunError(model, message));
  }

  private noteLoad(report: LoadReport): void {
    this.sessions.set(report.model, report);
    this.events.loaded(this, report);
  }

  private onMessage(message: FromWorker, logger: SlotLogger | null): void {
    switch (message.type) {
      case 'loaded': {
        this.noteLoad(message);
        const waiters = this.loadWaiters.get(message.model) ?? [];
        this.loadWaiters.delete(message.model);
        for (const w of waiters) w.resolve(message);
        break;
      }
      case 'warning':
        logger?.warn({ worker: this.index, model: message.model }, message.message);
        break;
      case 'load-failed': {
        const waiters = this.loadWaiters.get(message.model) ?? [];
        this.loadWaiters.delete(message.model);
        for (const w of waiters) w.reject(new ModelRunError(message.model, message.message));
        break;
      }
      case 'result':
      case 'failed': {
        const batch = this.running;
        if (!batch || batch.id !== message.batchId) return;
        this.running = null;
        if (message.load) this.noteLoad(message.load);
        this.events.answered(this, batch, message);
        break;
      }
      default:
        break;
    }
  }
}
