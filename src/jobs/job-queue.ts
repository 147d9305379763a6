/**
 * What a handler asks of the queue as it returns: nothing (the id is done with), or to hand the
 * id out again after `retryAfterMs` (0: at once, behind the ids waiting now).
 */
export type QueueVerdict = void | { readonly retryAfterMs: number };

export type QueueHandler = (jobId: string) => Promise<QueueVerdict>;

/**
 * Hands job ids to workers. The job store is the source of truth: a queue only carries ids, so
 * after a restart the queue is refilled from the store's queued jobs, and an id delivered for a
 * job that is no longer queued is simply dropped. Implementations: in-process (one gateway) and
 * Redis (several gateways; an id held by a process that dies is delivered again).
 */
export interface JobQueue {
  readonly backend: 'in-process' | 'redis';
  /** Adds an id, unless it is already waiting, delayed or being handled (adding is idempotent). */
  enqueue(jobId: string): Promise<void>;
  /** Makes a delayed id due now; false when it was not delayed. */
  promote(jobId: string): Promise<boolean>;
  /** Starts delivering ids to `handler`, at most `concurrency` at a time. */
  consume(handler: QueueHandler): void;
  /** Ids waiting (not counting running or delayed ones; the Redis figure is refreshed every few seconds). */
  waiting(): number;
  running(): number;
  /**
   * Stops delivering; resolves true once running handlers have returned, false when `timeoutMs`
   * passed first (a later call waits again, then lets go regardless).
   */
  close(timeoutMs: number): Promise<boolean>;
  health(): Promise<{ ok: boolean; detail?: string }>;
}

export class InProcessJobQueue implements JobQueue {
  readonly backend = 'in-process' as const;
  private readonly ids: string[] = [];
  private readonly waitingIds = new Set<string>();
  private readonly delayed = new Map<string, NodeJS.Timeout>();
  private readonly runningIds = new Set<string>();
  private handler: QueueHandler | null = null;
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  async enqueue(jobId: string): Promise<void> {
    if (this.closed || this.waitingIds.has(jobId) || this.delayed.has(jobId) || this.runningIds.has(jobId)) return;
    this.push(jobId);
  }

  async promote(jobId: string): Promise<boolean> {
    const timer = this.delayed.get(jobId);
    if (timer === undefined || this.closed) return false;
    clearTimeout(timer);
    this.delayed.delete(jobId);
    this.push(jobId);
    return true;
  }

  consume(handler: QueueHandler): void {
    this.handler = handler;
    this.pump();
  }

  waiting(): number {
    return this.ids.length;
  }

  running(): number {
    return this.runningIds.size;
  }

  private push(jobId: string): void {
    this.ids.push(jobId);
    this.waitingIds.add(jobId);
    this.pump();
  }

  private retry(jobId: string, afterMs: number): void {
    if (this.closed) return;
    if (afterMs <= 0) {
      this.push(jobId);
      return;
    }
    const timer = setTimeout(() => {
      this.delayed.delete(jobId);
      if (!this.closed) this.push(jobId);
    }, afterMs);
    timer.unref();
    this.delayed.set(jobId, timer);
  }

  private pump(): void {
    while (!this.closed && this.handler !== null && this.runningIds.size < this.concurrency && this.ids.length > 0) {
      const id = this.ids.shift()!;
      this.waitingIds.delete(id);
      this.runningIds.add(id);
      const handler = this.handler;
      void (async () => {
        let verdict: QueueVerdict = undefined;
        try {
          verdict = await handler(id);
        } catch {
          // The handler records its own failures on the job; nothing to do here.
        } finally {
          this.runningIds.delete(id);
          if (verdict) this.retry(id, verdict.retryAfterMs);
          if (this.runningIds.size === 0) for (const wake of this.idleWaiters.splice(0)) wake();
          this.pump();
        }
      })();
    }
  }

  close(timeoutMs: number): Promise<boolean> {
    this.closed = true;
    for (const timer of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    if (this.runningIds.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  async health(): Promise<{ ok: boolean }> {
    return { ok: !this.closed };
  }
}
