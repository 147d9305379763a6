/**
 * The translation engine's micro-batcher: sentences of concurrent requests wait here until a
 * batch is due, per decoding mode (greedy and beam rows are never mixed; target languages are,
 * since the language token is part of each row). A batch is due when the mode's batch size of
 * sentences wait or the oldest has waited `maxWaitMs`. Greedy (the text endpoint, interactive)
 * goes before beam (file jobs, background) whenever both are due, so a long job never queues
 * ahead of a text request. Pure: the engine passes the clock in and owns timers and the worker.
 */
import type { TranslationMode } from './translation-engine.js';

export interface QueuedSentence {
  readonly mode: TranslationMode;
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

export class SentenceQueue<T extends QueuedSentence> {
  private readonly waiting: Record<TranslationMode, T[]> = { greedy: [], beam: [] };

  constructor(private readonly options: SentenceQueueOptions) {}

  get queued(): number {
    return this.waiting.greedy.length + this.waiting.beam.length;
  }

  /** Sentences of one mode waiting. */
  queuedIn(mode: TranslationMode): number {
    return this.waiting[mode].length;
  }

  add(entries: readonly T[]): void {
    for (const entry of entries) this.waiting[entry.mode].push(entry);
  }

  /** Removes entries (a cancelled request's); returns how many were still waiting. */
  remove(predicate: (entry: T) => boolean): number {
    let removed = 0;
    for (const mode of ['greedy', 'beam'] as const) {
      const before = this.waiting[mode].length;
      this.waiting[mode] = this.waiting[mode].filter((e) => !predicate(e));
      removed += before - this.waiting[mode].length;
    }
    return removed;
  }

  /** What to send now: a batch, the time the next one is due, or null when nothing waits. `flush` sends without waiting. */
  next(now: number, flush = false): QueueDecision<T> {
    let wakeAt = Infinity;
    for (const mode of PRIORITY) {
      const list = this.waiting[mode];
      if (list.length === 0) continue;
      const size = Math.max(1, this.options.maxBatch[mode]);
      const due = list[0]!.enqueuedAt + this.options.maxWaitMs;
      if (flush || list.length >= size || due <= now) return { take: list.splice(0, size) };
      wakeAt = Math.min(wakeAt, due);
    }
    return wakeAt === Infinity ? null : { wakeAt };
  }
}
