import { describe, expect, it } from 'vitest';
import { diarizationErrorRate, maximumAssignment, parseRttm, toRttm } from './diarization-error-rate.js';

const t = (startS: number, endS: number, speaker: string) => ({ startMs: startS * 1000, endMs: endS * 1000, speaker });

describe('diarizationErrorRate', () => {
  it('is 0 for a perfect hypothesis under other names', () => {
    const score = diarizationErrorRate([t(0, 5, 'A'), t(5, 10, 'B')], [t(0, 5, 'x'), t(5, 10, 'y')]);
    expect(score.der).toBe(0);
    expect(score.mapping).toEqual(
      new Map([
        ['A', 'x'],
        ['B', 'y'],
      ]),
    );
  });

  it('counts missed speech, false alarm and confusion as hand-computed', () => {
    // Reference: A 0-10, B 10-20 (20 s). Hypothesis: x 0-8 (2 s missed), y 8-20 (2 s confusion on A),
    // x 22-23 (1 s false alarm). DER = (0 missed + 1 false alarm + 2 confusion) / 20 = 0.15.
    const score = diarizationErrorRate([t(0, 10, 'A'), t(10, 20, 'B')], [t(0, 8, 'x'), t(8, 20, 'y'), t(22, 23, 'x')]);
    expect(score.missedMs).toBe(0);
    expect(score.confusionMs).toBe(2000);
    expect(score.falseAlarmMs).toBe(1000);
    expect(score.referenceMs).toBe(20_000);
    expect(score.der).toBeCloseTo(3 / 20, 10);
    const withGap = diarizationErrorRate([t(0, 10, 'A'), t(10, 20, 'B')], [t(0, 8, 'x'), t(10, 20, 'y')]);
    expect(withGap.missedMs).toBe(2000);
    expect(withGap.der).toBeCloseTo(0.1, 10);
  });

  it('scores overlap: one hypothesis speaker where two reference speakers talk', () => {
    // A 0-10, B 5-10 overlapping (15 s of speaker time); hypothesis x 0-10 only: 5 s missed.
    const score = diarizationErrorRate([t(0, 10, 'A'), t(5, 10, 'B')], [t(0, 10, 'x')]);
    expect(score.referenceMs).toBe(15_000);
    expect(score.missedMs).toBe(5000);
    expect(score.der).toBeCloseTo(5 / 15, 10);
  });

  it('maps one-to-one: merging two speakers into one costs the smaller one as confusion', () => {
    const score = diarizationErrorRate([t(0, 6, 'A'), t(6, 10, 'B')], [t(0, 10, 'x')]);
    expect(score.confusionMs).toBe(4000);
    expect(score.der).toBeCloseTo(0.4, 10);
  });
});

describe('maximumAssignment', () => {
  it('finds the optimum where greedy choice fails', () => {
    // Greedy takes 9 (row 0 → col 0) and then 1; the optimum is 8 + 7 = 15.
    expect(
      maximumAssignment([
        [9, 8],
        [7, 1],
      ]),
    ).toEqual([1, 0]);
  });

  it('handles more rows than columns', () => {
    expect(maximumAssignment([[1], [5], [3]])).toEqual([-1, 0, -1]);
  });
});

describe('RTTM', () => {
  it('round-trips turns', () => {
    const turns = [t(0.5, 2.25, 'SPEAKER_00'), t(3, 4, 'SPEAKER_01')];
    expect(parseRttm(toRttm('conv', turns))).toEqual(turns);
  });
});
