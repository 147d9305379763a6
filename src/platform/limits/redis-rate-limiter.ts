import { Redis } from 'ioredis';
import { decide, windowStart, type RateDecision, type RateLimiter, type WindowCount, type WindowLimit, WINDOW_MS } from './rate-limiter.js';

/**
 * Checks every window and, only when all allow, increments them: one atomic script, so
 * concurrent gateway processes never over-admit. KEYS: one counter per window.
 * ARGV: limits (0 = count only), then each key's expiry in ms.
 */
const CONSUME_SCRIPT = `
local n = #KEYS
for i = 1, n do
  local limit = tonumber(ARGV[i])
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if limit > 0 and count >= limit then
    local counts = {}
    for j = 1, n do counts[j] = tonumber(redis.call('GET', KEYS[j]) or '0') end
    return {i, unpack(counts)}
  end
end
local counts = {}
for i = 1, n do
  local count = redis.call('INCR', KEYS[i])
  if count == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[n + i]) end
  counts[i] = count
end
return {0, unpack(counts)}
`;

export class RedisRateLimiter implements RateLimiter {
  readonly backend = 'redis' as const;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'gw:rl',
  ) {
    this.redis.defineCommand('gatewayRateConsume', { lua: CONSUME_SCRIPT });
  }

  static connect(url: string, prefix = 'gw:rl'): RedisRateLimiter {
    return new RedisRateLimiter(new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false }), prefix);
  }

  /** `{bucket}` is a hash tag: all of a bucket's windows live in one cluster slot. */
  private keys(bucket: string, windows: readonly WindowLimit[], now: number): string[] {
    return windows.map(({ window }) => `${this.prefix}:{${bucket}}:${window}:${windowStart(window, now)}`);
  }

  async consume(bucket: string, windows: readonly WindowLimit[], now = Date.now()): Promise<RateDecision> {
    const keys = this.keys(bucket, windows, now);
    const ttls = windows.map(({ window }) => String(windowStart(window, now) + WINDOW_MS[window] - now + 1000));
    const result = (await (this.redis as unknown as Record<string, (...args: unknown[]) => Promise<number[]>>)['gatewayRateConsume']!(
      keys.length,
      ...keys,
      ...windows.map((w) => String(w.limit)),
      ...ttls,
    )) as number[];
    const refused = result[0]! - 1;
    return decide(windows, result.slice(1).map(Number), now, refused);
  }

  async peek(bucket: string, windows: readonly WindowLimit[], now = Date.now()): Promise<WindowCount[]> {
    const values = await this.redis.mget(...this.keys(bucket, windows, now));
    return [
      ...decide(
        windows,
        values.map((v) => Number(v ?? 0)),
        now,
        -1,
      ).counts,
    ];
  }

  async health(): Promise<{ ok: boolean; detail?: string }> {
    try {
      await this.redis.ping();
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: (error as Error).message };
    }
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
