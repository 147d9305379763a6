import { describe, expect, it } from 'vitest';
import { JobBacklog } from './job-backlog.js';

describe('JobBacklog', () => {
  it('estimates nothing before a job finished', () => {
    expect(new JobBacklog().estimateWait(100, 4, 4)).toBe(0);
  });

  it('spreads the waiting jobs over the workers at the mean job time', () => {
    const backlog = new JobBacklog();
    backlog.record(10);
    // 8 waiting over 4 workers = 2 rounds of 10 s, plus half a job for the busy workers.
    expect(backlog.estimateWait(8, 4, 4)).toBe(25);
    // A free worker: no wait for the running ones, none waiting: starts at once.
    expect(backlog.estimateWait(0, 3, 4)).toBe(0);
  });

  it('follows a change in job time with exponential weighting', () => {
    const backlog = new JobBacklog(0.5);
    backlog.record(10);
    backlog.record(20);
    expect(backlog.meanSeconds).toBe(15);
    backlog.record(-1);
    backlog.record(Number.NaN);
    expect(backlog.meanSeconds).toBe(15);
  });
});
