import { describe, expect, it } from 'vitest';
import type { TranslationMode } from './translation-engine.js';
import { SentenceQueue } from './sentence-queue.js';

const entry = (id: number, mode: TranslationMode, enqueuedAt: number) => ({ id, mode, enqueuedAt });

describe('SentenceQueue', () => {
  it('waits for company until maxWaitMs, then sends what it has', () => {
    const queue = new SentenceQueue<ReturnType<typeof entry>>({ maxBatch: { greedy: 4, beam: 1 }, maxWaitMs: 5 });
    queue.add([entry(1, 'greedy', 100), entry(2, 'greedy', 101)]);
    expect(queue.next(102)).toEqual({ wakeAt: 105 });
    const decision = queue.next(105);
    expect(decision && 'take' in decision ? decision.take.map((e) => e.id) : null).toEqual([1, 2]);
    expect(queue.queued).toBe(0);
    expect(queue.next(106)).toBeNull();
  });

  it('sends a full batch at once and keeps the rest', () => {
    const queue = new SentenceQueue<ReturnType<typeof entry>>({ maxBatch: { greedy: 2, beam: 1 }, maxWaitMs: 50 });
    queue.add([entry(1, 'greedy', 0), entry(2, 'greedy', 0), entry(3, 'greedy', 0)]);
    const decision = queue.next(1);
    expect(decision && 'take' in decision ? decision.take.map((e) => e.id) : null).toEqual([1, 2]);
    expect(queue.queued).toBe(1);
  });

  it('never mixes modes and serves greedy (text requests) before older beam sentences', () => {
    const queue = new SentenceQueue<ReturnType<typeof entry>>({ maxBatch: { greedy: 8, beam: 2 }, maxWaitMs: 5 });
    queue.add([entry(1, 'beam', 0), entry(2, 'greedy', 1), entry(3, 'beam', 2), entry(4, 'beam', 2)]);
    const first = queue.next(10);
    expect(first && 'take' in first ? first.take.map((e) => e.id) : null).toEqual([2]);
    const second = queue.next(10);
    expect(second && 'take' in second ? second.take.map((e) => e.id) : null).toEqual([1, 3]);
    expect(queue.queuedIn('beam')).toBe(1);
  });

  it('sends a due beam batch while greedy sentences still wait for company', () => {
    const queue = new SentenceQueue<ReturnType<typeof entry>>({ maxBatch: { greedy: 8, beam: 2 }, maxWaitMs: 5 });
    queue.add([entry(1, 'beam', 0), entry(2, 'greedy', 9)]);
    const decision = queue.next(10);
    expect(decision && 'take' in decision ? decision.take.map((e) => e.id) : null).toEqual([1]);
    expect(queue.next(10)).toEqual({ wakeAt: 14 });
  });

  it('removes cancelled entries', () => {
    const queue = new SentenceQueue<ReturnType<typeof entry>>({ maxBatch: { greedy: 8, beam: 2 }, maxWaitMs: 5 });
    queue.add([entry(1, 'greedy', 0), entry(2, 'greedy', 0)]);
    expect(queue.remove((e) => e.id === 1)).toBe(1);
    expect(queue.queued).toBe(1);
  });
});
