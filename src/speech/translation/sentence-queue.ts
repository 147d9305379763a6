/**
 * The translation engine's micro-batcher: sentences of concurrent requests wait here until a
 * batch is due, per decoding mode (greedy and beam rows are never mixed; target languages are,
 * since the language token is part of each row). A batch is due when `maxBatch` sentences of a
 * mode wait or the oldest has waited `maxWaitMs`; the oldest mode goes first. Pure: the engine
 * passes the clock in and owns timers and the worker.
 */
import type { TranslationMode } from './translation-engine.js';

export interface QueuedSentence {
  readonly mode: TranslationMode;
  readonly enqueuedAt: number;
}

export interface SentenceQueueOptions {
  readonly maxBatch: number;
  readonly maxWaitMs: number;
}

export type QueueDecision<T> = { readonly take: T[] } | { readonly wakeAt: number } | null;

export class SentenceQueue<T extends QueuedSentence> {
  private readonly waiting: Record<TranslationMode, T[]> = { greedy: [], beam: [] };

  constructor(private readonly options: SentenceQueueOptions) {}

  get queued(): number {
    return this.waiting.greedy.length + this.waiting.beam.length;
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
    const modes = (['greedy', 'beam'] as const).filter((m) => this.waiting[m].length > 0);
    if (modes.length === 0) return null;
    modes.sort((a, b) => this.waiting[a][0]!.enqueuedAt - this.waiting[b][0]!.enqueuedAt);
    let wakeAt = Infinity;
    for (const mode of modes) {
      const list = this.waiting[mode];
      const due = list[0]!.enqueuedAt + this.options.maxWaitMs;
      if (flush || list.length >= this.options.maxBatch || due <= now) return { take: list.splice(0, this.options.maxBatch) };
      wakeAt = Math.min(wakeAt, due);
    }
    return { wakeAt };
  }
}
