import { describe, expect, it } from 'vitest';
import { MemoryConnectionSlots, type ConnectionSlots } from './connection-slots.js';
import { RedisConnectionSlots } from './redis-connection-slots.js';
import { connectTestRedis } from '../../../test/helpers/distributed-servers.js';
import { describeEachImplementation } from '../../../test/helpers/suite-fixtures.js';

const prefix = `gw-test-ws-${process.pid}-${Date.now()}`;

describeEachImplementation<ConnectionSlots>(
  {
    MemoryConnectionSlots: async () => new MemoryConnectionSlots(),
    'RedisConnectionSlots (Redis at 127.0.0.1:6379)': async () => new RedisConnectionSlots(await connectTestRedis(), prefix),
  },
  (current) => {
    it('takes slots up to the limit per key, refuses the next, and frees a slot on release', async () => {
      const slots = current();
      const key = `key-${Math.random()}`;
      const other = `key-${Math.random()}`;
      expect(await slots.tryAcquire(key, 'a', 2)).toBe(true);
      expect(await slots.tryAcquire(key, 'b', 2)).toBe(true);
      expect(await slots.tryAcquire(key, 'c', 2)).toBe(false);
      expect(await slots.tryAcquire(other, 'c', 2)).toBe(true);
      expect(await slots.count(key)).toBe(2);
      // Taking a held slot again is not a second slot.
      expect(await slots.tryAcquire(key, 'a', 2)).toBe(true);
      expect(await slots.count(key)).toBe(2);
      await slots.release(key, 'a');
      await slots.release(key, 'a');
      expect(await slots.count(key)).toBe(1);
      expect(await slots.tryAcquire(key, 'c', 2)).toBe(true);
      expect(await slots.tryAcquire(key, 'd', 2)).toBe(false);
      await slots.release(key, 'b');
      await slots.release(key, 'c');
      await slots.release(other, 'c');
      expect(await slots.count(key)).toBe(0);
    });
  },
);

describe('RedisConnectionSlots across gateways', () => {
  it("counts one key's sessions on every gateway against one limit", async () => {
    const a = new RedisConnectionSlots(await connectTestRedis(), `${prefix}-shared`);
    const b = new RedisConnectionSlots(await connectTestRedis(), `${prefix}-shared`);
    try {
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).tryAcquire('k', `s${i}`, 5)));
      expect(results.filter(Boolean)).toHaveLength(5);
      expect(await a.count('k')).toBe(5);
      expect(await b.count('k')).toBe(5);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("renews the leases of slots it holds, and a stopped gateway's slots end with their lease", async () => {
    const lease = 600;
    const live = new RedisConnectionSlots(await connectTestRedis(), `${prefix}-lease`, { leaseMs: lease });
    const stopped = new RedisConnectionSlots(await connectTestRedis(), `${prefix}-lease`, { leaseMs: lease });
    try {
      expect(await live.tryAcquire('k', 'live', 2)).toBe(true);
      expect(await stopped.tryAcquire('k', 'gone', 2)).toBe(true);
      expect(await live.tryAcquire('k', 'third', 2)).toBe(false);
      // The second gateway stops without releasing (a crash): its renewal timer ends with it.
      await stopped.close();
      await new Promise((resolve) => setTimeout(resolve, lease * 2));
      // Its slot has ended; the live one was renewed (every lease / 3) and still counts.
      expect(await live.count('k')).toBe(1);
      expect(await live.tryAcquire('k', 'third', 2)).toBe(true);
      expect(await live.tryAcquire('k', 'fourth', 2)).toBe(false);
    } finally {
      await live.close();
    }
  });
});
