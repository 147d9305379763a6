import { describe, expect, it } from 'vitest';
import type { EndpointEvent } from '../engines/signal/live/endpoint-event.js';
import { TurnCutter } from './turn-cutter.js';

const start = (position: number): EndpointEvent => ({ type: 'speech_start', position, turnStart: position, forcedSplit: false, endOfStream: false });
const end = (turnStart: number, position: number, forcedSplit = false): EndpointEvent => ({
  type: 'speech_end',
  position,
  turnStart,
  forcedSplit,
  endOfStream: false,
});

describe('TurnCutter', () => {
  it('cuts a turn from speech_start to speech_end and commits it', () => {
    const cutter = new TurnCutter({ keepBeforeTurnSamples: 16_000 });
    expect(cutter.onEvent(start(8_000))).toEqual({ type: 'speech_started', turnId: 1, start: 8_000 });
    expect(cutter.openTurn).toEqual({ id: 1, start: 8_000 });
    expect(cutter.onEvent(end(8_000, 40_000))).toEqual({
      type: 'piece',
      piece: { kind: 'turn', turnId: 1, start: 8_000, end: 40_000, forcedSplit: false },
    });
    expect(cutter.openTurn).toBeNull();
    expect(cutter.committed).toBe(40_000);
  });

  it('trims silence only while no turn is open, keeping the window before the analysed position', () => {
    const cutter = new TurnCutter({ keepBeforeTurnSamples: 16_000 });
    expect(cutter.trim(10_000)).toBeNull();
    expect(cutter.trim(50_000)).toBe(34_000);
    cutter.onEvent(start(45_000));
    expect(cutter.trim(90_000)).toBeNull();
    expect(cutter.committed).toBe(34_000);
  });

  it('never starts a piece before the committed position', () => {
    const cutter = new TurnCutter({ keepBeforeTurnSamples: 0 });
    cutter.trim(20_000);
    expect(cutter.onEvent(start(5_000))).toEqual({ type: 'speech_started', turnId: 1, start: 20_000 });
    const step = cutter.onEvent(end(5_000, 30_000));
    expect(step.type === 'piece' && step.piece.start).toBe(20_000);
  });

  it('numbers turns in order and carries forced splits', () => {
    const cutter = new TurnCutter({ keepBeforeTurnSamples: 0 });
    cutter.onEvent(start(0));
    const first = cutter.onEvent(end(0, 480_000, true));
    cutter.onEvent(start(480_000));
    const second = cutter.onEvent(end(480_000, 500_000));
    expect(first).toMatchObject({ piece: { turnId: 1, forcedSplit: true } });
    expect(second).toMatchObject({ piece: { turnId: 2, start: 480_000, end: 500_000, forcedSplit: false } });
  });

  it('TRANSCRIBE cuts the buffer and the open turn continues after it', () => {
    const cutter = new TurnCutter({ keepBeforeTurnSamples: 0 });
    cutter.onEvent(start(1_000));
    expect(cutter.cutBuffer('transcribe', 9_000)).toEqual({ kind: 'transcribe', turnId: null, start: 0, end: 9_000, forcedSplit: false });
    expect(cutter.openTurn).toEqual({ id: 1, start: 9_000 });
    expect(cutter.onEvent(end(1_000, 12_000))).toMatchObject({ piece: { turnId: 1, start: 9_000, end: 12_000 } });
  });

  it('cuts the final piece once and nothing after it', () => {
    const cutter = new TurnCutter({ keepBeforeTurnSamples: 0 });
    cutter.onEvent(start(100));
    expect(cutter.cutBuffer('final', 5_000)).toEqual({ kind: 'final', turnId: null, start: 0, end: 5_000, forcedSplit: false });
    expect(cutter.finalCut).toBe(true);
    expect(cutter.openTurn).toBeNull();
    expect(cutter.cutBuffer('final', 6_000)).toBeNull();
    expect(cutter.onEvent(start(5_500))).toEqual({ type: 'none' });
    expect(cutter.trim(100_000)).toBeNull();
  });

  it('CLEAR forgets the open turn and commits up to the position', () => {
    const cutter = new TurnCutter({ keepBeforeTurnSamples: 0 });
    cutter.onEvent(start(100));
    cutter.clear(7_000);
    expect(cutter.openTurn).toBeNull();
    expect(cutter.committed).toBe(7_000);
    // The end of the forgotten turn cuts only what follows the clear.
    expect(cutter.onEvent(end(100, 9_000))).toMatchObject({ piece: { turnId: 2, start: 7_000, end: 9_000 } });
  });

  it('a speech_end with nothing after the committed position cuts nothing', () => {
    const cutter = new TurnCutter({ keepBeforeTurnSamples: 0 });
    cutter.clear(10_000);
    expect(cutter.onEvent(end(2_000, 9_000))).toEqual({ type: 'none' });
  });
});

