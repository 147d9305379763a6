import { describe, expect, it } from 'vitest';
import { diarize } from './diarize.js';
import { DiarizationError, DiarizationThreads, diarizeInThread } from './diarization-thread.js';
import { loadOverlapDetector } from './overlap-detector.js';
import { loadSpeakerProjection } from './speaker-projection.js';
import { twoSpeakerConversation } from '../../../test/helpers/speaker-conversation.js';

const projectionPath = new URL('../../../models/diarization/speaker-ivector-v3.json', import.meta.url).pathname;
const typeModelPath = new URL('../../../models/segment-types/segment-types-v1.json', import.meta.url).pathname;
const overlapModelPath = new URL('../../../models/diarization/overlap-detector-v1.json', import.meta.url).pathname;
const options = { backend: 'backend_a', minSpeakers: null, maxSpeakers: null } as const;

/** Two tones of different pitch taking turns, 2 s each, 0.5 s of silence between. */
function tones(): Float32Array {
  const pcm = new Float32Array(16_000 * 10);
  for (let turn = 0; turn < 4; turn++) {
    const f = turn % 2 === 0 ? 180 : 420;
    const start = Math.round(16_000 * (0.5 + turn * 2.5));
    for (let i = 0; i < 32_000; i++) pcm[start + i] = 0.3 * Math.sin((2 * Math.PI * f * i) / 16_000) + 0.1 * Math.sin((2 * Math.PI * 3 * f * i) / 16_000);
  }
  return pcm;
}

