import { describe, expect, it } from 'vitest';
import { BACKENDS } from './diarization-backends.js';
import { parametersForSpeech, SHORT_TURN_PAUSE_FRAMES, typicalSpeechRunSeconds } from './speech-runs.js';

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

describe('typical speech run', () => {
  it('is the run half the speech time lies in runs shorter than', () => {
    // Runs of 1 s, 1 s and 6 s: half of the 8 s lies in the 6 s run.
    expect(typicalSpeechRunSeconds(mask(50, 30, 50, 30, 300))).toBeCloseTo(6, 5);
    // Ten 1 s runs and one 3 s run: the 1 s runs hold more than half.
    expect(typicalSpeechRunSeconds(mask(...Array.from({ length: 10 }, () => [50, 30]).flat(), 150))).toBeCloseTo(1, 5);
    expect(typicalSpeechRunSeconds(new Uint8Array(100))).toBe(0);
  });

  it('bridges pauses up to 0.2 s inside a run', () => {
    expect(typicalSpeechRunSeconds(mask(100, SHORT_TURN_PAUSE_FRAMES, 100))).toBeCloseTo((200 + SHORT_TURN_PAUSE_FRAMES) * 0.02, 5);
    expect(typicalSpeechRunSeconds(mask(100, SHORT_TURN_PAUSE_FRAMES + 1, 100))).toBeCloseTo(2, 5);
  });
});

describe('parameters for the file', () => {
  const short = mask(...Array.from({ length: 20 }, () => [100, 40]).flat());
  const long = mask(...Array.from({ length: 5 }, () => [400, 40]).flat());

  it('takes the short-turn overrides when the typical run is short, the backend as it is otherwise', () => {
    const a = BACKENDS.backend_a;
    const overrides = a.shortTurns!.overrides;
    expect(parametersForSpeech(a, short)).toEqual({ ...a, ...overrides });
    expect(parametersForSpeech(a, short).windowFrames).toBeLessThan(a.windowFrames);
    expect(parametersForSpeech(a, long)).toBe(a);
    expect(parametersForSpeech({ ...a, shortTurns: null }, short)).toEqual({ ...a, shortTurns: null });
    // No speech at all: nothing to choose by.
    expect(parametersForSpeech(a, new Uint8Array(100))).toBe(a);
  });
});
