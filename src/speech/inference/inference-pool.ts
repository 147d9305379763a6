import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { InferenceBusyError, InferenceClosedError, ModelRunError } from './inference-errors.js';
import { samePlan } from '../decoding/decoding-plan.js';
import type { DecodedRow, ExecutionDevice, FromWorker, LoadReport, PoolModelSpec, ToWorker, WorkerSettings } from './inference-protocol.js';

export type { DecodedRow, ExecutionDevice, LoadReport, PoolModelSpec } from './inference-protocol.js';

/** Live-stream chunks are `interactive` and go before `batch` work (REST jobs). */
export type InferencePriority = 'interactive' | 'batch';

export interface InferenceInput {
  /**
   * 16 kHz mono PCM, [length] samples (the worker prepares the model input). Read when the request's batch is assembled,
   * which can be any time before the promise settles: keep it unchanged until then. The pool
   * keeps no reference afterwards.
   */
  readonly data: Float32Array;
  /** Valid time steps (samples or frames). */
  readonly length: number;
}

export interface InferenceResult {
  /**
   * This request's row of the model output, [rowDims] row-major. A view into the batch's output
   * buffer (transferred from the worker, not copied): the buffer is freed when every row of the
   * batch is dropped, so copy out of it if you keep a small part for long.
   */
  readonly output: Float32Array;
  /** Output dims without the batch axis, e.g. [frames, vocab] (frames are padded to the batch). */
  readonly dims: readonly number[];
  /** The model's output length for this row, when it has an output-lengths output. */
  readonly outLength: number | null;
  /** This row decoded by the worker, for a model registered with `decode`; null otherwise. */
  readonly decoded: DecodedRow | null;
  readonly batchSize: number;
  readonly queueWaitMs: number;
  readonly runMs: number;
  /** The worker's whole time on the batch: input preparation, the run and decoding. */
  readonly workerMs: number;
  readonly provider: ExecutionDevice;
}

export interface RunOptions {
  readonly priority?: InferencePriority;
  readonly signal?: AbortSignal;
}

export interface BatchEvent {
  readonly model: string;
  readonly size: number;
  readonly priority: InferencePriority;
  /** Per request: ms between `run()` and the batch being sent to a worker. */
  readonly queueWaitMs: readonly number[];
  readonly runMs: number;
  readonly provider: ExecutionDevice;
  readonly ok: boolean;
}

/** Metrics hooks; see `createInferenceMetrics` for the Prometheus implementation. */
export interface InferenceObserver {
  onBatch?(event: BatchEvent): void;
  onRejected?(event: { model: string; reason: 'busy' | 'closed' }): void;
  onLoad?(event: LoadReport & { worker: number }): void;
  queueDepth?(read: () => number): void;
}

export interface PoolLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface InferencePoolOptions {
  /** Worker threads; 0 or absent: 1 on CUDA, else half the cores (1 to 4). */
  readonly workers?: number;
  /** onnxruntime intra-op threads per worker; default cores / workers (at least 1). */
  readonly intraOpThreads?: number;
  /**
   * Workers (and their onnxruntime threads) run at this nice value with SCHED_BATCH on Linux, so
   * that waking one never preempts the event loop and the event loop wins the CPU when both are
   * runnable. Default 10; null keeps the process's priority.
   */
  readonly workerNice?: number | null;
  readonly device?: ExecutionDevice;
  readonly cudaDeviceId?: number;
  /** Requests per batch. Default 8. */
  readonly maxBatchSize?: number;
  /** How long a `batch` request may wait for others to fill its batch. Default 10 ms. */
  readonly maxWaitMs?: number;
  /** Same for `interactive` requests. Default 2 ms. */
  readonly interactiveMaxWaitMs?: number;
  /** Requests waiting (not running) before `run` answers InferenceBusyError. Default 512. */
  readonly maxQueued?: number;
  /** Cap on a padded batch's float count (batch x time x features). Default 8 x 30 s of 16 kHz audio. */
  readonly maxBatchElements?: number;
  readonly observer?: InferenceObserver;
  readonly logger?: PoolLogger;
}

