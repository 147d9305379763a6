import { describe, expect, it } from 'vitest';
import { JobBacklog, type RunningWork } from './job-backlog.js';

const runningFor = (count: number, elapsedSeconds: number, audioSeconds: number | null = null): RunningWork[] =>
  Array.from({ length: count }, () => ({ elapsedSeconds, audioSeconds }));

describe('JobBacklog', () => {
  it('estimates nothing before a job finished', () => {
    expect(new JobBacklog().estimateWait(100, runningFor(4, 1), 4)).toBe(0);
  });

  it('spreads the waiting jobs and what the running ones have left over the workers', () => {
    const backlog = new JobBacklog();
    backlog.record(10);
    // 4 running jobs 5 s in (5 s left each) and 8 waiting at 10 s, over 4 workers: (20 + 80) / 4.
    expect(backlog.estimateWait(8, runningFor(4, 5), 4)).toBe(25);
    // A free worker and none waiting: starts at once.
    expect(backlog.estimateWait(0, runningFor(3, 5), 4)).toBe(0);
    // Every worker busy, none waiting: until the first running job ends.
    expect(backlog.estimateWait(0, [...runningFor(3, 1), { elapsedSeconds: 8, audioSeconds: null }], 4)).toBe(2);
  });

  it('expects a running job to take its audio at the measured processing rate', () => {
    const backlog = new JobBacklog();
    // Earlier jobs: 8 s of audio in 1 s each.
    for (let i = 0; i < 3; i++) backlog.record(1, 8);
    // The hostile case: every worker holds a job of 35 h of audio; the short jobs' mean (1 s) says
    // nothing of them, their audio does: 35 h / 8 = about 4.4 h each.
    const wait = backlog.estimateWait(1, runningFor(4, 60, 35 * 3600), 4);
    expect(wait).toBeGreaterThan(4 * 3600);
    // A job past its expected time is expected to end now.
    expect(backlog.remainingSeconds({ elapsedSeconds: 100, audioSeconds: 8 })).toBe(0);
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
