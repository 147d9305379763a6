import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from './memory-rate-limiter.js';
import type { RateLimiter, WindowLimit } from './rate-limiter.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { connectTestRedis } from '../../../test/helpers/distributed-servers.js';
import { describeEachImplementation } from '../../../test/helpers/suite-fixtures.js';

const windows: WindowLimit[] = [
  { window: 'minute', limit: 3 },
  { window: 'hour', limit: 5 },
  { window: 'day', limit: 0 },
];

describeEachImplementation<RateLimiter>(
  {
    MemoryRateLimiter: async () => new MemoryRateLimiter(),
    'RedisRateLimiter (Redis at 127.0.0.1:6379)': async () => new RedisRateLimiter(await connectTestRedis(), `gw-test-${process.pid}`),
  },
  (current) => {
    it('allows up to the limit in a window, refuses without counting, and resets at the window end', async () => {
      const limiter = current();
      const bucket = `test:${Math.random()}`;
      const t0 = Date.parse('2026-05-05T10:00:10Z');
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await limiter.consume(bucket, windows, t0 + i));
      expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
      expect(results[2]!.reported).toMatchObject({ window: 'minute', count: 3, limit: 3 });
      expect(results[3]!.retryAfter).toBe(50);
      expect(results[3]!.reported.resetAt).toBe(Date.parse('2026-05-05T10:01:00Z'));
      // Next minute: the minute window resets, the hour window keeps counting.
      const t1 = Date.parse('2026-05-05T10:01:05Z');
      expect((await limiter.consume(bucket, windows, t1)).allowed).toBe(true);
      expect((await limiter.consume(bucket, windows, t1)).allowed).toBe(true);
      const hourly = await limiter.consume(bucket, windows, t1);
      expect(hourly.allowed).toBe(false);
      expect(hourly.reported.window).toBe('hour');
      const counts = await limiter.peek(bucket, windows, t1);
      expect(counts.map((c) => c.count)).toEqual([2, 5, 5]);
    });
  },
);

describe('RedisRateLimiter across processes', () => {
  it('never over-admits when two gateways share a bucket', async () => {
    const a = new RedisRateLimiter(await connectTestRedis(), `gw-test-shared-${process.pid}`);
    const b = new RedisRateLimiter(await connectTestRedis(), `gw-test-shared-${process.pid}`);
    try {
      const limit: WindowLimit[] = [{ window: 'minute', limit: 10 }];
      const now = Date.now();
      const decisions = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).consume('shared', limit, now)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
