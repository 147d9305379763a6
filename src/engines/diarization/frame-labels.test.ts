import { describe, expect, it } from 'vitest';
import { fillPauses, snapChangesToPauses } from './frame-labels.js';

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
