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
 * (and on close), so that counting a request costs no database write on the hot path. It also
 * holds audio seconds for work that has started here but is not billed yet (a job's probed
 * duration, from before its decoding until it records what it decoded), so the daily quota
 * counts running work; holds live in this process only and are never written.
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

  private readonly held = new Map<string, number>();

  /** Holds `seconds` of a key's audio on the day of `at` until the returned release (idempotent) is called. */
  holdAudio(keyId: string, seconds: number, at: number = Date.now()): () => void {
    const id = `${keyId}\u0000${this.date(at)}`;
    const amount = Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
    this.held.set(id, (this.held.get(id) ?? 0) + amount);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(id) ?? 0) - amount;
      if (left > 1e-9) this.held.set(id, left);
      else this.held.delete(id);
    };
  }

  /** Audio seconds held for a key's running work on a day. */
  heldAudio(keyId: string, date: string): number {
    return this.held.get(`${keyId}\u0000${date}`) ?? 0;
  }

  /** A key's audio seconds on a day: billed (stored and unflushed) and held for running work. */
  async audioSeconds(keyId: string, date: string): Promise<{ billed: number; held: number }> {
    const stored = await this.usage.day(keyId, date);
    return { billed: stored.audioSeconds + this.unflushed(keyId, date).audioSeconds, held: this.heldAudio(keyId, date) };
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
