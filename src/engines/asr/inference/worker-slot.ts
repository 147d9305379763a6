// One inference worker place of the pool, on a WorkerHost (runtime/worker-host.ts): the thread
// (started with the background nice value, restarted 500 ms after it dies unless the pool is
// closing, also when it died while starting), the models whose spec it was sent and whose
// session it opened (both forgotten with the thread that held them), and the one batch it runs
// at a time. The pool decides what to run; the slot tells it what happened.
import { WorkerHost } from '../../runtime/worker-host.js';
import { ModelRunError } from './inference-errors.js';
import type { FromWorker, LoadReport, PoolModelSpec, StreamStepRequest, ToWorker, WorkerSettings } from './inference-protocol.js';

export interface SlotLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export type BatchAnswer = Extract<FromWorker, { type: 'result' | 'stream-result' | 'failed' }>;

/** What the pool hears from a slot, and the one thing the slot asks it. */
export interface SlotEvents<B> {
  /** The worker can take batches (its first start and each restart). */
  ready(slot: WorkerSlot<B>): void;
  /** A session opened in the worker (on `load`, or lazily with a batch). */
  loaded(slot: WorkerSlot<B>, report: LoadReport): void;
  /** The running batch was answered; the slot is idle again. */
  answered(slot: WorkerSlot<B>, batch: B, answer: BatchAnswer): void;
  /** The worker failed or exited unexpectedly while running `batch`, which is lost. */
  failed(slot: WorkerSlot<B>, batch: B, message: string): void;
  /** The worker exited without being closed; a new one starts after 500 ms when `restarting`. */
  exited(slot: WorkerSlot<B>, code: number, restarting: boolean): void;
  /** A new worker did not start. */
  restartFailed(slot: WorkerSlot<B>, error: Error): void;
  /** Whether a dead worker may be replaced (asked at its exit and again before the new one starts). */
  mayRestart(): boolean;
}

/** One worker thread at a time; `B` is the pool's batch record (the slot only keeps it while it runs). */
export class WorkerSlot<B> {
  readonly index: number;
  private readonly host: WorkerHost<ToWorker, FromWorker>;
  private running: B | null = null;
  /** Models whose spec this worker has been sent (`register` or `load`). */
  private readonly registered = new Set<string>();
  private readonly sessions = new Map<string, LoadReport>();
  private readonly loadWaiters = new Map<string, Array<{ resolve: (r: LoadReport) => void; reject: (e: Error) => void }>>();

  constructor(
    settings: WorkerSettings,
    nice: number | null,
    private readonly events: SlotEvents<B>,
    private readonly logger: SlotLogger | null,
  ) {
    const index = settings.index;
    this.index = index;
    this.host = new WorkerHost<ToWorker, FromWorker>({
      entry: new URL('./inference-worker.js', import.meta.url),
      label: `inference worker ${index}`,
      name: `inference-${index}`,
      workerData: settings,
      nice,
      starts: (message) => (message.type === 'ready' ? 'ready' : null),
      replyId: (message) => (message.type === 'result' || message.type === 'stream-result' || message.type === 'failed' ? message.batchId : null),
      onMessage: (message) => this.onMessage(message),
      onPriority: ({ report, error }) => {
        if (error !== null) logger?.warn({ worker: index, err: error }, 'inference worker priority not lowered');
        else if (report !== null && index === 0) logger?.info({ worker: index, ...report }, 'inference workers run at background priority');
      },
      onReady: () => events.ready(this),
      onError: (error) => logger?.warn({ worker: index, err: error }, 'inference worker error'),
      onExit: (exit) => this.lost(exit.message, exit.code, exit.restarting),
      onRestartFailed: (error) => events.restartFailed(this, error),
      restart: { delayMs: 500, whileStarting: true, allowed: () => events.mayRestart() },
      close: { message: { type: 'close' }, graceMs: 10_000 },
    });
  }

  /** Settles once: the first worker is ready, or failed while starting. */
  get started(): Promise<void> {
    return this.host.started;
  }