describe('TurnCutter padding', () => {
  const padded = (): TurnCutter => new TurnCutter({ keepBeforeTurnSamples: 16_000, preRollSamples: 4_800, postRollSamples: 3_200 });

  it('pads a turn before its start and after its end, as far as audio has arrived', () => {
    const cutter = padded();
    expect(cutter.onEvent(start(20_000))).toEqual({ type: 'speech_started', turnId: 1, start: 15_200 });
    expect(cutter.onEvent(end(20_000, 50_000), 60_000)).toMatchObject({ piece: { start: 15_200, end: 53_200 } });
    cutter.onEvent(start(70_000));
    // Only 1,000 samples after the end have arrived: the post-roll stops there.
    expect(cutter.onEvent(end(70_000, 90_000), 91_000)).toMatchObject({ piece: { start: 65_200, end: 91_000 } });
  });

  it('pre-roll never reaches into the previous turn or before the stream start', () => {
    const cutter = padded();
    expect(cutter.onEvent(start(0))).toMatchObject({ start: 0 });
    expect(cutter.onEvent(end(0, 30_000), 40_000)).toMatchObject({ piece: { start: 0, end: 33_200 } });
    expect(cutter.onEvent(start(35_000))).toMatchObject({ start: 33_200 });
    expect(cutter.onEvent(end(35_000, 45_000), 45_000)).toMatchObject({ piece: { start: 33_200, end: 45_000 } });
  });

  it('a short gap before a padded start joins the turn (an onset placed late at the stream start keeps the audio before it)', () => {
    const joining = new TurnCutter({ keepBeforeTurnSamples: 32_000, preRollSamples: 4_800, postRollSamples: 3_200, joinGapSamples: 16_000 });
    // Onset at 1.1 s: 7,100 samples after the pre-roll, under the 1 s gap: the turn starts at 0.
    expect(joining.onEvent(start(17_600))).toEqual({ type: 'speech_started', turnId: 1, start: 0 });
    expect(joining.onEvent(end(17_600, 40_000), 50_000)).toMatchObject({ piece: { start: 0, end: 43_200 } });
    // 1.5 s of silence after the padded end (43,200) and the next pre-roll: cut, as before.
    expect(joining.onEvent(start(72_000))).toMatchObject({ start: 67_200 });
    expect(joining.onEvent(end(72_000, 80_000), 90_000)).toMatchObject({ piece: { start: 67_200 } });
    // A gap of 0.5 s to the previous turn's end joins.
    expect(joining.onEvent(start(96_000))).toMatchObject({ start: 83_200 });
  });

  it('a forced split gets no post-roll, so the next turn starts exactly there', () => {
    const cutter = padded();
    cutter.onEvent(start(16_000));
    expect(cutter.onEvent(end(16_000, 496_000, true), 500_000)).toMatchObject({ piece: { start: 11_200, end: 496_000, forcedSplit: true } });
    expect(cutter.onEvent(start(496_000))).toMatchObject({ start: 496_000 });
  });

  it('stream positions tile: every sample up to the last turn is in a turn or was trimmed as silence', () => {
    const cutter = padded();
    const covered: Array<[number, number]> = [];
    const trims: number[] = [];
    // [event or null (audio arrived, no event), write position]
    const steps: Array<[EndpointEvent | null, number]> = [
      [start(0), 4_000],
      [end(0, 20_000, true), 20_000],
      [start(20_000), 20_000],
      [end(20_000, 30_000), 38_000],
      [null, 50_000],
      [start(60_000), 62_000],
      [end(60_000, 80_000), 88_000],
    ];
    for (const [event, write] of steps) {
      if (event !== null) {
        const step = cutter.onEvent(event, write);
        if (step.type === 'piece') covered.push([step.piece.start, step.piece.end]);
      }
      const trimmed = cutter.trim(write);
      if (trimmed !== null) trims.push(trimmed);
    }
    expect(covered).toEqual([
      [0, 20_000],
      [20_000, 33_200],
      [55_200, 83_200],
    ]);
    // Only the silence between the turns was trimmed, and never past the next turn's pre-roll.
    expect(trims).toEqual([34_000]);
    expect(cutter.committed).toBe(83_200);
  });
});
