import { describe, expect, it } from 'vitest';
import { paddedSpans, SpeechEvidence } from './speech-evidence.js';

const W = 512;
const evidence = () => new SpeechEvidence({ windowSamples: W, threshold: 0.5, minRunWindows: 3 });
/** Feeds probabilities as consecutive windows from `start`. */
function feed(e: SpeechEvidence, start: number, probabilities: readonly number[]): void {
  probabilities.forEach((p, i) => e.add(p, start + (i + 1) * W));
}

describe('SpeechEvidence', () => {
  it('a run shorter than minRunWindows is no speech; a long enough one is speech over its windows', () => {
    const e = evidence();
    feed(e, 0, [0.9, 0.9, 0.1, 0.8, 0.7, 0.6, 0.6, 0.2]);
    expect(e.analysed).toBe(8 * W);
    expect(e.hasSpeech(0, 3 * W)).toBe(false);
    expect(e.spans(0, 8 * W)).toEqual([{ start: 3 * W, end: 7 * W }]);
    expect(e.hasSpeech(7 * W, 8 * W)).toBe(false);
    expect(e.hasSpeech(6 * W, 6 * W + 1)).toBe(true);
  });

  it('the threshold counts as speech; a window that does not follow the last one breaks the run', () => {
    const e = evidence();
    feed(e, 0, [0.5, 0.5]);
    feed(e, 10 * W, [0.9, 0.9]);
    expect(e.spans(0, 20 * W)).toEqual([]);
    e.reset(30 * W);
    feed(e, 30 * W, [0.9, 0.9, 0.9]);
    expect(e.spans(0, 40 * W)).toEqual([{ start: 30 * W, end: 33 * W }]);
  });

  it('spans are clipped to the question; prune forgets runs that ended', () => {
    const e = evidence();
    feed(e, 0, [1, 1, 1, 1, 0, 0, 1, 1, 1]);
    expect(e.spans(W, 8 * W)).toEqual([
      { start: W, end: 4 * W },
      { start: 6 * W, end: 8 * W },
    ]);
    e.prune(4 * W);
    expect(e.spans(0, 9 * W)).toEqual([{ start: 6 * W, end: 9 * W }]);
  });
});

describe('paddedSpans', () => {
  const pad = { before: 100, after: 50, joinGap: 200 };
  it('pads within the piece and joins runs closer than joinGap', () => {
    const runs = [
      { start: 1_000, end: 1_100 },
      { start: 1_300, end: 1_400 },
      { start: 3_000, end: 3_200 },
    ];
    expect(paddedSpans(runs, { start: 0, end: 10_000 }, pad)).toEqual([
      { start: 900, end: 1_450 },
      { start: 2_900, end: 3_250 },
    ]);
  });
  it('keeps a piece edge closer than joinGap; no runs, no spans', () => {
    expect(paddedSpans([{ start: 150, end: 9_900 }], { start: 0, end: 10_000 }, pad)).toEqual([{ start: 0, end: 10_000 }]);
    expect(paddedSpans([], { start: 0, end: 10_000 }, pad)).toEqual([]);
  });
});