export interface DeviceReport {
  readonly requested: ExecutionDevice;
  /** Provider of the open sessions: `cpu`, `cuda`, `cuda+cpu` when mixed, `none` before any model is open. */
  readonly active: string;
  readonly workers: number;
  readonly intraOpThreads: number;
  /** Why CUDA was asked for and not used; null otherwise. */
  readonly fallback: string | null;
}

export interface PoolStats {
  readonly queued: number;
  readonly running: number;
  readonly completedRequests: number;
  readonly failedRequests: number;
  readonly rejectedBusy: number;
  readonly batches: number;
  /** batch size -> number of batches of that size */
  readonly batchSizes: Readonly<Record<number, number>>;
  readonly totalQueueWaitMs: number;
  readonly totalRunMs: number;
  /** Worker time around the runs: input preparation (features) and decoding. */
  readonly totalPrepareMs: number;
  readonly totalDecodeMs: number;
}

interface Pending {
  readonly model: string;
  readonly data: Float32Array;
  readonly length: number;
  readonly priority: InferencePriority;
  readonly enqueuedAt: number;
  readonly resolve: (result: InferenceResult) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | null;
}

interface ModelQueue {
  readonly spec: PoolModelSpec;
  readonly interactive: Pending[];
  readonly batch: Pending[];
}

interface Batch {
  readonly id: number;
  readonly model: string;
  readonly requests: Pending[];
  readonly priority: InferencePriority;
  readonly sentAt: number;
}

interface Slot {
  readonly index: number;
  worker: Worker;
  ready: boolean;
  busy: Batch | null;
  /** Models whose spec this worker has been sent (`register` or `load`). */
  readonly registered: Set<string>;
  readonly loaded: Map<string, LoadReport>;
  readonly loadWaiters: Map<string, Array<{ resolve: (r: LoadReport) => void; reject: (e: Error) => void }>>;
  closing: boolean;
  exited: Promise<void>;
}

const DEFAULT_BATCH_ELEMENTS = 8 * 30 * 16_000;

/** Default worker count: one per two cores, 1 to 4; one on CUDA (one GPU context). */
export function defaultWorkerCount(device: ExecutionDevice, cores = availableParallelism()): number {
  if (device === 'cuda') return 1;
  return Math.max(1, Math.min(4, Math.floor(cores / 2)));
}

/**
 * The inference pool every REST job and live stream shares. Requests for the same model are
 * grouped into batches (up to `maxBatchSize`, waiting at most `maxWaitMs` for company, padded
 * to the longest row with the valid lengths passed along), run by onnxruntime in worker
 * threads, and answered with their own row of the output. `interactive` requests go first.
 *
 * The queue is bounded: past `maxQueued` waiting requests `run` rejects with
 * InferenceBusyError (code `service_unavailable`). A worker that dies fails its batch with
 * ModelRunError (`model_error`) and is replaced. `close()` stops intake, lets queued and
 * running work finish, then releases the sessions and ends the workers.
 */
export class InferencePool {
  readonly workerCount: number;
  readonly intraOpThreads: number;
  readonly device: ExecutionDevice;
  private readonly workerNice: number | null;
  private readonly maxBatchSize: number;
  private readonly maxWaitMs: number;
  /** Changed at run time by the overload policy (larger batches under load). */
  private interactiveMaxWaitMs: number;
  private readonly baseInteractiveMaxWaitMs: number;
  private readonly maxQueued: number;
  private readonly maxBatchElements: number;
  private readonly observer: InferenceObserver;
  private readonly logger: PoolLogger | null;
  private readonly models = new Map<string, ModelQueue>();
  private readonly slots: Slot[] = [];
  private queued = 0;
  private nextBatchId = 1;
  private scheduled = false;
  private timer: NodeJS.Timeout | null = null;
  private closing = false;
  private closed: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  private fallback: string | null = null;
  private readonly counters = {
    completedRequests: 0,
    failedRequests: 0,
    rejectedBusy: 0,
    batches: 0,
    batchSizes: {} as Record<number, number>,
    totalQueueWaitMs: 0,
    totalRunMs: 0,
    totalPrepareMs: 0,
    totalDecodeMs: 0,
  };

