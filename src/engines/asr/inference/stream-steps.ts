// The pool's bookkeeping of live streams (issue 30; the worker side is live-streams.ts): which
// worker holds each stream, the one step each stream may have waiting or running, and the steps
// waiting per worker. Pure: the pool decides when a worker takes its steps.
// Rules:
// - A stream is pinned to one worker for its life (the one holding fewest streams when it
//   opened): its state lives there. Ids are never reused.
// - One step per stream at a time; a second is refused (a session's pieces run one at a time).
// - When the worker dies its streams are lost and its waiting steps refused (StreamLostError);
//   the caller restarts the stream with the turn's audio from its start. Until the worker is
//   ready again no stream is placed on it, and a restart moves the stream to a worker that is.
//   A step the worker answers clears `lost`.
// - A worker takes its waiting steps of one model (the oldest step's model), at most `maxSteps`
//   at once, so that the streams' new frames run through the graph together while a turn that
//   arrives meanwhile waits for one bounded batch only.
import type { CtcHypothesis } from '../decoding/ctc-types.js';
import { StreamLostError } from './inference-errors.js';
import type { StreamStepResult } from './inference-protocol.js';

export interface StreamPartial {
  /** The best hypothesis of the turn so far (committed frames plus the provisional tail). */
  readonly text: string;
  /** Whole words every beam prefix starts with: they stay in every later partial and in the stream's final. */
  readonly stableText: string;
  /** Output frames decoded (committed plus tail). */
  readonly frames: number;
  /** A finishing step's: the hypothesis over every frame of the turn (the stream is then closed). */
  readonly final?: { readonly hypothesis: CtcHypothesis; readonly frames: number };
  readonly batchSize: number;
  readonly queueWaitMs: number;
  /** The worker's time on the step's whole batch (as the pool's rows report it: divide by `batchSize` for this step's share). */
  readonly workerMs: number;
}

export interface StreamRecord {
  readonly id: number;
  readonly model: string;
  slot: number;
  readonly keyterms: readonly string[] | null;
  /** The beam over each partial's provisional tail; null: the decoder's (live-streams.ts). */
  readonly tailBeamWidth: number | null;
  lost: boolean;
  closed: boolean;
  pending: PendingStep | null;
}

export interface PendingStep {
  readonly stream: StreamRecord;
  readonly pcm: Float32Array;
  readonly restart: boolean;
  readonly finish: boolean;
  readonly enqueuedAt: number;
  readonly resolve: (partial: StreamPartial) => void;
  readonly reject: (error: unknown) => void;
}

export class StreamSteps {
  private nextId = 1;
  private readonly open = new Map<number, StreamRecord>();
  private readonly waiting: PendingStep[][];
  /** Slots whose worker died and is not ready again. */
  private readonly down = new Set<number>();

  constructor(
    slots: number,
    private readonly maxSteps = Number.POSITIVE_INFINITY,
  ) {
    this.waiting = Array.from({ length: slots }, () => []);
  }

  get streams(): number {
    return this.open.size;
  }

  get queued(): number {
    return this.waiting.reduce((n, list) => n + list.length, 0);
  }

  /** A new stream on the ready worker holding the fewest (any worker when none is ready). */
  start(model: string, keyterms: readonly string[] | null, tailBeamWidth: number | null = null): StreamRecord {
    const stream: StreamRecord = { id: this.nextId++, model, slot: this.leastHeld(), keyterms, tailBeamWidth, lost: false, closed: false, pending: null };
    this.open.set(stream.id, stream);
    return stream;
  }

  private leastHeld(): number {
    const held = this.waiting.map(() => 0);
    for (const stream of this.open.values()) held[stream.slot]!++;
    let best = -1;
    for (const [slot, count] of held.entries()) {
      if (this.down.has(slot) && this.down.size < held.length) continue;
      if (best < 0 || count < held[best]!) best = slot;
    }
    return best;
  }