describe('diarizeInThread', () => {
  it('runs diarize in a worker thread and answers its turns (a view of part of a buffer included)', async () => {
    const padded = new Float32Array(16_000 * 12);
    padded.set(tones());
    const { turns, types, typesWarning } = await diarizeInThread(padded.subarray(0, 16_000 * 10), options, { projectionPath, timeoutMs: 60_000 });
    expect(types).toBeNull();
    expect(typesWarning).toBeNull();
    // The same turns as diarize on this thread (the samples arrived whole), covering the tones;
    // accuracy on speech is bench/diarization.ts's business.
    expect(turns).toEqual(diarize(tones(), options, await loadSpeakerProjection(projectionPath)));
    expect(turns.length).toBeGreaterThan(0);
    expect(Math.abs(turns[0]!.startMs - 500)).toBeLessThan(50);
    expect(Math.abs(turns.at(-1)!.endMs - 10_000)).toBeLessThan(50);
  });

  it('with a type model, answers the segment types too; a missing type model is a warning, not a failure', async () => {
    // Steady tones held for 2 s are music to the detector: diarization then gives them no speaker.
    const typed = await diarizeInThread(tones(), options, { projectionPath, typeModelPath, timeoutMs: 60_000 });
    expect(typed.typesWarning).toBeNull();
    expect(typed.types!.music.length).toBeGreaterThan(0);
    const musicMs = typed.types!.music.reduce((sum, r) => sum + r.endMs - r.startMs, 0);
    expect(musicMs).toBeGreaterThan(6000);
    expect(typed.turns.every((t) => typed.types!.music.every((r) => t.endMs <= r.startMs || t.startMs >= r.endMs))).toBe(true);
    const missing = await diarizeInThread(tones(), options, { projectionPath, typeModelPath: '/nonexistent/types.json', timeoutMs: 60_000 });
    expect(missing.turns).toEqual(diarize(tones(), options, await loadSpeakerProjection(projectionPath)));
    expect(missing.types).toBeNull();
    expect(missing.typesWarning).toMatch(/Segment types were not classified: .*ENOENT.*'types\.json'/);
    expect(missing.typesWarning).not.toContain('/nonexistent');
  });

  it('marks overlapped speech with backend_a when given the detector; a missing detector is a warning, not a failure', async () => {
    const projection = await loadSpeakerProjection(projectionPath);
    const { pcm, reference } = twoSpeakerConversation(-16_000);
    // The VAD's span over the whole overlapped exchange, as the API passes it: one long run of
    // speech, so backend_a keeps its overlap marking (short-turn files leave it out; speech-runs.ts).
    const overlapped = { ...options, speech: [{ startMs: reference[0]!.startMs, endMs: reference[reference.length - 1]!.endMs }] };
    const direct = diarize(pcm, { ...overlapped, overlapDetector: await loadOverlapDetector(overlapModelPath) }, projection);
    const plain = diarize(pcm, overlapped, projection);
    expect(direct.length).toBeGreaterThan(plain.length);
    // The thread takes the samples (their buffer is transferred): each call gets its own copy.
    const marked = await diarizeInThread(pcm.slice(), overlapped, { projectionPath, overlapModelPath, timeoutMs: 60_000 });
    expect(marked.overlapWarning).toBeNull();
    expect(marked.turns).toEqual(direct);
    const missing = await diarizeInThread(pcm.slice(), overlapped, { projectionPath, overlapModelPath: '/nonexistent/overlap.json', timeoutMs: 60_000 });
    expect(missing.turns).toEqual(plain);
    expect(missing.overlapWarning).toMatch(/Overlapping speech was not detected: .*ENOENT.*'overlap\.json'/);
    expect(missing.overlapWarning).not.toContain('/nonexistent');
    // backend_b does not mark overlap: it never reads the detector.
    const coarse = await diarizeInThread(
      pcm.slice(),
      { ...overlapped, backend: 'backend_b' },
      { projectionPath, overlapModelPath: '/nonexistent/overlap.json', timeoutMs: 60_000 },
    );
    expect(coarse.overlapWarning).toBeNull();
  });

  it('ends the thread and rejects with a timed-out DiarizationError at the time limit', async () => {
    const error = await diarizeInThread(tones(), options, { projectionPath, timeoutMs: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiarizationError);
    expect((error as DiarizationError).timedOut).toBe(true);
  });

  it('rejects with a DiarizationError when the projection cannot be read, and with the reason when aborted', async () => {
    await expect(diarizeInThread(tones(), options, { projectionPath: '/nonexistent/projection.json', timeoutMs: 60_000 })).rejects.toThrow(
      /Speaker diarization failed: .*ENOENT/,
    );
    const controller = new AbortController();
    const running = diarizeInThread(tones(), options, { projectionPath, timeoutMs: 60_000, signal: controller.signal });
    controller.abort(new Error('job cancelled'));
    await expect(running).rejects.toThrow('job cancelled');
  });
});

describe('DiarizationThreads', () => {
  it('serves files one after another on one long-lived thread; a shared buffer stays readable', async () => {
    const threads = new DiarizationThreads({ projectionPath, typeModelPath, idleMs: 60_000 });
    try {
      const expected = diarize(tones(), options, await loadSpeakerProjection(projectionPath));
      const shared = new Float32Array(new SharedArrayBuffer(16_000 * 10 * 4));
      shared.set(tones());
      const [first, second] = await Promise.all([threads.run(tones(), options, { timeoutMs: 60_000 }), threads.run(shared, options, { timeoutMs: 60_000 })]);
      expect(threads.threadCount).toBe(1);
      expect(second).toEqual(first);
      expect(first.types).not.toBeNull();
      // Shared, not transferred: the caller still reads its samples.
      expect(shared.length).toBe(16_000 * 10);
      expect(shared).toEqual(tones());
      const untyped = new DiarizationThreads({ projectionPath });
      expect((await untyped.run(shared, options, { timeoutMs: 60_000 })).turns).toEqual(expected);
      await untyped.close();
    } finally {
      await threads.close();
    }
  });

  it('types the audio while the speech spans are still coming, then clusters with them as options.speech would', async () => {
    const threads = new DiarizationThreads({ projectionPath, typeModelPath });
    try {
      const speech = [
        { startMs: 500, endMs: 2500 },
        { startMs: 5500, endMs: 7500 },
      ];
      const direct = await threads.run(tones(), { ...options, speech }, { timeoutMs: 60_000 });
      let deliver: (spans: typeof speech) => void = () => undefined;
      const later = threads.run(tones(), options, { timeoutMs: 60_000, speech: new Promise((resolve) => (deliver = resolve)) });
      await new Promise((resolve) => setTimeout(resolve, 200));
      deliver(speech);
      expect(await later).toEqual(direct);
      // Spans that fail to come (null or a rejection) are none: the energy gate alone.
      const none = await threads.run(tones(), options, { timeoutMs: 60_000, speech: Promise.reject(new Error('VAD failed')) });
      expect(none).toEqual(await threads.run(tones(), options, { timeoutMs: 60_000 }));
    } finally {
      await threads.close();
    }
  });

  it('a waiting file aborted leaves the queue; a timed-out file ends its thread and the next gets a fresh one', async () => {
    const threads = new DiarizationThreads({ projectionPath, maxQueued: 1 });
    try {
      const controller = new AbortController();
      const slow = threads.run(tones(), options, { timeoutMs: 1 });
      const waiting = threads.run(tones(), options, { timeoutMs: 60_000, signal: controller.signal });
      await expect(threads.run(tones(), options, { timeoutMs: 60_000 })).rejects.toThrow(/busy/);
      controller.abort(new Error('job cancelled'));
      await expect(waiting).rejects.toThrow('job cancelled');
      const timedOut = await slow.catch((e: unknown) => e);
      expect((timedOut as DiarizationError).timedOut).toBe(true);
      const after = await threads.run(tones(), options, { timeoutMs: 60_000 });
      expect(after.turns.length).toBeGreaterThan(0);
      expect(threads.threadCount).toBe(1);
    } finally {
      await threads.close();
    }
    await expect(threads.run(tones(), options, { timeoutMs: 60_000 })).rejects.toThrow(/shutting down/);
  });

  it('ends an idle thread after idleMs', async () => {
    const threads = new DiarizationThreads({ projectionPath, idleMs: 50 });
    try {
      await threads.run(tones(), options, { timeoutMs: 60_000 });
      expect(threads.threadCount).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(threads.threadCount).toBe(0);
      expect((await threads.run(tones(), options, { timeoutMs: 60_000 })).turns.length).toBeGreaterThan(0);
    } finally {
      await threads.close();
    }
  });
});
