import { describe, expect, it } from 'vitest';
import { MainThreadParts } from './main-thread-parts.js';

/** A clock the test moves by hand. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('MainThreadParts', () => {
  it('counts each part its own time, a nested part taken out of the outer one', () => {
    const clock = manualClock();
    const parts = new MainThreadParts(clock.now);
    parts.begin('session');
    clock.advance(2);
    parts.begin('front_end');
    clock.advance(5);
    parts.end();
    parts.begin('json');
    clock.advance(3);
    parts.begin('json');
    clock.advance(1);
    parts.end();
    parts.end();
    clock.advance(4);
    parts.end();
    expect(parts.seconds()).toEqual({ session: 0.006, front_end: 0.005, silero: 0, json: 0.004, results: 0, ticks: 0 });
  });

  it('accumulates over calls and ignores an end without a begin', () => {
    const clock = manualClock();
    const parts = new MainThreadParts(clock.now);
    parts.end();
    for (let i = 0; i < 3; i++) {
      parts.begin('silero');
      clock.advance(10);
      parts.end();
    }
    expect(parts.seconds().silero).toBeCloseTo(0.03, 12);
    expect(parts.seconds().session).toBe(0);
  });

  it('counts nesting past its depth in the outermost part it still tracks', () => {
    const clock = manualClock();
    const parts = new MainThreadParts(clock.now);
    for (let i = 0; i < 8; i++) parts.begin('session');
    parts.begin('front_end');
    clock.advance(7);
    parts.end();
    for (let i = 0; i < 8; i++) parts.end();
    expect(parts.seconds()).toEqual({ session: 0.007, front_end: 0, silero: 0, json: 0, results: 0, ticks: 0 });
  });
});