  /** Ready and not running a batch. */
  get idle(): boolean {
    return this.host.ready && this.running === null;
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
        this.host.post({ type: 'load', model: spec });
      }
    });
  }

  /** Sends live streams' steps (each one's PCM transferred); the slot is busy until `answered` or `failed`. */
  runSteps(batch: B, spec: PoolModelSpec, steps: readonly StreamStepRequest[]): void {
    this.ensureRegistered(spec);
    this.dispatch(
      batch,
      (batchId) => ({ type: 'stream-steps', batchId, model: spec.name, steps }),
      steps.map((step) => step.pcm.buffer as ArrayBuffer),
    );
  }

  /** Tells the worker these streams ended (no answer; a worker that died has none of them anyway). */
  closeStreams(model: string, streamIds: readonly number[]): void {
    if (streamIds.length > 0 && this.host.ready && this.registered.has(model)) this.host.post({ type: 'stream-close', model, streamIds });
  }

  /** Sends a batch (its padded input and lengths are transferred, not copied); the slot is busy until `answered` or `failed`. */
  run(
    batch: B,
    spec: PoolModelSpec,
    input: Float32Array,
    dims: [number, number],
    lengths: BigInt64Array | null,
    keyterms: readonly (readonly string[] | null)[] | null = null,
  ): void {
    this.ensureRegistered(spec);
    const transfer: ArrayBuffer[] = [input.buffer as ArrayBuffer];
    if (lengths) transfer.push(lengths.buffer as ArrayBuffer);
    this.dispatch(batch, (batchId) => ({ type: 'run', batchId, model: spec.name, input, dims, lengths, keyterms }), transfer);
  }

  private ensureRegistered(spec: PoolModelSpec): void {
    if (!this.registered.has(spec.name)) {
      this.registered.add(spec.name);
      this.host.post({ type: 'register', model: spec });
    }
  }

  /** Posts one request the worker answers with `result`, `stream-result` or `failed`; the slot runs `batch` until then. */
  private dispatch(batch: B, message: (batchId: number) => ToWorker, transfer: ArrayBuffer[]): void {
    this.running = batch;
    this.host.request(message, transfer).then(
      (answer) => {
        if (this.running !== batch) return;
        this.running = null;
        if (answer.type !== 'result' && answer.type !== 'stream-result' && answer.type !== 'failed') return;
        if (answer.load) this.noteLoad(answer.load);
        this.events.answered(this, batch, answer);
      },
      (error: Error) => {
        if (this.running !== batch) return;
        this.running = null;
        this.events.failed(this, batch, error.message);
      },
    );
  }

  /** Asks the worker to release its sessions and end; terminates it after 10 s. Resolves when it has exited. */
  close(): Promise<void> {
    return this.host.close();
  }

  /** The worker exited unexpectedly: its sessions and specs go with it, and so do the loads waiting on it. */
  private lost(message: string, code: number, restarting: boolean): void {
    this.registered.clear();
    this.sessions.clear();
    const waiters = [...this.loadWaiters];
    this.loadWaiters.clear();
    for (const [model, list] of waiters) for (const w of list) w.reject(new ModelRunError(model, message));
    this.events.exited(this, code, restarting);
  }

  private noteLoad(report: LoadReport): void {
    this.sessions.set(report.model, report);
    this.events.loaded(this, report);
  }

  private onMessage(message: FromWorker): void {
    switch (message.type) {
      case 'loaded': {
        this.noteLoad(message);
        const waiters = this.loadWaiters.get(message.model) ?? [];
        this.loadWaiters.delete(message.model);
        for (const w of waiters) w.resolve(message);
        break;
      }
      case 'warning':
        this.logger?.warn({ worker: this.index, model: message.model }, message.message);
        break;
      case 'load-failed': {
        const waiters = this.loadWaiters.get(message.model) ?? [];
        this.loadWaiters.delete(message.model);
        for (const w of waiters) w.reject(new ModelRunError(message.model, message.message));
        break;
      }
      default:
        break;
    }
  }
}
