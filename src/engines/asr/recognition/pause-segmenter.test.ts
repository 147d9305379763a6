import { describe, expect, it } from 'vitest';
import { PauseSegmenter, type AudioSegment, type SegmenterOptions } from './pause-segmenter.js';

const SR = 16000;

/** Pieces: [seconds, amplitude] of a 220 Hz tone, or seconds of digital silence; plus optional noise. */
function signal(pieces: Array<[number, number] | number>, noiseAmplitude = 0): Float32Array {
  const tones = pieces.map((piece): [number, number] => (typeof piece === 'number' ? [piece, 0] : piece));
  const total = tones.reduce((n, [s]) => n + Math.round(s * SR), 0);
  const out = new Float32Array(total);
  let at = 0;
  let seed = 7;
  for (const [seconds, amplitude] of tones) {
    const n = Math.round(seconds * SR);
    for (let i = 0; i < n; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      out[at + i] = amplitude * Math.sin((2 * Math.PI * 220 * (at + i)) / SR) + noiseAmplitude * (seed / 0x7fffffff - 0.5);
    }
    at += n;
  }
  return out;
}

function run(pcm: Float32Array, options: SegmenterOptions, chunk = 16000): AudioSegment[] {
  const segmenter = new PauseSegmenter(options);
  const out: AudioSegment[] = [];
  for (let i = 0; i < pcm.length; i += chunk) out.push(...segmenter.push(pcm.subarray(i, i + chunk)));
  out.push(...segmenter.flush());
  return out;
}

function expectTiling(segments: AudioSegment[], length: number): void {
  expect(segments[0]!.spanStart).toBe(0);
  for (let i = 1; i < segments.length; i++) expect(segments[i]!.spanStart).toBe(segments[i - 1]!.spanEnd);
  expect(segments[segments.length - 1]!.spanEnd).toBe(length);
  for (const s of segments) {
    expect(s.startSample).toBeGreaterThanOrEqual(s.spanStart);
    expect(s.startSample + s.samples.length).toBeLessThanOrEqual(s.spanEnd);
  }
}

describe('PauseSegmenter', () => {
  it('cuts inside pauses once the minimum length is reached', () => {
    const pcm = signal([[2, 0.3], 0.5, [2, 0.3], 0.6, [1.5, 0.3]]);
    const segments = run(pcm, { minSegmentMs: 1000, minPauseMs: 300 });
    expectTiling(segments, pcm.length);
    expect(segments.map((s) => s.speech)).toEqual([true, true, true]);
    // minPauseMs/2 = 150 ms into each pause
    const cuts = segments.slice(1).map((s) => s.spanStart / SR);
    expect(cuts[0]).toBeCloseTo(2.15, 2);
    expect(cuts[1]).toBeCloseTo(4.65, 2);
    // trimmed to the speech plus the 200 ms margin, within the cut boundaries
    expect(segments[1]!.startSample / SR).toBeCloseTo(2.5 - 0.2, 2);
    expect((segments[1]!.startSample + segments[1]!.samples.length) / SR).toBeCloseTo(4.65, 2);
    expect((segments[2]!.startSample + segments[2]!.samples.length) / SR).toBeCloseTo(6.6, 2);
  });

  it('keeps short pauses inside a segment and ignores pauses before the minimum length', () => {
    const pcm = signal([[1, 0.3], 0.15, [1, 0.3], 0.5, [3, 0.3]]);
    const segments = run(pcm, { minSegmentMs: 3000, minPauseMs: 300 });
    expect(segments).toHaveLength(1);
  });

  it('cuts continuous sound at its quietest point, never beyond the maximum length', () => {
    // 50 s of tone whose level dips every 7 s, no real pause
    const pieces: Array<[number, number]> = [];
    for (let i = 0; i < 7; i++) pieces.push([6.8, 0.3], [0.2, 0.05]);
    const pcm = signal(pieces);
    const segments = run(pcm, { maxSegmentMs: 10_000, minSegmentMs: 2000 });
    expectTiling(segments, pcm.length);
    for (const s of segments) expect(s.spanEnd - s.spanStart).toBeLessThanOrEqual(10 * SR);
    // cuts land in the quiet dips (6.8-7.0 s, 13.8-14.0 s, ...)
    for (const s of segments.slice(1)) {
      const t = (s.spanStart / SR) % 7;
      expect(t === 0 || t > 6.7).toBe(true);
    }
  });

  it('marks pieces without speech and gives them no samples', () => {
    const pcm = signal([[12, 0]]);
    const segments = run(pcm, { minSegmentMs: 3000 });
    expectTiling(segments, pcm.length);
    expect(segments.every((s) => !s.speech && s.samples.length === 0)).toBe(true);
  });

  it('adapts its threshold to a noise floor', () => {
    const pcm = signal([[3, 0.3], 0.6, [3, 0.3], 0.6, [3, 0.3]], 0.02);
    const segments = run(pcm, { minSegmentMs: 2000 });
    expect(segments.filter((s) => s.speech)).toHaveLength(3);
  });

  it('gives the same cuts whatever the chunk size', () => {
    const pcm = signal([[2, 0.3], 0.5, [4, 0.2], 0.4, [1, 0.3]], 0.001);
    const cuts = (chunk?: number) => run(pcm, { minSegmentMs: 1000 }, chunk).map((s) => [s.spanStart, s.spanEnd, s.startSample, s.samples.length]);
    const reference = cuts();
    expect(cuts(160)).toEqual(reference);
    expect(cuts(4097)).toEqual(reference);
  });

  it('grows its buffer as audio arrives: a 20 s segment cut at the bound, the same cuts and samples in one push or many', () => {
    // 26 s of continuous tone with one dip at 17 s: the buffer (4 s at first) must grow to the 20 s bound
    const pcm = signal([
      [17, 0.3],
      [0.2, 0.05],
      [8.8, 0.3],
    ]);
    const segments = (chunk: number) =>
      run(pcm, { maxSegmentMs: 20_000, minSegmentMs: 3000 }, chunk).map((s) => ({
        span: [s.spanStart, s.spanEnd],
        at: s.startSample,
        samples: Buffer.from(s.samples.buffer, s.samples.byteOffset, s.samples.byteLength).toString('base64'),
      }));
    const whole = segments(pcm.length);
    expect(whole[0]!.span[1]).toBeGreaterThan(16.9 * SR);
    expect(whole[0]!.span[1]).toBeLessThanOrEqual(20 * SR);
    expect(whole[0]!.samples.length).toBeGreaterThan(16 * SR * 4 * (4 / 3)); // base64 of 4-byte samples
    expect(segments(1_000)).toEqual(whole);
    expect(segments(70_001)).toEqual(whole);
  });
});
