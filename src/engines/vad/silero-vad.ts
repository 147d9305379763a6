// Silero VAD for many streams at once, off the event loop.
//
// One worker thread owns the onnxruntime session and every stream's recurrent state. Streams
// feed 16 kHz audio; each full 512-sample window (32 ms) is queued, and whenever the worker
// is idle the queued windows of up to `maxBatch` different streams go to it as one batch (one
// window per stream per batch, since a stream's windows depend on each other). Under light
// load batches are small and latency is one inference; under heavy load they grow to
// maxBatch, which is where batching pays (bench/silero-batch.ts).
//
// Probabilities come back in order per stream and drive that stream's native Endpointer
// (hop 512), which reports speech start/end at absolute sample positions.
//
// Bounds: each stream queues at most `maxQueuedWindowsPerStream` windows; feed() reports
// 'full' beyond that (the caller decides: drop VAD for the stream, or close it), so a slow
// worker never grows memory without bound.
//
// The worker runs on a WorkerHost (runtime/worker-host.ts) at the process's priority and is not
// restarted: once it fails or exits, the VAD has failed (`failure`) and every stream reads 'closed'.
// close() asks the worker to end after the batch in flight (never terminates it under a running
// onnxruntime call, which aborts the process with a Napi::Error), and waits for it to exit.
import type { EndpointEvent } from '../signal/live/endpoint-event.js';
import { Endpointer, type EndpointerOptions } from '../signal/live/endpointer.js';
import { SILERO_SAMPLE_RATE, SILERO_WINDOW } from './silero-model.js';
import { WorkerHost } from '../runtime/worker-host.js';
import type { SileroRequest, SileroResponse, SileroResultMessage } from './silero-protocol.js';

/** How long close() waits for the worker to finish its batch and exit before terminating it. */
const CLOSE_GRACE_MS = 5_000;
/**
 * Most batches (steps) in one message to the worker. Measured (one stream, 12 windows at a
 * time): one window per message cost about 1 ms of CPU per window, half of it the messages.
 */
const MAX_STEPS = 16;

export interface SileroVadOptions {
  /** Most streams per inference call (default 32). */
  maxBatch?: number;
  /** onnxruntime threads in the worker (default 1). */
  threads?: number;
  /** Per-stream queue bound in windows (default 64, about 2 s). */
  maxQueuedWindowsPerStream?: number;
  modelPath?: string;
}

export interface SileroStreamOptions {
  /** Absolute sample position of the first sample fed (default 0). */
  startPosition?: number;
  endpointing?: Omit<EndpointerOptions, 'hopSamples' | 'sampleRate'>;
  onEvent?: (event: EndpointEvent) => void;
  /** Every window's probability, with the absolute position where the window ends. */
  onProbability?: (probability: number, endPosition: number) => void;
}

export type FeedResult = 'ok' | 'full' | 'closed';

export interface SileroVadStats {
  batches: number;
  windows: number;
  /** Sum of the worker's inference time, ms. */
  inferenceMs: number;
  averageBatch: number;
}

export class SileroVad {
  readonly maxBatch: number;
  readonly maxQueuedWindowsPerStream: number;
  readonly #host: WorkerHost<SileroRequest, SileroResponse>;
  readonly #streams = new Map<number, SileroVadStream>();
  /** Streams with queued windows, in round-robin order. */
  readonly #ready: SileroVadStream[] = [];
  #nextStreamId = 1;
  #inFlight = false;
  #scheduled = false;
  #closed = false;
  #closing: Promise<void> | null = null;
  #failure: Error | undefined;
  readonly #stats = { batches: 0, windows: 0, inferenceMs: 0 };
  readonly #idleWaiters: Array<() => void> = [];