  /**
   * Queues a step (`finish`: the turn's last one; the stream is closed once it is answered);
   * throws for a closed stream, one with a step in flight, or a lost one fed without `restart`.
   */
  enqueue(stream: StreamRecord, pcm: Float32Array, restart: boolean, now: number, finish = false): Promise<StreamPartial> {
    if (stream.closed) return Promise.reject(new Error('the stream is closed'));
    if (stream.pending !== null) return Promise.reject(new Error('the stream has a step in flight'));
    if (stream.lost && !restart) return Promise.reject(new StreamLostError(stream.id));
    if (this.down.has(stream.slot)) {
      if (!restart || this.down.size >= this.waiting.length) {
        stream.lost = true;
        return Promise.reject(new StreamLostError(stream.id));
      }
      stream.slot = this.leastHeld();
    }
    stream.lost = false;
    return new Promise<StreamPartial>((resolve, reject) => {
      const step: PendingStep = { stream, pcm, restart, finish, enqueuedAt: now, resolve, reject };
      stream.pending = step;
      this.waiting[stream.slot]!.push(step);
    });
  }

  /** Ends a stream; its waiting step (if any) is refused. Returns whether its worker should be told. */
  close(stream: StreamRecord): boolean {
    if (stream.closed) return false;
    stream.closed = true;
    this.open.delete(stream.id);
    const step = stream.pending;
    if (step !== null) {
      const list = this.waiting[stream.slot]!;
      const at = list.indexOf(step);
      if (at >= 0) {
        list.splice(at, 1);
        stream.pending = null;
        step.reject(new Error('the stream is closed'));
      }
    }
    return !stream.lost;
  }

  hasWaiting(slot: number): boolean {
    return this.waiting[slot]!.length > 0;
  }

  /** The slot's oldest waiting steps of the oldest step's model (at most `maxSteps`), now running. */
  take(slot: number): { model: string; steps: PendingStep[] } | null {
    const list = this.waiting[slot]!;
    if (list.length === 0) return null;
    const model = list[0]!.stream.model;
    const steps: PendingStep[] = [];
    const rest: PendingStep[] = [];
    for (const step of list) (step.stream.model === model && steps.length < this.maxSteps ? steps : rest).push(step);
    this.waiting[slot] = rest;
    return { model, steps };
  }

  /** The worker's answers to `steps` (same order); `sentAt` for their queue waits. */
  answer(steps: readonly PendingStep[], results: readonly StreamStepResult[], workerMs: number, sentAt: number): void {
    steps.forEach((step, i) => {
      step.stream.pending = null;
      const result = results[i];
      if (result?.ok) {
        step.stream.lost = false;
        if (step.finish) {
          // the worker dropped the stream with its last step: closed here without telling it
          step.stream.closed = true;
          this.open.delete(step.stream.id);
        }
        step.resolve({
          ...(result.final ? { final: result.final } : {}),
          text: result.text,
          stableText: result.stableText,
          frames: result.frames,
          batchSize: steps.length,
          queueWaitMs: sentAt - step.enqueuedAt,
          workerMs,
        });
        return;
      }
      if (result === undefined || result.lost) {
        step.stream.lost = true;
        step.reject(new StreamLostError(step.stream.id));
      } else step.reject(new Error(result.message));
    });
  }

  /** The steps failed (the worker failed them, or died running them): each is refused with `error`. */
  fail(steps: readonly PendingStep[], error: (step: PendingStep) => unknown): void {
    for (const step of steps) {
      step.stream.pending = null;
      step.reject(error(step));
    }
  }

  /** The slot's worker died: its streams are lost and its waiting steps refused; it takes no stream until `slotReady`. */
  slotLost(slot: number): void {
    this.down.add(slot);
    for (const stream of this.open.values()) if (stream.slot === slot) stream.lost = true;
    for (const step of this.waiting[slot]!.splice(0)) {
      step.stream.pending = null;
      step.reject(new StreamLostError(step.stream.id));
    }
  }

  /** The slot's worker is ready (its first start, or a restart). */
  slotReady(slot: number): void {
    this.down.delete(slot);
  }

  /** Refuses every waiting step (the pool is closing). */
  refuseAll(error: () => unknown): void {
    for (const list of this.waiting) {
      for (const step of list.splice(0)) {
        step.stream.pending = null;
        step.reject(error());
      }
    }
  }
}
