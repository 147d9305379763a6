import { decide, windowStart, type RateDecision, type RateLimiter, type WindowCount, type WindowLimit, WINDOW_MS } from './rate-limiter.js';

interface Counter {
  start: number;
  count: number;
}

/** Counters in this process's memory. Idle buckets are swept every minute. */
export class MemoryRateLimiter implements RateLimiter {
  readonly backend = 'memory' as const;
  private readonly buckets = new Map<string, Map<string, Counter>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    this.sweeper = setInterval(() => this.sweep(Date.now()), 60_000);
    this.sweeper.unref();
  }

  async consume(bucket: string, windows: readonly WindowLimit[], now = Date.now()): Promise<RateDecision> {
    const counters = this.counters(bucket, windows, now);
    const refused = windows.findIndex((w, i) => w.limit > 0 && counters[i]!.count >= w.limit);
    if (refused < 0) for (const counter of counters) counter.count++;
    return decide(
      windows,
      counters.map((c) => c.count),
      now,
      refused,
    );
  }

  async peek(bucket: string, windows: readonly WindowLimit[], now = Date.now()): Promise<WindowCount[]> {
    const counters = this.counters(bucket, windows, now);
    return [
      ...decide(
        windows,
        counters.map((c) => c.count),
        now,
        -1,
      ).counts,
    ];
  }

  async health(): Promise<{ ok: boolean }> {
    return { ok: true };
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }

  private counters(bucket: string, windows: readonly WindowLimit[], now: number): Counter[] {
    let map = this.buckets.get(bucket);
    if (map === undefined) {
      map = new Map();
      this.buckets.set(bucket, map);
    }
    return windows.map(({ window }) => {
      const start = windowStart(window, now);
      let counter = map.get(window);
      if (counter === undefined || counter.start !== start) {
        counter = { start, count: 0 };
        map.set(window, counter);
      }
      return counter;
    });
  }

  private sweep(now: number): void {
    for (const [bucket, map] of this.buckets) {
      for (const [window, counter] of map) {
        if (counter.start + WINDOW_MS[window as keyof typeof WINDOW_MS] <= now) map.delete(window);
      }
      if (map.size === 0) this.buckets.delete(bucket);
    }
  }
}