  private constructor(options: InferencePoolOptions) {
    this.device = options.device ?? 'cpu';
    const cores = availableParallelism();
    this.workerCount = options.workers && options.workers > 0 ? Math.floor(options.workers) : defaultWorkerCount(this.device, cores);
    this.intraOpThreads = options.intraOpThreads ?? Math.max(1, Math.floor(cores / this.workerCount));
    this.workerNice = options.workerNice === undefined ? 10 : options.workerNice;
    this.maxBatchSize = Math.max(1, options.maxBatchSize ?? 8);
    this.maxWaitMs = Math.max(0, options.maxWaitMs ?? 10);
    this.interactiveMaxWaitMs = Math.max(0, options.interactiveMaxWaitMs ?? 2);
    this.baseInteractiveMaxWaitMs = this.interactiveMaxWaitMs;
    this.maxQueued = Math.max(1, options.maxQueued ?? 512);
    this.maxBatchElements = Math.max(1, options.maxBatchElements ?? DEFAULT_BATCH_ELEMENTS);
    this.observer = options.observer ?? {};
    this.logger = options.logger ?? null;
    this.observer.queueDepth?.(() => this.queued);
  }

  /** Starts the workers one after another (onnxruntime's binding is initialised once per thread) and waits until all are ready. */
  static async start(options: InferencePoolOptions = {}): Promise<InferencePool> {
    const pool = new InferencePool(options);
    try {
      for (let i = 0; i < pool.workerCount; i++) await pool.spawn(i);
    } catch (error) {
      await pool.close();
      throw error;
    }
    return pool;
  }

  /** Makes a model runnable; sessions open lazily in each worker on first use (or with `load`). */
  register(spec: PoolModelSpec): void {
    const existing = this.models.get(spec.name);
    if (existing) {
      if (existing.spec.onnxPath !== spec.onnxPath) throw new Error(`model ${spec.name} is already registered with ${existing.spec.onnxPath}`);
      if (!samePlan(existing.spec.decode, spec.decode)) throw new Error(`model ${spec.name} is already registered with another decoding`);
      return;
    }
    this.models.set(spec.name, { spec, interactive: [], batch: [] });
  }

  /** Registers the model and opens its session in every worker now; resolves with each worker's report. */
  async load(spec: PoolModelSpec): Promise<LoadReport[]> {
    this.register(spec);
    const registered = this.models.get(spec.name)!.spec;
    return Promise.all(this.slots.map((slot) => this.loadIn(slot, registered)));
  }

  /** Names of models with a session open in at least one worker. */
  loadedModels(): string[] {
    const names = new Set<string>();
    for (const slot of this.slots) for (const name of slot.loaded.keys()) names.add(name);
    return [...names];
  }

  run(model: string, input: InferenceInput, options: RunOptions = {}): Promise<InferenceResult> {
    const queue = this.models.get(model);
    if (!queue) return Promise.reject(new ModelRunError(model, 'is not registered with the inference pool'));
    if (this.closing) {
      this.observer.onRejected?.({ model, reason: 'closed' });
      return Promise.reject(new InferenceClosedError());
    }
    if (!Number.isInteger(input.length) || input.length < 1 || input.data.length < input.length) {
      return Promise.reject(new RangeError(`input of length ${input.length} does not fit its data (${input.data.length} values)`));
    }
    if (this.queued >= this.maxQueued) {
      this.counters.rejectedBusy++;
      this.observer.onRejected?.({ model, reason: 'busy' });
      return Promise.reject(new InferenceBusyError(this.queued));
    }
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<InferenceResult>((resolve, reject) => {
      const request: Pending = {
        model,
        data: input.data,
        length: input.length,
        priority: options.priority ?? 'batch',
        enqueuedAt: performance.now(),
        resolve,
        reject,
        signal,
        onAbort: null,
      };
      if (signal) {
        request.onAbort = () => this.cancel(queue, request);
        signal.addEventListener('abort', request.onAbort, { once: true });
      }
      (request.priority === 'interactive' ? queue.interactive : queue.batch).push(request);
      this.queued++;
      this.schedule();
    });
  }

