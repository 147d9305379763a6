import type { Logger } from 'pino';
import { utcDate } from '../db/dates.js';
import type { UsageStore } from '../db/store-types.js';

interface Pending {
  requests: number;
  audioSeconds: number;
  jobs: number;
}

/**
 * Accumulates per-key daily usage in memory and writes it to the store every few seconds
 * (and on close), so that counting a request costs no database write on the hot path.
 */
export class UsageRecorder {
  private pending = new Map<string, Pending>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly usage: UsageStore,
    private readonly logger: Logger,
    flushIntervalMs = 5_000,
  ) {
    this.timer = setInterval(() => void this.flush(), flushIntervalMs);
    this.timer.unref();
  }

  private dayStart = 0;
  private dayText = '';

  /** UTC date of `at`, recomputed only when the day changes. */
  private date(at: number): string {
    if (at < this.dayStart || at >= this.dayStart + 86_400_000) {
      this.dayStart = at - (at % 86_400_000);
      this.dayText = utcDate(at);
    }
    return this.dayText;
  }

  record(keyId: string, delta: Partial<Pending>, at: number = Date.now()): void {
    const id = `${keyId}\u0000${this.date(at)}`;
    let entry = this.pending.get(id);
    if (entry === undefined) {
      entry = { requests: 0, audioSeconds: 0, jobs: 0 };
      this.pending.set(id, entry);
    }
    entry.requests += delta.requests ?? 0;
    entry.audioSeconds += delta.audioSeconds ?? 0;
    entry.jobs += delta.jobs ?? 0;
  }

  /** Unflushed usage of a key for a day, to add to what the store holds. */
  unflushed(keyId: string, date: string): Pending {
    return { ...(this.pending.get(`${keyId}\u0000${date}`) ?? { requests: 0, audioSeconds: 0, jobs: 0 }) };
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    for (const [id, delta] of batch) {
      const [keyId, date] = id.split('\u0000') as [string, string];
      try {
        await this.usage.add(keyId, date, delta);
      } catch (error) {
        this.logger.warn({ err: error, keyId }, 'usage flush failed; keeping the counts for the next flush');
        this.record(keyId, delta, Date.parse(`${date}T12:00:00Z`));
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
