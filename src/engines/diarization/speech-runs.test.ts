import { describe, expect, it } from 'vitest';
import { BACKENDS } from './diarization-backends.js';
import { parametersForSpeech, SHORT_TURN_PAUSE_FRAMES, speechRuns, speechRunsPerMinute } from './speech-runs.js';

/** Speech frames (20 ms) from [speech, pause, speech, pause, ...] lengths in frames. */
function mask(...lengths: number[]): Uint8Array {
  const out = new Uint8Array(lengths.reduce((a, b) => a + b, 0));
  let at = 0;
  lengths.forEach((n, i) => {
    if (i % 2 === 0) out.fill(1, at, at + n);
    at += n;
  });
  return out;
}

describe('speech runs', () => {
  it('are the stretches of speech between pauses, in time order', () => {
    expect(speechRuns(mask(50, 30, 20, 30, 300))).toEqual([50, 20, 300]);
    expect(speechRuns(mask(0, 10, 40))).toEqual([40]);
    expect(speechRuns(new Uint8Array(100))).toEqual([]);
  });

  it('bridge pauses up to 0.2 s', () => {
    expect(speechRuns(mask(100, SHORT_TURN_PAUSE_FRAMES, 100))).toEqual([200 + SHORT_TURN_PAUSE_FRAMES]);
    expect(speechRuns(mask(100, SHORT_TURN_PAUSE_FRAMES + 1, 100))).toEqual([100, 100]);
  });

  it('are counted per minute of speech, pauses not counted', () => {
    // Three runs in 6 s of speech: 30 a minute, however long the pauses.
    expect(speechRunsPerMinute(mask(100, 30, 100, 30, 100))).toBeCloseTo(30, 5);
    expect(speechRunsPerMinute(mask(100, 3000, 100, 3000, 100))).toBeCloseTo(30, 5);
    expect(speechRunsPerMinute(new Uint8Array(100))).toBe(0);
  });
});

describe('parameters for the file', () => {
  // 2 s turns: 30 runs a minute; 8 s sentences: 7.5 a minute.
  const short = mask(...Array.from({ length: 20 }, () => [100, 40]).flat());
  const long = mask(...Array.from({ length: 5 }, () => [400, 40]).flat());

  it('takes the short-turn overrides when speech starts and stops often, the backend as it is otherwise', () => {
    const a = BACKENDS.backend_a;
    const overrides = a.shortTurns!.overrides;
    expect(parametersForSpeech(a, short)).toEqual({ ...a, ...overrides });
    expect(parametersForSpeech(a, short).windowFrames).toBeLessThan(a.windowFrames);
    expect(parametersForSpeech(a, long)).toBe(a);
    expect(parametersForSpeech({ ...a, shortTurns: null }, short)).toEqual({ ...a, shortTurns: null });
    // No speech at all: nothing to choose by.
    expect(parametersForSpeech(a, new Uint8Array(100))).toBe(a);
  });

  it('draws the line at the backend rate', () => {
    const a = BACKENDS.backend_a;
    const rate = a.shortTurns!.minRunsPerMinute;
    // Runs of 60/rate s each (3000/rate frames), pauses of 0.5 s: exactly the rate, then just under it.
    const at = mask(...Array.from({ length: 6 }, () => [Math.round(3000 / rate), 25]).flat());
    const under = mask(...Array.from({ length: 6 }, () => [Math.round(3000 / rate) + 20, 25]).flat());
    expect(speechRunsPerMinute(at)).toBeGreaterThanOrEqual(rate);
    expect(parametersForSpeech(a, at)).not.toBe(a);
    expect(parametersForSpeech(a, under)).toBe(a);
  });
});
