// Which waiting requests make the next batch, and when a batch is due. Pure: no timers, no
// workers; time comes in as `now` (performance.now() milliseconds in the pool, a fake clock in
// the tests), so every decision is reproducible.
//
// Rules (InferencePool's documented behaviour):
// - Requests queue per model, `interactive` (live streams' turns and finals), `partial` (live
//   streams' partial results) and `batch` (REST jobs) apart.
// - A model's queue is due when its oldest waiting request (interactive first) has waited its
//   priority's `maxWaitMs`, when it holds a full batch, or always while the pool is flushing
//   (closing).
// - Of the due queues, the one whose head has the highest priority goes first (interactive, then
//   partial, then batch); at equal priority the older head goes first (ties: the model registered
//   first). Partials wait as interactive requests do.
// - A batch takes interactive requests first, then partials, then batch ones, each in arrival
//   order (so a turn's final never waits behind other streams' partials), up to the
//   model's row limit and while the padded size (rows x longest row) stays within
//   `maxBatchElements` (a first request always fits).

/** Live streams' turns and finals are `interactive`, their partial results `partial`; both go before `batch` work (REST jobs), finals first. */
export type InferencePriority = 'interactive' | 'partial' | 'batch';

/** Lower goes first. */
const RANK: Readonly<Record<InferencePriority, number>> = { interactive: 0, partial: 1, batch: 2 };

export interface QueuedRequest {
  /** Valid time steps of the request's input: its row's width in a padded batch. */
  readonly length: number;
  readonly priority: InferencePriority;
  /** Clock time of the request's arrival. */
  readonly enqueuedAt: number;
}

export interface BatchSettings {
  /** How long a `batch` request may wait for others to fill its batch. */
  readonly maxWaitMs: number;
  /** Same for `interactive` requests. */
  readonly interactiveMaxWaitMs: number;
  /** Cap on a padded batch's float count (rows x longest row). */
  readonly maxBatchElements: number;
}

/** What to do now: send a batch of `model`, look again at `wakeAt`, or nothing (queues empty). */
export type BatchDecision = { readonly model: string; readonly priority: InferencePriority } | { readonly wakeAt: number } | null;

interface ModelQueue<R> {
  /** Rows per batch for this model. */
  readonly limit: number;
  readonly interactive: R[];
  readonly partial: R[];
  readonly batch: R[];
}

/**
 * Rows per batch of a model: without a lengths input padding would change its results, so such
 * a model runs one row at a time; otherwise the pool's limit, lowered by the manifest's.
 */
export function rowsPerBatch(model: { readonly hasLengths: boolean; readonly maxBatchSize: number | null }, poolMaxBatchSize: number): number {
  if (!model.hasLengths) return 1;
  return Math.min(poolMaxBatchSize, model.maxBatchSize ?? poolMaxBatchSize);
}

export class BatchScheduler<R extends QueuedRequest> {
  private readonly queues = new Map<string, ModelQueue<R>>();
  private count = 0;

  /** The configured interactive wait; `setInteractiveMaxWait(null)` returns to it. */
  private readonly baseInteractiveMaxWaitMs: number;

  constructor(private settings: BatchSettings) {
    this.baseInteractiveMaxWaitMs = settings.interactiveMaxWaitMs;
  }

  /** Overload policy: interactive requests wait `ms` for company (null: the configured wait again). */
  setInteractiveMaxWait(ms: number | null): void {
    this.settings = { ...this.settings, interactiveMaxWaitMs: ms === null ? this.baseInteractiveMaxWaitMs : Math.max(0, ms) };
  }

  /** Requests waiting (not yet taken into a batch). */
  get queued(): number {
    return this.count;
  }

  /** Adds a model's queue (once; later calls keep the first limit). */
  addModel(model: string, limit: number): void {
    if (!this.queues.has(model)) this.queues.set(model, { limit: Math.max(1, limit), interactive: [], partial: [], batch: [] });
  }

  hasModel(model: string): boolean {
    return this.queues.has(model);
  }

  enqueue(model: string, request: R): void {
    this.queue(model)[request.priority].push(request);
    this.count++;
  }

  /** Takes a waiting request out (cancellation); false when it is not waiting (taken already, or unknown). */
  remove(model: string, request: R): boolean {
    const queue = this.queues.get(model);
    if (!queue) return false;
    const list = queue[request.priority];
    const at = list.indexOf(request);
    if (at < 0) return false;
    list.splice(at, 1);
    this.count--;
    return true;
  }

  /** Which model's batch is due at `now` (`flush`: every non-empty queue is due), else when to look again. */
  next(now: number, flush = false): BatchDecision {
    let best: { model: string; priority: InferencePriority; age: number } | null = null;
    let wakeAt = Number.POSITIVE_INFINITY;
    for (const [model, queue] of this.queues) {
      const head = queue.interactive[0] ?? queue.partial[0] ?? queue.batch[0];
      if (!head) continue;
      const priority = head.priority;
      const count = queue.interactive.length + queue.partial.length + queue.batch.length;
      const wait = priority === 'batch' ? this.settings.maxWaitMs : this.settings.interactiveMaxWaitMs;
      const age = now - head.enqueuedAt;
      if (!(flush || count >= queue.limit || age >= wait)) {
        wakeAt = Math.min(wakeAt, head.enqueuedAt + wait);
        continue;
      }
      const better = best === null || RANK[priority] < RANK[best.priority] || (priority === best.priority && age > best.age);
      if (better) best = { model, priority, age };
    }
    if (best !== null) return { model: best.model, priority: best.priority };
    return Number.isFinite(wakeAt) ? { wakeAt } : null;
  }

  /** Takes `model`'s next batch out of its queue; `longest` is the padded row width. */
  take(model: string): { requests: R[]; longest: number } {
    const queue = this.queue(model);
    const requests: R[] = [];
    let longest = 0;
    for (const list of [queue.interactive, queue.partial, queue.batch]) {
      while (list.length > 0 && requests.length < queue.limit) {
        const next = list[0]!;
        const widest = Math.max(longest, next.length);
        if (requests.length > 0 && (requests.length + 1) * widest > this.settings.maxBatchElements) break;
        list.shift();
        requests.push(next);
        longest = widest;
      }
      if (requests.length >= queue.limit) break;
    }
    this.count -= requests.length;
    return { requests, longest };
  }

  private queue(model: string): ModelQueue<R> {
    const queue = this.queues.get(model);
    if (!queue) throw new Error(`no queue for model ${model}`);
    return queue;
  }
}
