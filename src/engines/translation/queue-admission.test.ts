import { describe, expect, it } from 'vitest';
import { DrainRate, QueueRoom, retryAfterSeconds } from './queue-admission.js';

describe('QueueRoom', () => {
  it('weighs the whole request: it gets in only when all of it fits', () => {
    const room = new QueueRoom({ maxQueued: 10, maxQueuedPerTenant: 10 });
    expect(room.tryHold('greedy', 'a', 6)).toBeNull();
    expect(room.tryHold('greedy', 'b', 5)).toEqual({ reason: 'queue', held: 6, limit: 10 });
    expect(room.heldIn('greedy')).toBe(6);
    expect(room.tryHold('greedy', 'b', 4)).toBeNull();
    expect(room.heldIn('greedy')).toBe(10);
  });

  it('keeps a tenant to its share, so another tenant still finds room', () => {
    const room = new QueueRoom({ maxQueued: 10, maxQueuedPerTenant: 4 });
    expect(room.tryHold('greedy', 'a', 3)).toBeNull();
    expect(room.tryHold('greedy', 'a', 2)).toEqual({ reason: 'tenant', held: 3, limit: 4 });
    expect(room.tryHold('greedy', 'b', 4)).toBeNull();
    expect(room.heldBy('greedy', 'a')).toBe(3);
    expect(room.heldBy('greedy', 'b')).toBe(4);
  });

  it('counts each mode apart and frees room on release', () => {
    const room = new QueueRoom({ maxQueued: 4, maxQueuedPerTenant: 4 });
    expect(room.tryHold('beam', 'a', 4)).toBeNull();
    expect(room.tryHold('greedy', 'a', 4)).toBeNull();
    expect(room.tryHold('beam', 'b', 1)).toMatchObject({ reason: 'queue' });
    room.release('beam', 'a', 4);
    expect(room.heldIn('beam')).toBe(0);
    expect(room.heldBy('beam', 'a')).toBe(0);
    expect(room.tryHold('beam', 'b', 1)).toBeNull();
  });
});

describe('DrainRate and retryAfterSeconds', () => {
  it('averages the sentences per second of worker time per mode', () => {
    const rate = new DrainRate();
    expect(rate.rate('greedy')).toBeNull();
    rate.observe('greedy', 10, 1000);
    expect(rate.rate('greedy')).toBe(10);
    rate.observe('greedy', 20, 1000);
    expect(rate.rate('greedy')).toBeCloseTo(12);
    expect(rate.rate('beam')).toBeNull();
    rate.observe('beam', 0, 100);
    expect(rate.rate('beam')).toBeNull();
  });

  it('says how long the sentences in the way take to drain, in whole seconds within [1, 60]', () => {
    const full = { reason: 'queue', held: 100, limit: 100 } as const;
    expect(retryAfterSeconds(full, 10, null, 1)).toBe(1);
    expect(retryAfterSeconds(full, 10, 4, 1)).toBe(3);
    expect(retryAfterSeconds(full, 10, 100, 1)).toBe(1);
    expect(retryAfterSeconds(full, 1000, 1, 1)).toBe(60);
    // A tenant's own share drains at its round-robin part of the rate.
    const share = { reason: 'tenant', held: 20, limit: 20 } as const;
    expect(retryAfterSeconds(share, 10, 10, 1)).toBe(1);
    expect(retryAfterSeconds(share, 10, 10, 4)).toBe(4);
  });
});
