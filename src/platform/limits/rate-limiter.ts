export type RateWindow = 'minute' | 'hour' | 'day';

export const WINDOW_MS: Record<RateWindow, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** A window to count in; `limit` 0 counts without limiting (for usage figures). */
export interface WindowLimit {
  readonly window: RateWindow;
  readonly limit: number;
}

export interface WindowCount {
  readonly window: RateWindow;
  readonly count: number;
  readonly limit: number;
  /** Unix milliseconds at which this window's count resets. */
  readonly resetAt: number;
}

export interface RateDecision {
  readonly allowed: boolean;
  /** The window reported in X-RateLimit-* headers: the first one, or the one that refused. */
  readonly reported: WindowCount;
  readonly counts: readonly WindowCount[];
  /** Seconds until the refusing window resets (0 when allowed). */
  readonly retryAfter: number;
}

/**
 * Fixed-window counters keyed by bucket (an API key id, or an address for anonymous calls).
 * A refused request is not counted. Implementations: in-process memory (one gateway process)
 * and Redis (shared by every gateway process).
 */
export interface RateLimiter {
  readonly backend: 'memory' | 'redis';
  consume(bucket: string, windows: readonly WindowLimit[], now?: number): Promise<RateDecision>;
  /** Current counts without counting anything. */
  peek(bucket: string, windows: readonly WindowLimit[], now?: number): Promise<WindowCount[]>;
  health(): Promise<{ ok: boolean; detail?: string }>;
  close(): Promise<void>;
}

export function windowStart(window: RateWindow, now: number): number {
  return Math.floor(now / WINDOW_MS[window]) * WINDOW_MS[window];
}

export function decide(windows: readonly WindowLimit[], counts: readonly number[], now: number, refusedIndex: number): RateDecision {
  const windowCounts: WindowCount[] = windows.map((w, i) => ({
    window: w.window,
    count: counts[i] ?? 0,
    limit: w.limit,
    resetAt: windowStart(w.window, now) + WINDOW_MS[w.window],
  }));
  const allowed = refusedIndex < 0;
  const reported = windowCounts[allowed ? 0 : refusedIndex]!;
  return {
    allowed,
    reported,
    counts: windowCounts,
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((reported.resetAt - now) / 1000)),
  };
}
