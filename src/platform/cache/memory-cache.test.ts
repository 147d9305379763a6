import { describe, expect, it } from 'vitest';
import { MemoryCache } from './memory-cache.js';

describe('MemoryCache', () => {
  it('returns copies until the entry expires', async () => {
    let now = 1_000_000;
    const cache = new MemoryCache(10, () => now);
    await cache.set('a', { n: 1 }, 5);
    const first = await cache.get<{ n: number }>('a');
    expect(first).toEqual({ n: 1 });
    first!.n = 2;
    expect(await cache.get('a')).toEqual({ n: 1 });
    now += 4_999;
    expect(await cache.get('a')).toEqual({ n: 1 });
    now += 1;
    expect(await cache.get('a')).toBeNull();
  });

  it('stays within its bound, dropping expired entries first, then the oldest', async () => {
    let now = 0;
    const cache = new MemoryCache(3, () => now);
    await cache.set('short', 1, 1);
    await cache.set('b', 2, 100);
    await cache.set('c', 3, 100);
    now = 2_000;
    await cache.set('d', 4, 100);
    expect(cache.size).toBe(3);
    expect(await cache.get('b')).toBe(2);
    await cache.set('e', 5, 100);
    expect(cache.size).toBe(3);
    expect(await cache.get('b')).toBeNull();
    expect(await cache.get('e')).toBe(5);
  });

  it('does not store with a zero time to live', async () => {
    const cache = new MemoryCache();
    await cache.set('x', 1, 0);
    expect(await cache.get('x')).toBeNull();
  });
});
