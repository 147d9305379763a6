import { availableParallelism } from 'node:os';
import { samePlan } from '../decoding/decoding-plan.js';
import { BatchScheduler, rowsPerBatch, type InferencePriority, type QueuedRequest } from './batch-scheduler.js';
import { WakeTimer } from '../../runtime/wake-timer.js';
import { InferenceBusyError, InferenceClosedError, ModelRunError, StreamLostError } from './inference-errors.js';
import type { ExecutionDevice, FromWorker, LoadReport, PoolModelSpec, WorkerSettings } from './inference-protocol.js';
import type {
  DeviceReport,
  InferenceInput,
  InferenceObserver,
  InferencePoolOptions,
  InferenceResult,
  PoolLogger,
  PoolStats,
  RunOptions,
} from './pool-types.js';
import { type PendingStep, type StreamPartial, type StreamRecord, StreamSteps } from './stream-steps.js';
import { WorkerSlot, type BatchAnswer, type SlotEvents } from './worker-slot.js';

export type { DecodedRow, ExecutionDevice, LoadReport, PoolModelSpec } from './inference-protocol.js';
export type { InferencePriority } from './batch-scheduler.js';
export type * from './pool-types.js';
export type { StreamPartial } from './stream-steps.js';

/**
 * One live stream's state in the pool's workers (issue 30): `step` feeds the open turn's new
 * audio and answers the partial; `close` ends it (idempotent). A step refused with
 * StreamLostError means the state is gone: feed the turn again from its start with `restart`.
 */
export interface InferenceStream {
  readonly model: string;
  /** `pcm` is transferred to the worker: the caller must not use it afterwards. */
  step(pcm: Float32Array, restart: boolean): Promise<StreamPartial>;
  /** The turn's last audio: answers with `final` (the hypothesis over the whole turn) and closes the stream. */
  finish(pcm: Float32Array, restart: boolean): Promise<StreamPartial>;
  close(): void;
}

interface Pending extends QueuedRequest {
  readonly model: string;
  readonly data: Float32Array;
  readonly keyterms: readonly string[] | null;
  readonly resolve: (result: InferenceResult) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  onAbort: (() => void) | null;
}

interface Batch {
  readonly model: string;
  readonly requests: Pending[];
  /** A batch of live streams' steps (then `requests` is empty). */
  readonly steps: PendingStep[] | null;
  readonly priority: InferencePriority;
  readonly sentAt: number;
}

type Slot = WorkerSlot<Batch>;

const DEFAULT_BATCH_ELEMENTS = 8 * 30 * 16_000;

/** Default worker count: one per two cores, 1 to 4; one on CUDA (one GPU context). */
export function defaultWorkerCount(device: ExecutionDevice, cores = availableParallelism()): number {
  if (device === 'cuda') return 1;
  return Math.max(1, Math.min(4, Math.floor(cores / 2)));
}

