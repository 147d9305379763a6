import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SILERO_WINDOW } from '../../src/engines/vad/silero-model.js';
import { DIARIZATION_SPEECH_SPANS, SILERO_WINDOW_MS, sileroProbabilities, speechSpans } from '../../src/engines/vad/silero-file.js';
import { SileroVad } from '../../src/engines/vad/silero-vad.js';
import { speechFixture } from '../native/audio-helpers.js';

const speech = speechFixture();

describe('speechSpans', () => {
  const options = { threshold: 0.5, negativeThreshold: 0.35, minSilenceMs: 100, minSpeechMs: 100, padMs: 0 };
  const at = (i: number): number => i * SILERO_WINDOW_MS;

  it('starts at the threshold and ends below the negative threshold (hysteresis)', () => {
    const p = Float32Array.from([0.1, 0.6, 0.4, 0.4, 0.6, 0.3, 0.1, 0.1, 0.1, 0.1, 0.1]);
    expect(speechSpans(p, options)).toEqual([{ startMs: at(1), endMs: at(5) }]);
  });

  it('bridges short silences, drops short spans, pads and merges what the padding joins', () => {
    // Speech 1-4, a 2-window (64 ms) silence, speech 6-9; a lone window at 20; speech 30-39 to the end.
    const p = new Float32Array(40);
    for (const i of [1, 2, 3, 4, 6, 7, 8, 9, 20, ...Array.from({ length: 10 }, (_, k) => 30 + k)]) p[i] = 0.9;
    expect(speechSpans(p, options)).toEqual([
      { startMs: at(1), endMs: at(10) },
      { startMs: at(30), endMs: at(40) },
    ]);
    expect(speechSpans(p, { ...options, minSilenceMs: 0, minSpeechMs: 0, padMs: 2 * SILERO_WINDOW_MS }, at(40))).toEqual([
      { startMs: 0, endMs: at(12) },
      { startMs: at(18), endMs: at(23) },
      { startMs: at(28), endMs: at(40) },
    ]);
  });
});

describe('sileroProbabilities (a whole file through the shared Silero VAD)', () => {
  let vad: SileroVad;
  beforeAll(async () => {
    vad = await SileroVad.create({ maxBatch: 64, maxQueuedWindowsPerStream: 128 });
  });
  afterAll(async () => {
    await vad.close();
  });

  /** The speech fixture (two utterances) repeated to about 70 s: three lanes. */
  const long = new Float32Array(Math.ceil((70 * 16_000) / speech.length) * speech.length);
  for (let at = 0; at < long.length; at += speech.length) long.set(speech, at);

  it('gives every window a probability; split into lanes it agrees with one lane once each lane has warmed up', async () => {
    const [lanes, single] = await Promise.all([sileroProbabilities(vad, long), sileroProbabilities(vad, long, { maxLanes: 1 })]);
    expect(lanes.length).toBe(Math.floor(long.length / SILERO_WINDOW));
    let close = 0;
    for (let i = 0; i < lanes.length; i++) if (Math.abs(lanes[i]! - single[i]!) < 0.1) close++;
    expect(close / lanes.length).toBeGreaterThan(0.97);
    // Each repeat's two utterances are found (as by the streaming VAD: speech at 1.0-2.2 s, silence at 3.2-4.4 s).
    const spans = speechSpans(lanes, DIARIZATION_SPEECH_SPANS, (long.length / 16_000) * 1000);
    const repeats = long.length / speech.length;
    expect(spans.length).toBeGreaterThanOrEqual(repeats);
    const seconds = speech.length / 16_000;
    for (let r = 0; r < repeats; r++) {
      const inSpeech = (s: number): boolean => spans.some((span) => span.startMs <= (r * seconds + s) * 1000 && span.endMs > (r * seconds + s) * 1000);
      expect(inSpeech(1.5), `repeat ${r}`).toBe(true);
      expect(inSpeech(3.8), `repeat ${r}`).toBe(false);
    }
  });

  it('rejects with the signal reason when aborted, and when the VAD is closed', async () => {
    const controller = new AbortController();
    const pending = sileroProbabilities(vad, long, { signal: controller.signal });
    controller.abort(new Error('job cancelled'));
    await expect(pending).rejects.toThrow('job cancelled');
    const other = await SileroVad.create({ maxBatch: 4 });
    const closing = sileroProbabilities(other, long);
    await other.close();
    await expect(closing).rejects.toThrow();
    expect(await sileroProbabilities(vad, new Float32Array(100))).toEqual(new Float32Array(0));
  });
});
