import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import type { Cache } from '../../src/platform/cache/cache.js';
import { MemoryCache } from '../../src/platform/cache/memory-cache.js';
import { RedisCache } from '../../src/platform/cache/redis-cache.js';
import { REDIS_URL, skipWithout, testRedisPrefix } from '../helpers/distributed-servers.js';

const redisSkip = await skipWithout('redis');
const prefix = testRedisPrefix('cache');
afterAll(async () => {
  if (!redisSkip) await prefix.clean();
});

/** What every cache promises; the Redis one is also shared between processes (clients). */
function cacheBehaviour(name: string, make: () => Cache, skip = false): void {
  describe.skipIf(skip)(name, () => {
    it('returns fresh copies until the entry expires, and nothing with no time to live', async () => {
      const cache = make();
      try {
        await cache.set('probe:a', { duration_seconds: 8.14, title: 'ሰላም', tags: ['x'] }, 0.3);
        const first = await cache.get<{ title: string; tags: string[] }>('probe:a');
        expect(first).toEqual({ duration_seconds: 8.14, title: 'ሰላም', tags: ['x'] });
        first!.tags.push('changed');
        expect((await cache.get<{ tags: string[] }>('probe:a'))!.tags).toEqual(['x']);
        await new Promise((resolve) => setTimeout(resolve, 450));
        expect(await cache.get('probe:a')).toBeNull();
        await cache.set('probe:zero', 1, 0);
        expect(await cache.get('probe:zero')).toBeNull();
        await cache.set('probe:b', 2, 60);
        await cache.delete('probe:b');
        expect(await cache.get('probe:b')).toBeNull();
        expect((await cache.health()).ok).toBe(true);
      } finally {
        await cache.close();
      }
    });
  });
}

cacheBehaviour('MemoryCache', () => new MemoryCache());
cacheBehaviour('RedisCache (Redis at 127.0.0.1:6379)', () => new RedisCache(new Redis(REDIS_URL), prefix.prefix), redisSkip);

describe.skipIf(redisSkip)('RedisCache across processes', () => {
  it('shows an entry set by one gateway to another', async () => {
    const [a, b] = [RedisCache.connect(REDIS_URL, prefix.prefix), RedisCache.connect(REDIS_URL, prefix.prefix)];
    try {
      await a.set('probe:https://example.com/live.m3u8', { is_live: true }, 60);
      expect(await b.get('probe:https://example.com/live.m3u8')).toEqual({ is_live: true });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('reports an unreachable Redis in its health', async () => {
    const unreachable = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    unreachable.on('error', () => undefined);
    const cache = new RedisCache(unreachable, prefix.prefix);
    try {
      const health = await cache.health();
      expect(health.ok).toBe(false);
      expect(health.detail).toBeTruthy();
    } finally {
      await cache.close();
    }
  });
});
