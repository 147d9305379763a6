import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LeasedRuns } from './leased-runs.js';

describe('LeasedRuns', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const make = (held: (ids: string[]) => string[] | Promise<string[]>) => {
    const renewLeases = vi.fn(async (_owner: string, ids: string[], _until: string) => held(ids));
    const runs = new LeasedRuns({ jobs: { renewLeases }, logger: pino({ level: 'silent' }), owner: 'p1', leaseMs: 300, label: 'job' });
    return { runs, renewLeases };
  };

  it('renews every third of the lease while jobs run and stops a job the store no longer gives us', async () => {
    const { runs, renewLeases } = make((ids) => ids.filter((id) => id !== 'b'));
    const a = new AbortController();
    const b = new AbortController();
    runs.add('a', a);
    runs.add('b', b);
    await vi.advanceTimersByTimeAsync(100);
    expect(renewLeases).toHaveBeenCalledTimes(1);
    expect(renewLeases.mock.calls[0]![0]).toBe('p1');
    expect(renewLeases.mock.calls[0]![1]).toEqual(['a', 'b']);
    expect(a.signal.aborted).toBe(false);
    expect(b.signal.reason).toBe('lost');
  });

  it('keeps every job when the store cannot be reached, and stops renewing once idle', async () => {
    const { runs, renewLeases } = make(() => Promise.reject(new Error('down')));
    const a = new AbortController();
    runs.add('a', a);
    await vi.advanceTimersByTimeAsync(100);
    expect(a.signal.aborted).toBe(false);
    runs.remove('a');
    expect(runs.size).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(renewLeases).toHaveBeenCalledTimes(1);
  });

  it('stop and stopAll abort with the reason given and report what they stopped', () => {
    const { runs } = make((ids) => ids);
    const a = new AbortController();
    const b = new AbortController();
    runs.add('a', a);
    runs.add('b', b);
    expect(runs.stop('x', 'cancelled')).toBe(false);
    expect(runs.stop('a', 'cancelled')).toBe(true);
    expect(a.signal.reason).toBe('cancelled');
    expect(runs.stopAll('shutdown').sort()).toEqual(['a', 'b']);
    expect(b.signal.reason).toBe('shutdown');
    runs.remove('a');
    runs.remove('b');
  });
});
