import { describe, expect, it } from 'vitest';
import { BatchScheduler, rowsPerBatch, type InferencePriority, type QueuedRequest } from './batch-scheduler.js';

interface Req extends QueuedRequest {
  readonly name: string;
}

/** A fake clock: the scheduler only sees the times passed to it. */
class Clock {
  now = 1_000;
  advance(ms: number): number {
    this.now += ms;
    return this.now;
  }
}

const settings = { maxWaitMs: 10, interactiveMaxWaitMs: 2, maxBatchElements: 1_000 };

function setup(limits: Record<string, number> = { a: 4 }) {
  const clock = new Clock();
  const scheduler = new BatchScheduler<Req>(settings);
  for (const [model, limit] of Object.entries(limits)) scheduler.addModel(model, limit);
  const add = (model: string, name: string, priority: InferencePriority = 'batch', length = 10): Req => {
    const request = { name, priority, length, enqueuedAt: clock.now };
    scheduler.enqueue(model, request);
    return request;
  };
  const names = (model: string) => scheduler.take(model).requests.map((r) => r.name);
  /** Expects `model` to be the one due now (with its head's priority) and takes its batch: the names in it. */
  const nextBatch = (model: string, priority?: InferencePriority) => {
    expect(scheduler.next(clock.now)).toEqual({ model, priority: priority ?? expect.any(String) });
    return names(model);
  };
  return { clock, scheduler, add, names, nextBatch };
}

