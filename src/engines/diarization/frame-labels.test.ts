import { describe, expect, it } from 'vitest';
import { absorbSpeakersWithoutTurns, fillPauses, snapChangesToPauses } from './frame-labels.js';

describe('fillPauses', () => {
  it('fills short pauses inside speech, splitting them between two speakers, and leaves long ones and the edges', () => {
    const labels = Int32Array.from([-1, 0, 0, -1, -1, 0, -1, -1, -1, -1, 1, -1, -1, -1, 2, -1]);
    fillPauses(labels, 3);
    expect(Array.from(labels)).toEqual([-1, 0, 0, 0, 0, 0, -1, -1, -1, -1, 1, 1, 1, 2, 2, -1]);
  });
});

describe('snapChangesToPauses', () => {
  it('moves a change with no pause at it into the nearest pause of at least minGap frames within reach, on either side', () => {
    const left = Int32Array.from([0, 0, -1, -1, 0, 0, 0, 1, 1, 1, 1, 1, 1]);
    snapChangesToPauses(left, 6, 2);
    expect(Array.from(left)).toEqual([0, 0, -1, -1, 1, 1, 1, 1, 1, 1, 1, 1, 1]);
    const right = Int32Array.from([0, 0, 0, 0, 0, 0, 1, 1, -1, -1, 1, 1]);
    snapChangesToPauses(right, 6, 2);
    expect(Array.from(right)).toEqual([0, 0, 0, 0, 0, 0, 0, 0, -1, -1, 1, 1]);
  });

  it('leaves changes at pauses, changes without a long enough pause within reach, and runs whole', () => {
    const atPause = Int32Array.from([0, 0, -1, 1, 1]);
    snapChangesToPauses(atPause, 5, 1);
    expect(Array.from(atPause)).toEqual([0, 0, -1, 1, 1]);
    const shortPause = Int32Array.from([0, -1, 0, 0, 1, 1, 1]);
    snapChangesToPauses(shortPause, 5, 2);
    expect(Array.from(shortPause)).toEqual([0, -1, 0, 0, 1, 1, 1]);
    const far = Int32Array.from([0, -1, -1, 0, 0, 0, 0, 1, 1]);
    snapChangesToPauses(far, 3, 2);
    expect(Array.from(far)).toEqual([0, -1, -1, 0, 0, 0, 0, 1, 1]);
    // A pause at the edge of a run (another speaker, or the file's start, beyond it) would make the run vanish.
    const edge = Int32Array.from([2, -1, -1, 0, 0, 1, 1, 1, 1]);
    snapChangesToPauses(edge, 8, 2);
    expect(Array.from(edge)).toEqual([2, -1, -1, 0, 0, 1, 1, 1, 1]);
    const start = Int32Array.from([-1, -1, 0, 0, 1, 1]);
    snapChangesToPauses(start, 5, 2);
    expect(Array.from(start)).toEqual([-1, -1, 0, 0, 1, 1]);
    // A short pause inside the run is passed over on the way to a long enough one.
    const passed = Int32Array.from([0, -1, -1, 0, -1, 0, 1, 1]);
    snapChangesToPauses(passed, 8, 2);
    expect(Array.from(passed)).toEqual([0, -1, -1, 1, -1, 1, 1, 1]);
  });
});

describe('absorbSpeakersWithoutTurns', () => {
  /** Labels from [speaker, frames] pieces (-1: no speech). */
  const labels = (...pieces: [number, number][]): Int32Array => Int32Array.from(pieces.flatMap(([label, n]) => new Array<number>(n).fill(label)));

  it('gives the runs of a speaker with no long turn (turn onsets) to the turn each one opens', () => {
    // Speaker 2 only ever opens a turn for 20-30 frames; 0 and 1 hold long turns.
    const onsets = labels([2, 30], [0, 100], [-1, 30], [2, 20], [1, 120], [-1, 30], [2, 25], [0, 60]);
    absorbSpeakersWithoutTurns(onsets, 50, 1);
    expect(Array.from(onsets)).toEqual(Array.from(labels([0, 130], [-1, 30], [1, 140], [-1, 30], [0, 85])));
  });

  it('gives a run between pauses on both sides to the longer neighbour', () => {
    const between = labels([0, 100], [-1, 30], [2, 20], [-1, 30], [1, 60], [-1, 30], [1, 60]);
    absorbSpeakersWithoutTurns(between, 50, 1);
    expect(Array.from(between)).toEqual(Array.from(labels([0, 100], [-1, 30], [0, 20], [-1, 30], [1, 60], [-1, 30], [1, 60])));
  });

  it('keeps a speaker with one turn at least minLongestFrames long, and every speaker when none is short', () => {
    const kept = labels([0, 100], [-1, 30], [1, 50], [-1, 30], [0, 80]);
    absorbSpeakersWithoutTurns(kept, 50, 1);
    expect(Array.from(kept)).toEqual(Array.from(labels([0, 100], [-1, 30], [1, 50], [-1, 30], [0, 80])));
  });

  it('absorbs the shortest first and never goes below minSpeakers', () => {
    const three = labels([0, 100], [-1, 30], [1, 40], [-1, 30], [2, 20], [-1, 30], [0, 100]);
    absorbSpeakersWithoutTurns(three, 50, 2);
    // 2 (longest turn 20) goes first; then two speakers remain, the minimum: 1 stays.
    expect(new Set(Array.from(three).filter((l) => l >= 0))).toEqual(new Set([0, 1]));
    const alone = labels([0, 20], [-1, 30], [1, 30]);
    absorbSpeakersWithoutTurns(alone, 50, 1);
    expect(new Set(Array.from(alone).filter((l) => l >= 0)).size).toBe(1);
    const untouched = labels([0, 20], [-1, 30], [1, 30]);
    absorbSpeakersWithoutTurns(untouched, 50, 2);
    expect(Array.from(untouched)).toEqual(Array.from(labels([0, 20], [-1, 30], [1, 30])));
  });
});
