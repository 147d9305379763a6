import { describe, expect, it } from 'vitest';
import type { TranslationMode } from './translation-engine.js';
import { type QueueDecision, SentenceQueue } from './sentence-queue.js';

interface TestEntry {
  readonly id: number;
  readonly mode: TranslationMode;
  readonly enqueuedAt: number;
  readonly tenant: string;
}

const entry = (id: number, mode: TranslationMode, enqueuedAt: number, tenant = 'a'): TestEntry => ({ id, mode, enqueuedAt, tenant });
const ids = (decision: QueueDecision<TestEntry>): number[] | null => (decision && 'take' in decision ? decision.take.map((e) => e.id) : null);
const tenants = (decision: QueueDecision<TestEntry>): string => (decision && 'take' in decision ? decision.take.map((e) => e.tenant).join('') : '');

describe('SentenceQueue', () => {
  it('waits for company until maxWaitMs, then sends what it has', () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 4, beam: 1 }, maxWaitMs: 5 });
    queue.add([entry(1, 'greedy', 100), entry(2, 'greedy', 101)]);
    expect(queue.next(102)).toEqual({ wakeAt: 105 });
    expect(ids(queue.next(105))).toEqual([1, 2]);
    expect(queue.queued).toBe(0);
    expect(queue.next(106)).toBeNull();
  });

  it('sends a full batch at once and keeps the rest', () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 2, beam: 1 }, maxWaitMs: 50 });
    queue.add([entry(1, 'greedy', 0), entry(2, 'greedy', 0), entry(3, 'greedy', 0)]);
    expect(ids(queue.next(1))).toEqual([1, 2]);
    expect(queue.queued).toBe(1);
  });

  it('never mixes modes and serves greedy (text requests) before older beam sentences', () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 8, beam: 2 }, maxWaitMs: 5 });
    queue.add([entry(1, 'beam', 0), entry(2, 'greedy', 1), entry(3, 'beam', 2), entry(4, 'beam', 2)]);
    expect(ids(queue.next(10))).toEqual([2]);
    expect(ids(queue.next(10))).toEqual([1, 3]);
    expect(queue.queuedIn('beam')).toBe(1);
  });

  it('sends a due beam batch while greedy sentences still wait for company', () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 8, beam: 2 }, maxWaitMs: 5 });
    queue.add([entry(1, 'beam', 0), entry(2, 'greedy', 9)]);
    expect(ids(queue.next(10))).toEqual([1]);
    expect(queue.next(10)).toEqual({ wakeAt: 14 });
  });

  it('removes cancelled entries', () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 8, beam: 2 }, maxWaitMs: 5 });
    queue.add([entry(1, 'greedy', 0), entry(2, 'greedy', 0)]);
    expect(queue.remove((e) => e.id === 1)).toBe(1);
    expect(queue.queued).toBe(1);
  });
});

describe('SentenceQueue fair shares', () => {
  it("serves tenants round-robin: one tenant's backlog delays another's sentence by one sentence, not by the backlog", () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 2, beam: 2 }, maxWaitMs: 5 });
    queue.add(Array.from({ length: 100 }, (_, i) => entry(i, 'beam', 0, 'a')));
    queue.add([entry(1000, 'beam', 1, 'b')]);
    expect(ids(queue.next(10))).toEqual([0, 1000]);
    expect(ids(queue.next(10))).toEqual([1, 2]);
    expect(queue.tenantsIn('beam')).toBe(1);
  });

  it('goes on where the previous batch stopped, so every tenant gets the same share over batches', () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 2, beam: 2 }, maxWaitMs: 0 });
    for (const tenant of ['a', 'b', 'c']) queue.add(Array.from({ length: 4 }, (_, i) => entry(i, 'greedy', 0, tenant)));
    const served = Array.from({ length: 6 }, () => tenants(queue.next(0))).join('');
    expect(served).toBe('abcabcabcabc');
    expect(queue.next(0)).toBeNull();
  });

  it('keeps each tenant first-in first-out and takes a newcomer into the rotation', () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 3, beam: 3 }, maxWaitMs: 0 });
    queue.add([entry(1, 'greedy', 0, 'a'), entry(2, 'greedy', 0, 'a'), entry(3, 'greedy', 0, 'a')]);
    expect(ids(queue.next(0))).toEqual([1, 2, 3]);
    queue.add([entry(4, 'greedy', 1, 'a'), entry(5, 'greedy', 1, 'a'), entry(6, 'greedy', 2, 'b')]);
    expect(ids(queue.next(2))).toEqual([4, 6, 5]);
  });

  it('a batch is due by the oldest sentence of any tenant', () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 8, beam: 8 }, maxWaitMs: 5 });
    queue.add([entry(1, 'greedy', 10, 'a'), entry(2, 'greedy', 3, 'b')]);
    expect(queue.next(4)).toEqual({ wakeAt: 8 });
    expect(ids(queue.next(8))).toEqual([1, 2]);
  });

  it("removing a tenant's sentences keeps the rotation of the others", () => {
    const queue = new SentenceQueue<TestEntry>({ maxBatch: { greedy: 1, beam: 1 }, maxWaitMs: 0 });
    for (const tenant of ['a', 'b', 'c']) queue.add([entry(1, 'greedy', 0, tenant), entry(2, 'greedy', 0, tenant)]);
    expect(tenants(queue.next(0))).toBe('a');
    expect(tenants(queue.next(0))).toBe('b');
    expect(queue.remove((e) => e.tenant === 'a')).toBe(1);
    expect(queue.tenantsIn('greedy')).toBe(2);
    expect(Array.from({ length: 3 }, () => tenants(queue.next(0))).join('')).toBe('cbc');
    expect(queue.queued).toBe(0);
  });
});