describe('batch scheduler', () => {
  it('lets the overload policy lengthen the interactive wait, and null restore the configured one', () => {
    const { clock, scheduler, add, nextBatch } = setup();
    scheduler.setInteractiveMaxWait(20);
    add('a', 'i1', 'interactive');
    expect(scheduler.next(clock.now)).toEqual({ wakeAt: 1_020 });
    clock.advance(19);
    expect(scheduler.next(clock.now)).toEqual({ wakeAt: 1_020 });
    scheduler.setInteractiveMaxWait(null);
    expect(nextBatch('a')).toEqual(['i1']);
    add('a', 'i2', 'interactive');
    expect(scheduler.next(clock.now)).toEqual({ wakeAt: clock.now + 2 });
  });

  it('holds a partial batch until its oldest request has waited maxWaitMs', () => {
    const { clock, scheduler, add, nextBatch } = setup();
    add('a', 'r1');
    clock.advance(4);
    add('a', 'r2');
    expect(scheduler.next(clock.now)).toEqual({ wakeAt: 1_010 });
    clock.advance(5); // 9 ms after r1
    expect(scheduler.next(clock.now)).toEqual({ wakeAt: 1_010 });
    clock.advance(1);
    expect(nextBatch('a')).toEqual(['r1', 'r2']);
    expect(scheduler.queued).toBe(0);
    expect(scheduler.next(clock.now)).toBeNull();
  });

  it('sends a full batch at once, and no more than the model limit', () => {
    const { clock, scheduler, add, nextBatch } = setup({ a: 3 });
    for (const n of ['r1', 'r2', 'r3', 'r4']) add('a', n);
    expect(nextBatch('a')).toEqual(['r1', 'r2', 'r3']);
    // The rest is a partial batch again: it waits for r4's deadline.
    expect(scheduler.next(clock.now)).toEqual({ wakeAt: clock.now + 10 });
    expect(scheduler.queued).toBe(1);
  });

  it('gives interactive requests the shorter wait and puts them first in the batch', () => {
    const { clock, scheduler, add, nextBatch } = setup();
    add('a', 'b1', 'batch');
    add('a', 'i1', 'interactive');
    // The queue's head is the interactive request: its 2 ms decide.
    expect(scheduler.next(clock.now)).toEqual({ wakeAt: clock.now + 2 });
    clock.advance(2);
    expect(nextBatch('a')).toEqual(['i1', 'b1']);
  });

  it("puts turns and finals ahead of other streams' partials, and partials ahead of REST work", () => {
    const { clock, scheduler, add, names, nextBatch } = setup({ a: 3, b: 4 });
    add('a', 'p1', 'partial');
    add('a', 'p2', 'partial');
    add('a', 'b1', 'batch');
    add('a', 'f1', 'interactive');
    add('a', 'p3', 'partial');
    // Partials wait as interactive requests do (2 ms), not as batch work.
    // 5 requests: a full batch of 3
    expect(nextBatch('a')).toEqual(['f1', 'p1', 'p2']);
    clock.advance(2);
    expect(nextBatch('a')).toEqual(['p3', 'b1']);
    // Across models: a due queue headed by a final goes before an older one headed by a partial.
    add('b', 'bp', 'partial');
    clock.advance(5);
    add('a', 'af', 'interactive');
    clock.advance(2);
    expect(nextBatch('a')).toEqual(['af']);
    expect(scheduler.next(clock.now)).toEqual({ model: 'b', priority: 'partial' });
    expect(scheduler.remove('b', { name: 'x', priority: 'partial', length: 1, enqueuedAt: 0 })).toBe(false);
    expect(names('b')).toEqual(['bp']);
  });

  it('prefers a due interactive queue over an older due batch queue, then the oldest head', () => {
    const { clock, scheduler, add, nextBatch } = setup({ a: 4, b: 4, c: 4 });
    add('a', 'a1', 'batch');
    clock.advance(20);
    add('b', 'b1', 'interactive');
    clock.advance(1);
    add('c', 'c1', 'interactive');
    clock.advance(5);
    expect(nextBatch('b', 'interactive')).toEqual(['b1']);
    expect(nextBatch('c', 'interactive')).toEqual(['c1']);
    expect(scheduler.next(clock.now)).toEqual({ model: 'a', priority: 'batch' });
  });

  it('wakes at the earliest deadline across models', () => {
    const { clock, scheduler, add } = setup({ a: 4, b: 4 });
    add('a', 'a1', 'batch'); // due at +10
    clock.advance(3);
    add('b', 'b1', 'interactive'); // due at +3+2
    expect(scheduler.next(clock.now)).toEqual({ wakeAt: 1_005 });
  });

  it('flushes every non-empty queue while closing', () => {
    const { clock, scheduler, add } = setup();
    add('a', 'r1');
    expect(scheduler.next(clock.now, true)).toEqual({ model: 'a', priority: 'batch' });
  });

  it('caps the padded batch at maxBatchElements, always taking a first request', () => {
    const { scheduler, add, names } = setup({ a: 8 });
    add('a', 'long', 'batch', 2_000); // alone over the cap: still runs
    add('a', 'short', 'batch', 100);
    expect(names('a')).toEqual(['long']);
    add('a', 's2', 'batch', 400);
    add('a', 's3', 'batch', 400);
    // short (100) + s2 (400): 2 x 400 = 800 fits; a third row of 400 would pad to 1200.
    expect(names('a')).toEqual(['short', 's2']);
    expect(scheduler.take('a')).toEqual({ requests: [expect.objectContaining({ name: 's3' })], longest: 400 });
  });

  it('reports the padded width of the batch', () => {
    const { scheduler, add } = setup();
    add('a', 'r1', 'batch', 30);
    add('a', 'r2', 'batch', 70);
    expect(scheduler.take('a').longest).toBe(70);
  });

  it('removes a cancelled waiting request, and only a waiting one', () => {
    const { clock, scheduler, add, names } = setup();
    const r1 = add('a', 'r1');
    add('a', 'r2');
    expect(scheduler.remove('a', r1)).toBe(true);
    expect(scheduler.remove('a', r1)).toBe(false);
    expect(scheduler.queued).toBe(1);
    // The deadline follows the new head.
    expect(scheduler.next(clock.now)).toEqual({ wakeAt: clock.now + 10 });
    const taken = scheduler.take('a').requests;
    expect(taken.map((r) => r.name)).toEqual(['r2']);
    expect(scheduler.remove('a', taken[0]!)).toBe(false);
    expect(names('a')).toEqual([]);
  });

  it('runs models without a lengths input one row at a time', () => {
    expect(rowsPerBatch({ hasLengths: false, maxBatchSize: 16 }, 8)).toBe(1);
    expect(rowsPerBatch({ hasLengths: true, maxBatchSize: null }, 8)).toBe(8);
    expect(rowsPerBatch({ hasLengths: true, maxBatchSize: 4 }, 8)).toBe(4);
    expect(rowsPerBatch({ hasLengths: true, maxBatchSize: 16 }, 8)).toBe(8);
  });
});