  /** How long interactive requests wait for company: `ms`, or the configured value when null. */
  setInteractiveMaxWait(ms: number | null): void {
    this.interactiveMaxWaitMs = ms === null ? this.baseInteractiveMaxWaitMs : Math.max(0, ms);
  }

  deviceReport(): DeviceReport {
    const providers = new Set<string>();
    for (const slot of this.slots) for (const report of slot.loaded.values()) providers.add(report.provider);
    const active = providers.size === 0 ? 'none' : providers.size === 1 ? [...providers][0]! : 'cuda+cpu';
    return { requested: this.device, active, workers: this.workerCount, intraOpThreads: this.intraOpThreads, fallback: this.fallback };
  }

  stats(): PoolStats {
    return {
      queued: this.queued,
      running: this.slots.reduce((n, s) => n + (s.busy?.requests.length ?? 0), 0),
      ...this.counters,
      batchSizes: { ...this.counters.batchSizes },
    };
  }

  /** Stops intake, finishes queued and running work, releases sessions, ends workers. Idempotent. */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    this.schedule();
    if (this.queued > 0 || this.slots.some((s) => s.busy !== null)) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        this.checkDrained();
      });
    }
    if (this.timer) clearTimeout(this.timer);
    await Promise.all(
      this.slots.map(async (slot) => {
        slot.closing = true;
        const timeout = setTimeout(() => void slot.worker.terminate(), 10_000);
        try {
          slot.worker.postMessage({ type: 'close' } satisfies ToWorker);
        } catch {
          // the worker is gone already
        }
        await slot.exited;
        clearTimeout(timeout);
      }),
    );
  }

  private checkDrained(): void {
    if (this.drained && this.queued === 0 && this.slots.every((s) => s.busy === null)) {
      const done = this.drained;
      this.drained = null;
      done();
    }
  }

  private spawn(index: number): Promise<void> {
    const settings: WorkerSettings = { index, device: this.device, cudaDeviceId: 0, intraOpThreads: this.intraOpThreads, backgroundNice: this.workerNice };
    const worker = createInferenceWorker(settings);
    let exitedResolve!: () => void;
    const slot: Slot = {
      index,
      worker,
      ready: false,
      busy: null,
      registered: new Set(),
      loaded: new Map(),
      loadWaiters: new Map(),
      closing: false,
      exited: new Promise<void>((resolve) => (exitedResolve = resolve)),
    };
    this.slots[index] = slot;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'ready') {
          if (message.priorityError !== null) this.logger?.warn({ worker: index, err: message.priorityError }, 'inference worker priority not lowered');
          else if (message.priority !== null && index === 0) this.logger?.info({ worker: index, ...message.priority }, 'inference workers run at background priority');
          started = true;
          slot.ready = true;
          resolve();
          this.schedule();
          return;
        }
        this.onMessage(slot, message);
      });
      worker.on('error', (error) => {
        this.logger?.warn({ worker: index, err: error }, 'inference worker error');
        if (!started) reject(error);
        this.failSlot(slot, `inference worker ${index} failed: ${error.message}`);
      });
      worker.on('exit', (code) => {
        slot.ready = false;
        exitedResolve();
        if (!started) reject(new Error(`inference worker ${index} exited with code ${code} while starting`));
        if (slot.closing) return;
        this.failSlot(slot, `inference worker ${index} exited with code ${code}`);
        if (!this.closing && this.slots[index] === slot) {
          this.logger?.warn({ worker: index, code }, 'inference worker exited; starting a new one');
          setTimeout(() => {
            if (!this.closing) this.spawn(index).catch((err: unknown) => this.logger?.warn({ worker: index, err }, 'inference worker restart failed'));
          }, 500).unref();
        }
      });
    });
  }

  private failSlot(slot: Slot, message: string): void {
    const batch = slot.busy;
    slot.busy = null;
    if (batch) {
      for (const request of batch.requests) {
        this.finishRequest(request);
        this.counters.failedRequests++;
        request.reject(new ModelRunError(batch.model, message));
      }
    }
    for (const [model, waiters] of slot.loadWaiters) for (const w of waiters) w.reject(new ModelRunError(model, message));
    slot.loadWaiters.clear();
    this.checkDrained();
    this.schedule();
  }

  private loadIn(slot: Slot, spec: PoolModelSpec): Promise<LoadReport> {
    const known = slot.loaded.get(spec.name);
    if (known) return Promise.resolve(known);
    return new Promise<LoadReport>((resolve, reject) => {
      const waiters = slot.loadWaiters.get(spec.name) ?? [];
      waiters.push({ resolve, reject });
      slot.loadWaiters.set(spec.name, waiters);
      if (waiters.length === 1) {
        slot.registered.add(spec.name);
        slot.worker.postMessage({ type: 'load', model: spec } satisfies ToWorker);
      }
    });
  }

  private noteLoad(slot: Slot, report: LoadReport): void {
    slot.loaded.set(report.model, report);
    if (report.fallback !== null && this.fallback === null) {
      this.fallback = report.fallback;
      this.logger?.warn({ worker: slot.index, reason: report.fallback }, 'CUDA requested but not available; running on the CPU');
    }
    this.observer.onLoad?.({ ...report, worker: slot.index });
  }

  private onMessage(slot: Slot, message: FromWorker): void {
    switch (message.type) {
      case 'loaded': {
        this.noteLoad(slot, message);
        const waiters = slot.loadWaiters.get(message.model) ?? [];
        slot.loadWaiters.delete(message.model);
        for (const w of waiters) w.resolve(message);
        break;
      }
      case 'warning':
        this.logger?.warn({ worker: slot.index, model: message.model }, message.message);
        break;
      case 'load-failed': {
        const waiters = slot.loadWaiters.get(message.model) ?? [];
        slot.loadWaiters.delete(message.model);
        for (const w of waiters) w.reject(new ModelRunError(message.model, message.message));
        break;
      }
      case 'result':
      case 'failed': {
        const batch = slot.busy;
        if (!batch || batch.id !== message.batchId) return;
        slot.busy = null;
        if (message.load) this.noteLoad(slot, message.load);
        const provider = slot.loaded.get(batch.model)?.provider ?? 'cpu';
        const waits = batch.requests.map((r) => batch.sentAt - r.enqueuedAt);
        if (message.type === 'result') this.deliver(batch, message, waits, provider);
        else {
          for (const request of batch.requests) {
            this.finishRequest(request);
            this.counters.failedRequests++;
            request.reject(new ModelRunError(batch.model, message.message));
          }
        }
        this.observer.onBatch?.({
          model: batch.model,
          size: batch.requests.length,
          priority: batch.priority,
          queueWaitMs: waits,
          runMs: message.type === 'result' ? message.runMs : 0,
          provider,
          ok: message.type === 'result',
        });
        this.checkDrained();
        this.schedule();
        break;
      }
      default:
        break;
    }
  }

  private deliver(batch: Batch, message: Extract<FromWorker, { type: 'result' }>, waits: number[], provider: ExecutionDevice): void {
    const { output, outputDims, outLengths, decoded, runMs } = message;
    const rowDims = outputDims.slice(1);
    const rowSize = rowDims.reduce((a, b) => a * b, 1);
    const size = batch.requests.length;
    this.counters.batches++;
    this.counters.batchSizes[size] = (this.counters.batchSizes[size] ?? 0) + 1;
    this.counters.totalRunMs += runMs;
    this.counters.totalPrepareMs += message.prepareMs;
    this.counters.totalDecodeMs += message.decodeMs;
    batch.requests.forEach((request, i) => {
      this.finishRequest(request);
      if (outputDims[0] !== size) {
        this.counters.failedRequests++;
        request.reject(new ModelRunError(batch.model, `output batch axis is ${outputDims[0]}, expected ${size}`));
        return;
      }
      this.counters.completedRequests++;
      this.counters.totalQueueWaitMs += waits[i]!;
      request.resolve({
        output: new Float32Array(output.buffer, output.byteOffset + i * rowSize * 4, rowSize),
        dims: rowDims,
        outLength: outLengths?.[i] ?? null,
        decoded: decoded?.[i] ?? null,
        batchSize: size,
        queueWaitMs: waits[i]!,
        runMs,
        workerMs: message.prepareMs + runMs + message.decodeMs,
        provider,
      });
    });
  }

  private finishRequest(request: Pending): void {
    if (request.onAbort && request.signal) request.signal.removeEventListener('abort', request.onAbort);
    request.onAbort = null;
  }

  private cancel(queue: ModelQueue, request: Pending): void {
    const list = request.priority === 'interactive' ? queue.interactive : queue.batch;
    const at = list.indexOf(request);
    if (at >= 0) {
      list.splice(at, 1);
      this.queued--;
    }
    // A request already running is answered now; its row of the result is dropped when it comes.
    this.finishRequest(request);
    request.reject(request.signal!.reason);
    this.checkDrained();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.dispatch();
    });
  }

  private dispatch(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    for (;;) {
      if (this.queued === 0) return;
      const idle = this.slots.filter((s) => s.ready && s.busy === null && !s.closing);
      if (idle.length === 0) return;
      const now = performance.now();
      let best: { queue: ModelQueue; priority: InferencePriority; age: number } | null = null;
      let nextDeadline = Number.POSITIVE_INFINITY;
      for (const queue of this.models.values()) {
        const head = queue.interactive[0] ?? queue.batch[0];
        if (!head) continue;
        const priority = head.priority;
        const count = queue.interactive.length + queue.batch.length;
        const wait = priority === 'interactive' ? this.interactiveMaxWaitMs : this.maxWaitMs;
        const age = now - head.enqueuedAt;
        const ready = this.closing || count >= this.batchLimit(queue.spec) || age >= wait;
        if (!ready) {
          nextDeadline = Math.min(nextDeadline, head.enqueuedAt + wait);
          continue;
        }
        const better =
          best === null || (priority === 'interactive' && best.priority === 'batch') || (priority === best.priority && age > best.age);
        if (better) best = { queue, priority, age };
      }
      if (best === null) {
        if (Number.isFinite(nextDeadline)) {
          this.timer = setTimeout(() => this.dispatch(), Math.max(0, nextDeadline - now));
        }
        return;
      }
      const slot = idle.find((s) => s.loaded.has(best.queue.spec.name)) ?? idle[0]!;
      this.send(slot, best.queue);
    }
  }

  /** Without a lengths input padding would change results, so such models run one row at a time. */
  private batchLimit(spec: PoolModelSpec): number {
    if (spec.lengthsName === null) return 1;
    return Math.min(this.maxBatchSize, spec.maxBatchSize ?? this.maxBatchSize);
  }

  private send(slot: Slot, queue: ModelQueue): void {
    const spec = queue.spec;
    const limit = this.batchLimit(spec);
    const requests: Pending[] = [];
    let longest = 0;
    for (const list of [queue.interactive, queue.batch]) {
      while (list.length > 0 && requests.length < limit) {
        const next = list[0]!;
        const widest = Math.max(longest, next.length);
        if (requests.length > 0 && (requests.length + 1) * widest > this.maxBatchElements) break;
        list.shift();
        requests.push(next);
        longest = widest;
      }
      if (requests.length >= limit) break;
    }
    this.queued -= requests.length;
    const rows = requests.length;
    const input = new Float32Array(rows * longest);
    const lengths = spec.lengthsName !== null ? new BigInt64Array(rows) : null;
    requests.forEach((request, i) => {
      input.set(request.data.subarray(0, request.length), i * longest);
      if (lengths) lengths[i] = BigInt(request.length);
    });
    const dims: [number, number] = [rows, longest];
    const batch: Batch = {
      id: this.nextBatchId++,
      model: spec.name,
      requests,
      priority: requests[0]!.priority,
      sentAt: performance.now(),
    };
    slot.busy = batch;
    if (!slot.registered.has(spec.name)) {
      slot.registered.add(spec.name);
      slot.worker.postMessage({ type: 'register', model: spec } satisfies ToWorker);
    }
    const message: ToWorker = { type: 'run', batchId: batch.id, model: spec.name, input, dims, lengths };
    const transfer: ArrayBuffer[] = [input.buffer];
    if (lengths) transfer.push(lengths.buffer);
    slot.worker.postMessage(message, transfer);
  }
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
