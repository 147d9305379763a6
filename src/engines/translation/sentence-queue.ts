/**
 * The translation engine's micro-batcher: sentences of concurrent requests wait here until a
 * batch is due, per decoding mode (greedy and beam rows are never mixed; target languages are,
 * since the language token is part of each row). A batch is due when the mode's batch size of
 * sentences wait or the oldest has waited `maxWaitMs`. Greedy (the text endpoint, interactive)
 * goes before beam (file jobs, background) whenever both are due, so a long job never queues
 * ahead of a text request.
 *
 * Fair shares: inside a mode every tenant (an account) has its own first-in first-out lane, and a
 * batch takes one sentence from each lane in turn, going on where the previous batch of that
 * mode stopped. A tenant with a thousand sentences waiting therefore delays another tenant's
 * sentence by at most one sentence per waiting tenant, never by its whole backlog.
 * Pure: the engine passes the clock in and owns timers, admission and the worker.
 */
import type { TranslationMode } from './translation-engine.js';

export interface QueuedSentence {
  readonly mode: TranslationMode;
  /** Opaque name of whoever asked (an account id); lanes are per tenant. */
  readonly tenant: string;
  readonly enqueuedAt: number;
}

export interface SentenceQueueOptions {
  /** Sentences per batch, per mode. */
  readonly maxBatch: Readonly<Record<TranslationMode, number>>;
  readonly maxWaitMs: number;
}

/** Modes in the order they are served. */
const PRIORITY: readonly TranslationMode[] = ['greedy', 'beam'];

export type QueueDecision<T> = { readonly take: T[] } | { readonly wakeAt: number } | null;

/** One mode's lanes: tenant -> its sentences in arrival order, served round-robin. */
class Lanes<T extends QueuedSentence> {
  private readonly lanes = new Map<string, T[]>();
  /** Tenants with sentences waiting, in rotation order; `cursor` is the next one served. */
  private order: string[] = [];
  private cursor = 0;
  size = 0;

  get tenants(): number {
    return this.order.length;
  }

  add(entry: T): void {
    const lane = this.lanes.get(entry.tenant);
    if (lane) lane.push(entry);
    else {
      this.lanes.set(entry.tenant, [entry]);
      this.order.push(entry.tenant);
    }
    this.size++;
  }

  /** When the oldest waiting sentence arrived (each lane's first is its oldest). */
  oldest(): number {
    let oldest = Infinity;
    for (const lane of this.lanes.values()) oldest = Math.min(oldest, lane[0]!.enqueuedAt);
    return oldest;
  }

  /** Up to `count` sentences, one per tenant in turn. */
  take(count: number): T[] {
    const taken: T[] = [];
    while (taken.length < count && this.order.length > 0) {
      if (this.cursor >= this.order.length) this.cursor = 0;
      const tenant = this.order[this.cursor]!;
      const lane = this.lanes.get(tenant)!;
      taken.push(lane.shift()!);
      if (lane.length > 0) this.cursor++;
      else {
        this.lanes.delete(tenant);
        this.order.splice(this.cursor, 1);
      }
    }
    this.size -= taken.length;
    return taken;
  }

  remove(predicate: (entry: T) => boolean): number {
    let removed = 0;
    for (const [tenant, lane] of this.lanes) {
      const kept = lane.filter((e) => !predicate(e));
      removed += lane.length - kept.length;
      if (kept.length > 0) this.lanes.set(tenant, kept);
      else {
        this.lanes.delete(tenant);
        const at = this.order.indexOf(tenant);
        this.order.splice(at, 1);
        if (at < this.cursor) this.cursor--;
      }
    }
    this.size -= removed;
    return removed;
  }
}

export class SentenceQueue<T extends QueuedSentence> {
  private readonly waiting: Record<TranslationMode, Lanes<T>> = { greedy: new Lanes<T>(), beam: new Lanes<T>() };

  constructor(private readonly options: SentenceQueueOptions) {}

  get queued(): number {
    return this.waiting.greedy.size + this.waiting.beam.size;
  }

  /** Sentences of one mode waiting. */
  queuedIn(mode: TranslationMode): number {
    return this.waiting[mode].size;
  }

  /** Tenants with sentences of one mode waiting. */
  tenantsIn(mode: TranslationMode): number {
    return this.waiting[mode].tenants;
  }

  add(entries: readonly T[]): void {
    for (const entry of entries) this.waiting[entry.mode].add(entry);
  }

  /** Removes entries (a cancelled request's); returns how many were still waiting. */
  remove(predicate: (entry: T) => boolean): number {
    return this.waiting.greedy.remove(predicate) + this.waiting.beam.remove(predicate);
  }

  /** What to send now: a batch, the time the next one is due, or null when nothing waits. `flush` sends without waiting. */
  next(now: number, flush = false): QueueDecision<T> {
    let wakeAt = Infinity;
    for (const mode of PRIORITY) {
      const lanes = this.waiting[mode];
      if (lanes.size === 0) continue;
      const size = Math.max(1, this.options.maxBatch[mode]);
      const due = lanes.oldest() + this.options.maxWaitMs;
      if (flush || lanes.size >= size || due <= now) return { take: lanes.take(size) };
      wakeAt = Math.min(wakeAt, due);
    }
    return wakeAt === Infinity ? null : { wakeAt };
  }
}