/**
 * The inference pool every REST job and live stream shares. Requests for the same model are
 * grouped into batches (up to `maxBatchSize`, waiting at most `maxWaitMs` for company, padded
 * to the longest row with the valid lengths passed along; batch-scheduler.ts), run by
 * onnxruntime in worker threads (worker-slot.ts), and answered with their own row of the
 * output. `interactive` requests go first.
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
  private readonly maxQueued: number;
  private readonly observer: InferenceObserver;
  private readonly logger: PoolLogger | null;
  private readonly specs = new Map<string, PoolModelSpec>();
  private readonly scheduler: BatchScheduler<Pending>;
  private readonly slots: Slot[] = [];
  private readonly slotEvents: SlotEvents<Batch>;
  private scheduled = false;
  private readonly wake = new WakeTimer(() => this.dispatch());
  private closing = false;
  private closed: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  private fallback: string | null = null;
  private readonly streamSteps: StreamSteps;
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
  private readonly streamCounters = { steps: 0, batches: 0, featuresMs: 0, modelMs: 0, decodeMs: 0, workerMs: 0 };

  private constructor(options: InferencePoolOptions) {
    this.device = options.device ?? 'cpu';
    const cores = availableParallelism();
    this.workerCount = options.workers && options.workers > 0 ? Math.floor(options.workers) : defaultWorkerCount(this.device, cores);
    this.intraOpThreads = options.intraOpThreads ?? Math.max(1, Math.floor(cores / this.workerCount));
    this.workerNice = options.workerNice === undefined ? 10 : options.workerNice;
    this.maxBatchSize = Math.max(1, options.maxBatchSize ?? 8);
    this.scheduler = new BatchScheduler<Pending>({
      maxWaitMs: Math.max(0, options.maxWaitMs ?? 10),
      interactiveMaxWaitMs: Math.max(0, options.interactiveMaxWaitMs ?? 2),
      maxBatchElements: Math.max(1, options.maxBatchElements ?? DEFAULT_BATCH_ELEMENTS),
    });
    this.maxQueued = Math.max(1, options.maxQueued ?? 512);
    this.observer = options.observer ?? {};
    this.logger = options.logger ?? null;
    // a step batch is bounded like a row batch, twice as wide (a step is 500 ms of audio plus the tail)
    this.streamSteps = new StreamSteps(this.workerCount, 2 * this.maxBatchSize);
    this.observer.queueDepth?.(() => this.scheduler.queued);
    this.slotEvents = {
      ready: (slot) => {
        this.streamSteps.slotReady(slot.index);
        this.schedule();
      },
      loaded: (slot, report) => this.noteLoad(slot, report),
      answered: (slot, batch, answer) => this.answered(slot, batch, answer),
      failed: (slot, batch, message) => this.failBatch(batch, message, slot),
      exited: (slot, code, restarting) => {
        this.streamSteps.slotLost(slot.index);
        if (restarting) this.logger?.warn({ worker: slot.index, code }, 'inference worker exited; starting a new one');
      },
      restartFailed: (slot, err) => this.logger?.warn({ worker: slot.index, err }, 'inference worker restart failed'),
      mayRestart: () => !this.closing,
    };
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
    const existing = this.specs.get(spec.name);
    if (existing) {
      if (existing.onnxPath !== spec.onnxPath) throw new Error(`model ${spec.name} is already registered with ${existing.onnxPath}`);
      if (!samePlan(existing.decode, spec.decode)) throw new Error(`model ${spec.name} is already registered with another decoding`);
      return;
    }
    this.specs.set(spec.name, spec);
    this.scheduler.addModel(spec.name, rowsPerBatch({ hasLengths: spec.lengthsName !== null, maxBatchSize: spec.maxBatchSize ?? null }, this.maxBatchSize));
  }

  /** Registers the model and opens its session in every worker now; resolves with each worker's report. */
  async load(spec: PoolModelSpec): Promise<LoadReport[]> {
    this.register(spec);
    const registered = this.specs.get(spec.name)!;
    return Promise.all(this.slots.map((slot) => slot.load(registered)));
  }

  /** Names of models with a session open in at least one worker. */
  loadedModels(): string[] {
    const names = new Set<string>();
    for (const slot of this.slots) for (const name of slot.loaded.keys()) names.add(name);
    return [...names];
  }

  run(model: string, input: InferenceInput, options: RunOptions = {}): Promise<InferenceResult> {
    if (!this.specs.has(model)) return Promise.reject(new ModelRunError(model, 'is not registered with the inference pool'));
    if (this.closing) {
      this.observer.onRejected?.({ model, reason: 'closed' });
      return Promise.reject(new InferenceClosedError());
    }
    if (!Number.isInteger(input.length) || input.length < 1 || input.data.length < input.length) {
      return Promise.reject(new RangeError(`input of length ${input.length} does not fit its data (${input.data.length} values)`));
    }
    if (this.scheduler.queued >= this.maxQueued) {
      this.counters.rejectedBusy++;
      this.observer.onRejected?.({ model, reason: 'busy' });
      return Promise.reject(new InferenceBusyError(this.scheduler.queued));
    }
    const signal = options.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<InferenceResult>((resolve, reject) => {
      const request: Pending = {
        model,
        data: input.data,
        keyterms: options.keyterms && options.keyterms.length > 0 ? options.keyterms : null,
        length: input.length,
        priority: options.priority ?? 'batch',
        enqueuedAt: performance.now(),
        resolve,
        reject,
        signal,
        onAbort: null,
      };
      if (signal) {
        request.onAbort = () => this.cancel(request);
        signal.addEventListener('abort', request.onAbort, { once: true });
      }
      this.scheduler.enqueue(model, request);
      this.schedule();
    });
  }

  /**
   * A live stream on `model`'s streaming step graph (its spec has `streaming`), pinned to one
   * worker. Steps run at `partial` priority: after due interactive batches, before `batch` work;
   * a worker's waiting steps run together, at most twice `maxBatchSize` in one batch.
   * `tailBeamWidth` narrows the beam over each partial's provisional tail (null: the model's beam).
   */
  openStream(model: string, keyterms: readonly string[] | null = null, tailBeamWidth: number | null = null): InferenceStream {
    const spec = this.specs.get(model);
    if (!spec) throw new ModelRunError(model, 'is not registered with the inference pool');
    if (spec.streaming === null) throw new ModelRunError(model, 'has no streaming step graph');
    if (tailBeamWidth !== null && (!Number.isInteger(tailBeamWidth) || tailBeamWidth < 1))
      throw new RangeError('tailBeamWidth must be an integer >= 1 or null');
    const record = this.streamSteps.start(model, keyterms && keyterms.length > 0 ? keyterms : null, tailBeamWidth);
    return {
      model,
      step: (pcm, restart) => this.step(record, pcm, restart, false),
      finish: (pcm, restart) => this.step(record, pcm, restart, true),
      close: () => {
        if (this.streamSteps.close(record)) this.slots[record.slot]?.closeStreams(model, [record.id]);
      },
    };
  }

  private step(record: StreamRecord, pcm: Float32Array, restart: boolean, finish: boolean): Promise<StreamPartial> {
    if (this.closing) return Promise.reject(new InferenceClosedError());
    const stepped = this.streamSteps.enqueue(record, pcm, restart, performance.now(), finish);
    this.schedule();
    return stepped;
  }

  /** How long interactive requests wait for company: `ms`, or the configured value when null (overload policy). */
  setInteractiveMaxWait(ms: number | null): void {
    this.scheduler.setInteractiveMaxWait(ms);
  }

  deviceReport(): DeviceReport {
    const providers = new Set<string>();
    for (const slot of this.slots) for (const report of slot.loaded.values()) providers.add(report.provider);
    const active = providers.size === 0 ? 'none' : providers.size === 1 ? [...providers][0]! : 'cuda+cpu';
    return { requested: this.device, active, workers: this.workerCount, intraOpThreads: this.intraOpThreads, fallback: this.fallback };
  }

  stats(): PoolStats {
    return {
      queued: this.scheduler.queued,
      running: this.slots.reduce((n, s) => n + (s.busy?.requests.length ?? 0) + (s.busy?.steps?.length ?? 0), 0),
      ...this.counters,
      batchSizes: { ...this.counters.batchSizes },
      streams: { open: this.streamSteps.streams, ...this.streamCounters },
    };
  }

  /** Stops intake, finishes queued and running work, releases sessions, ends workers. Idempotent. */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    this.streamSteps.refuseAll(() => new InferenceClosedError());
    this.schedule();
    if (this.scheduler.queued > 0 || this.slots.some((s) => s.busy !== null)) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        this.checkDrained();
      });
    }
    this.wake.cancel();
    await Promise.all(this.slots.map((slot) => slot.close()));
  }

  private checkDrained(): void {
    if (this.drained && this.scheduler.queued === 0 && this.slots.every((s) => s.busy === null)) {
      const done = this.drained;
      this.drained = null;
      done();
    }
  }

  private spawn(index: number): Promise<void> {
    const settings: WorkerSettings = { index, device: this.device, cudaDeviceId: 0, intraOpThreads: this.intraOpThreads };
    const slot = new WorkerSlot<Batch>(settings, this.workerNice, this.slotEvents, this.logger);
    this.slots[index] = slot;
    return slot.started;
  }

  /** Fails the batch of a worker that failed or exited (the slot restarts the worker). */
  private failBatch(batch: Batch, message: string, slot: Slot): void {
    if (batch.steps !== null) this.failSteps(slot, batch);
    for (const request of batch.requests) {
      this.finishRequest(request);
      this.counters.failedRequests++;
      request.reject(new ModelRunError(batch.model, message));
    }
    this.checkDrained();
    this.schedule();
  }

  private noteLoad(slot: Slot, report: LoadReport): void {
    if (report.fallback !== null && this.fallback === null) {
      this.fallback = report.fallback;
      this.logger?.warn({ worker: slot.index, reason: report.fallback }, 'CUDA requested but not available; running on the CPU');
    }
    this.observer.onLoad?.({ ...report, worker: slot.index });
  }

  /**
   * Steps whose batch failed: their streams' state is not to be trusted any more. A worker that
   * is still there is told to drop them (their next step restarts them).
   */
  private failSteps(slot: Slot, batch: Batch): void {
    const steps = batch.steps ?? [];
    slot.closeStreams(
      batch.model,
      steps.map((step) => step.stream.id),
    );
    this.streamSteps.fail(steps, (step) => {
      step.stream.lost = true;
      return new StreamLostError(step.stream.id);
    });
  }

  private answered(slot: Slot, batch: Batch, answer: BatchAnswer): void {
    if (batch.steps !== null) {
      // live streams' steps count as `partial` batches: their waits and graph time beside the requests'
      this.observer.onBatch?.({
        model: batch.model,
        size: batch.steps.length,
        priority: batch.priority,
        queueWaitMs: batch.steps.map((step) => batch.sentAt - step.enqueuedAt),
        runMs: answer.type === 'stream-result' ? answer.times.modelMs : 0,
        provider: slot.loaded.get(batch.model)?.provider ?? 'cpu',
        ok: answer.type === 'stream-result',
      });
      if (answer.type === 'stream-result') {
        const counters = this.streamCounters;
        counters.steps += batch.steps.length;
        counters.batches++;
        counters.featuresMs += answer.times.featuresMs;
        counters.modelMs += answer.times.modelMs;
        counters.decodeMs += answer.times.decodeMs;
        counters.workerMs += answer.workerMs;
        this.streamSteps.answer(batch.steps, answer.results, answer.workerMs, batch.sentAt);
      } else this.failSteps(slot, batch);
      this.checkDrained();
      this.schedule();
      return;
    }
    const provider = slot.loaded.get(batch.model)?.provider ?? 'cpu';
    const waits = batch.requests.map((r) => batch.sentAt - r.enqueuedAt);
    if (answer.type === 'result') this.deliver(batch, answer, waits, provider);
    else if (answer.type === 'failed') {
      for (const request of batch.requests) {
        this.finishRequest(request);
        this.counters.failedRequests++;
        request.reject(new ModelRunError(batch.model, answer.message));
      }
    }
    this.observer.onBatch?.({
      model: batch.model,
      size: batch.requests.length,
      priority: batch.priority,
      queueWaitMs: waits,
      runMs: answer.type === 'result' ? answer.runMs : 0,
      provider,
      ok: answer.type === 'result',
    });
    this.checkDrained();
    this.schedule();
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

  private cancel(request: Pending): void {
    this.scheduler.remove(request.model, request);
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

  /**
   * Sends due batches to idle workers (preferring one that has the model open); sets a timer for
   * the next due one. A worker with live streams' steps waiting takes them before any batch but
   * a due `interactive` one.
   */
  private dispatch(): void {
    this.wake.cancel();
    for (;;) {
      const idle = this.slots.filter((s) => s.idle);
      if (idle.length === 0) return;
      const now = performance.now();
      const decision = this.scheduler.queued === 0 ? null : this.wake.due(this.scheduler.next(now, this.closing), now);
      const stepping = idle.find((s) => this.streamSteps.hasWaiting(s.index));
      if (stepping !== undefined && decision?.priority !== 'interactive') {
        this.sendSteps(stepping);
        continue;
      }
      if (decision === null) return;
      const slot = idle.find((s) => s.loaded.has(decision.model)) ?? idle[0]!;
      this.send(slot, this.specs.get(decision.model)!);
    }
  }

  private sendSteps(slot: Slot): void {
    const taken = this.streamSteps.take(slot.index)!;
    const batch: Batch = { model: taken.model, requests: [], steps: taken.steps, priority: 'partial', sentAt: performance.now() };
    slot.runSteps(
      batch,
      this.specs.get(taken.model)!,
      taken.steps.map((step) => ({
        streamId: step.stream.id,
        pcm: step.pcm,
        restart: step.restart,
        finish: step.finish,
        keyterms: step.stream.keyterms,
        tailBeamWidth: step.stream.tailBeamWidth,
      })),
    );
  }

  private send(slot: Slot, spec: PoolModelSpec): void {
    const { requests, longest } = this.scheduler.take(spec.name);
    const rows = requests.length;
    const input = new Float32Array(rows * longest);
    const lengths = spec.lengthsName !== null ? new BigInt64Array(rows) : null;
    requests.forEach((request, i) => {
      input.set(request.data.subarray(0, request.length), i * longest);
      if (lengths) lengths[i] = BigInt(request.length);
    });
    const batch: Batch = {
      model: spec.name,
      requests,
      steps: null,
      priority: requests[0]!.priority,
      sentAt: performance.now(),
    };
    const keyterms = requests.some((request) => request.keyterms !== null) ? requests.map((request) => request.keyterms) : null;
    slot.run(batch, spec, input, [rows, longest], lengths, keyterms);
  }
}