  private constructor(options: Required<Omit<SileroVadOptions, 'modelPath'>> & Pick<SileroVadOptions, 'modelPath'>) {
    this.maxBatch = options.maxBatch;
    this.maxQueuedWindowsPerStream = options.maxQueuedWindowsPerStream;
    this.#host = new WorkerHost<SileroRequest, SileroResponse>({
      entry: new URL('./silero-worker.js', import.meta.url),
      label: 'Silero worker',
      starts: (m) => (m.type === 'ready' ? 'ready' : m.type === 'error' ? new Error(m.message) : null),
      replyId: (m) => (m.type === 'result' ? m.id : null),
      onMessage: (m) => {
        if (m.type === 'error') this.#fail(new Error(m.message));
      },
      onExit: (exit) => this.#fail(exit.error ?? new Error(`Silero worker exited with code ${exit.code}`)),
      // The worker finishes the batch it runs, releases its session and exits; terminated only if that hangs.
      close: { message: { type: 'close' }, graceMs: CLOSE_GRACE_MS },
    });
    const { threads, maxBatch, modelPath } = options;
    this.#host.post({ type: 'init', threads, maxBatch, ...(modelPath ? { modelPath } : {}) });
  }

  /** Loads the model in a new worker thread; resolves once it is ready. */
  static async create(options: SileroVadOptions = {}): Promise<SileroVad> {
    const maxBatch = options.maxBatch ?? 32;
    const threads = options.threads ?? 1;
    if (!Number.isInteger(maxBatch) || maxBatch < 1 || maxBatch > 256) throw new RangeError('maxBatch must be 1..256');
    const vad = new SileroVad({
      maxBatch,
      threads,
      maxQueuedWindowsPerStream: options.maxQueuedWindowsPerStream ?? 64,
      modelPath: options.modelPath,
    });
    try {
      await vad.#host.started;
    } catch (err) {
      await vad.#host.close();
      throw err;
    }
    return vad;
  }

  openStream(options: SileroStreamOptions = {}): SileroVadStream {
    if (this.#closed) throw new Error('SileroVad is closed');
    const id = this.#nextStreamId++;
    const stream = new SileroVadStream(this, id, options);
    this.#streams.set(id, stream);
    return stream;
  }

  get stats(): SileroVadStats {
    const s = this.#stats;
    return { ...s, averageBatch: s.batches === 0 ? 0 : s.windows / s.batches };
  }

  get failure(): Error | undefined {
    return this.#failure;
  }

  /** Resolves when no window is queued or in flight. */
  idle(): Promise<void> {
    if (!this.#inFlight && this.#ready.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops the worker (after its batch in flight); queued windows are dropped and streams are closed. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      for (const s of [...this.#streams.values()]) s.close();
      await this.#host.close();
      for (const w of this.#idleWaiters.splice(0)) w();
    })();
    return this.#closing;
  }

  // ---- used by SileroVadStream
  /** @internal */
  enqueue(stream: SileroVadStream): void {
    this.#ready.push(stream);
    this.#schedule();
  }

  /** @internal */
  forget(stream: SileroVadStream, closing: boolean): void {
    const i = this.#ready.indexOf(stream);
    if (i >= 0) this.#ready.splice(i, 1);
    if (closing) this.#streams.delete(stream.id);
    if (!this.#closed) this.#host.post({ type: 'forget', stream: stream.id });
  }

  get closed(): boolean {
    return this.#closed || this.#failure !== undefined;
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight || this.#closed) return;
    this.#scheduled = true;
    // Let every feed() of this turn of the event loop join the batch.
    setImmediate(() => {
      this.#scheduled = false;
      this.#dispatch();
    });
  }

  #dispatch(): void {
    if (this.#inFlight || this.#closed || this.#ready.length === 0) return;
    let step: SileroVadStream[] = [];
    const rest: SileroVadStream[] = [];
    for (const s of this.#ready) {
      if (step.includes(s) || rest.includes(s)) continue;
      if (step.length < this.maxBatch) step.push(s);
      else rest.push(s);
    }
    this.#ready.length = 0;
    // Steps: each runs one window of every stream in it; a stream's next window goes in the next
    // step. Several steps share one message while the batches are small (one stream's backlog:
    // the message costs about as much as the model run), at most MAX_STEPS.
    const rows: SileroVadStream[] = [];
    const steps: number[] = [];
    const taken: Float32Array[] = [];
    while (step.length > 0 && steps.length < MAX_STEPS && (steps.length === 0 || rows.length + step.length <= this.maxBatch)) {
      for (const s of step) {
        rows.push(s);
        taken.push(s.takeWindow());
      }
      steps.push(step.length);
      step = step.filter((s) => s.queued > 0);
    }
    // Windows left wait behind the streams this message could not take.
    this.#ready.push(...rest, ...step);
    const ids = new Int32Array(rows.length);
    const windows = new Float32Array(rows.length * SILERO_WINDOW);
    rows.forEach((s, b) => {
      ids[b] = s.id;
      windows.set(taken[b]!, b * SILERO_WINDOW);
    });
    this.#inFlight = true;
    this.#host
      .request((id) => ({ type: 'batch', id, streams: ids, windows, steps: Int32Array.from(steps) }), [windows.buffer])
      .then(
        (m) => this.#onResult(m as SileroResultMessage),
        () => {
          // The worker failed or was closed: #fail (from onExit) or close() has dealt with it.
        },
      );
  }

  #onResult(m: SileroResultMessage): void {
    this.#inFlight = false;
    this.#stats.batches += m.steps;
    this.#stats.windows += m.streams.length;
    this.#stats.inferenceMs += m.runMs;
    for (let b = 0; b < m.streams.length; b++) {
      this.#streams.get(m.streams[b]!)?.deliver(m.probabilities[b]!);
    }
    if (this.#ready.length > 0) this.#dispatch();
    else for (const w of this.#idleWaiters.splice(0)) w();
  }

  #fail(err: Error): void {
    if (this.#failure) return;
    this.#failure = err;
    this.#inFlight = false;
    this.#ready.length = 0;
    for (const w of this.#idleWaiters.splice(0)) w();
  }
}

export class SileroVadStream {
  readonly id: number;
  readonly #vad: SileroVad;
  readonly #endpointer: Endpointer;
  readonly #onEvent: ((e: EndpointEvent) => void) | undefined;
  readonly #onProbability: ((p: number, end: number) => void) | undefined;
  readonly #partial = new Float32Array(SILERO_WINDOW);
  #partialFill = 0;
  readonly #queue: Float32Array[] = [];
  /** Windows sent to the worker and not answered yet. */
  #inFlight = 0;
  /** Absolute position of the end of the last window answered. */
  #resultPosition: number;
  /** Incremented by reset(): answers for windows fed before it are ignored. */
  #epoch = 0;
  readonly #windowEpochs: number[] = [];
  #closed = false;
  readonly #events: EndpointEvent[] = [];
  readonly #probability = new Float32Array(1);

  /** @internal use SileroVad.openStream() */
  constructor(vad: SileroVad, id: number, options: SileroStreamOptions) {
    this.#vad = vad;
    this.id = id;
    this.#endpointer = new Endpointer({ ...options.endpointing, hopSamples: SILERO_WINDOW, sampleRate: SILERO_SAMPLE_RATE });
    const start = options.startPosition ?? 0;
    this.#endpointer.resetAt(start);
    this.#resultPosition = start;
    this.#onEvent = options.onEvent;
    this.#onProbability = options.onProbability;
  }

  /**
   * Feeds 16 kHz mono samples (any length). Returns 'full' when this stream already has
   * maxQueuedWindowsPerStream windows waiting (the new audio is not analysed), 'closed' after
   * close() or a worker failure.
   */
  feed(samples: Float32Array): FeedResult {
    if (this.#closed || this.#vad.closed) return 'closed';
    let result: FeedResult = 'ok';
    let at = 0;
    while (at < samples.length) {
      const take = Math.min(samples.length - at, SILERO_WINDOW - this.#partialFill);
      this.#partial.set(samples.subarray(at, at + take), this.#partialFill);
      this.#partialFill += take;
      at += take;
      if (this.#partialFill === SILERO_WINDOW) {
        this.#partialFill = 0;
        if (this.#queue.length >= this.#vad.maxQueuedWindowsPerStream) {
          result = 'full';
          continue;
        }
        this.#queue.push(this.#partial.slice());
        this.#windowEpochs.push(this.#epoch);
        if (this.#queue.length === 1) this.#vad.enqueue(this);
      }
    }
    return result;
  }

  /** Windows queued or in flight. */
  get pending(): number {
    return this.#queue.length + this.#inFlight;
  }

  /** Absolute position up to which the VAD has answered (audio before it was judged). */
  get analysedPosition(): number {
    return this.#resultPosition;
  }

  /**
   * End of stream: waits for this stream's windows to be answered, then closes an open turn.
   * Returns the events that produced (they also go to onEvent).
   */
  async finish(): Promise<EndpointEvent[]> {
    while (this.pending > 0 && !this.#vad.closed) await this.#vad.idle();
    if (this.#closed) return [];
    const events = this.#endpointer.flush([]);
    for (const e of events) this.#onEvent?.(e);
    return events;
  }

  /** CLEAR: drops queued audio, the recurrent state and any turn; continues at `position`. */
  reset(position: number): void {
    this.#queue.length = 0;
    this.#partialFill = 0;
    this.#epoch++;
    this.#windowEpochs.length = this.#inFlight; // windows in flight keep their old epoch
    this.#vad.forget(this, false);
    this.#endpointer.resetAt(position);
    this.#resultPosition = position;
  }

  /** Events produced since the last call (also delivered to onEvent). */
  takeEvents(): EndpointEvent[] {
    return this.#events.splice(0);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#queue.length = 0;
    this.#vad.forget(this, true);
    this.#endpointer.close();
  }

  /** @internal Windows queued, not yet taken by a batch. */
  get queued(): number {
    return this.#queue.length;
  }

  /** @internal The next queued window, now in flight (the VAD queues the stream again while windows are left). */
  takeWindow(): Float32Array {
    const w = this.#queue.shift()!;
    this.#inFlight++;
    return w;
  }

  /** @internal */
  deliver(probability: number): void {
    this.#inFlight--;
    const epoch = this.#windowEpochs.shift();
    if (this.#closed || epoch !== this.#epoch) return;
    this.#resultPosition += SILERO_WINDOW;
    this.#onProbability?.(probability, this.#resultPosition);
    // The callback may close the stream (an offline file's last window): nothing more to do then.
    if (this.#closed) return;
    this.#probability[0] = probability;
    const before = this.#events.length;
    this.#endpointer.process(this.#probability, this.#events);
    for (let i = before; i < this.#events.length; i++) this.#onEvent?.(this.#events[i]!);
  }
}
