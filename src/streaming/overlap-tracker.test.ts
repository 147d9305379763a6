import { describe, expect, it } from 'vitest';
import { OverlapTracker } from './overlap-tracker.js';

describe('OverlapTracker', () => {
  it('a start during the other channel’s open speech is a barge-in; the overlap comes once both spans ended', () => {
    const t = new OverlapTracker(2);
    expect(t.speechStart(0, 1_000)).toEqual([]);
    expect(t.speechStart(1, 5_000)).toEqual([{ channel: 0, since: 1_000 }]);
    // Channel 1 ends first: channel 0 is still open, nothing is known yet.
    expect(t.speechEnd(1, 5_000, 9_000)).toEqual([]);
    expect(t.speechEnd(0, 1_000, 7_000)).toEqual([{ start: 5_000, end: 7_000, channels: [0, 1] }]);
  });

  it('a start event that arrives before the other channel’s earlier end gives no overlap', () => {
    const t = new OverlapTracker(2);
    t.speechStart(0, 0);
    // Channel 1 starts at 10,200 while channel 0's end (at 10,000) has not been reported yet.
    expect(t.speechStart(1, 10_200)).toEqual([{ channel: 0, since: 0 }]);
    expect(t.speechEnd(0, 0, 10_000)).toEqual([]);
    expect(t.speechEnd(1, 10_200, 20_000)).toEqual([]);
  });

  it('one long span against several short ones gives one overlap each, in time order', () => {
    const t = new OverlapTracker(2);
    t.speechStart(0, 0);
    t.speechStart(1, 3_000);
    expect(t.speechEnd(1, 3_000, 4_000)).toEqual([]);
    t.speechStart(1, 8_000);
    expect(t.speechEnd(1, 8_000, 9_000)).toEqual([]);
    expect(t.speechEnd(0, 0, 20_000)).toEqual([
      { start: 3_000, end: 4_000, channels: [0, 1] },
      { start: 8_000, end: 9_000, channels: [0, 1] },
    ]);
  });

  it('speech that only touches gives nothing; a start before the other’s start is no barge-in', () => {
    const t = new OverlapTracker(2);
    t.speechStart(0, 5_000);
    // Channel 1's start event arrives later but its position is earlier than channel 0's.
    expect(t.speechStart(1, 4_000)).toEqual([]);
    expect(t.speechEnd(1, 4_000, 5_000)).toEqual([]);
    expect(t.speechEnd(0, 5_000, 6_000)).toEqual([]);
  });

  it('keeps only spans a later span can still reach, and CLEAR forgets everything', () => {
    const t = new OverlapTracker(2, 10_000);
    for (let i = 0; i < 50; i++) {
      t.speechStart(0, i * 1_000);
      t.speechEnd(0, i * 1_000, i * 1_000 + 500);
    }
    expect(t.rememberedSpans).toBeLessThanOrEqual(11);
    t.speechStart(0, 100_000);
    t.speechStart(1, 101_000);
    t.clear(102_000);
    expect(t.speechEnd(1, 101_000, 103_000)).toEqual([]);
    expect(t.speechStart(0, 104_000)).toEqual([]);
  });
});
