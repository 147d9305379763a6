import { describe, expect, it } from 'vitest';
import { resolveMediaTools } from '../../../platform/subprocess/media-tools.js';
import type { DiarizedAudio } from '../../diarization/diarization-thread.js';
import type { Diarizer } from '../../diarization/transcript-diarization.js';
import { ModelRegistry } from '../models/model-registry.js';
import type { CtcRecognizer } from './ctc-recognizer.js';
import { type FileTranscriptionParts, type FileTranscriptionProgress, transcribeFile } from './file-transcription.js';

const audioPath = new URL('../../../../test/fixtures/audio/speech-am.wav', import.meta.url).pathname;
const registry = await ModelRegistry.scan(new URL('../../../../test/fixtures/models', import.meta.url).pathname);
const tools = resolveMediaTools();
const request = { backend: 'backend_a', minSpeakers: null, maxSpeakers: null } as const;

/** Recognition that takes `delayMs` a piece and answers one word over the piece; `log` records what happened when. */
function parts(log: string[], diarize: Diarizer, options: { delayMs?: number; failRecognition?: boolean } = {}): FileTranscriptionParts {
  const recognizer = {
    async recognize(samples: Float32Array, opts: { startMs?: number; signal?: AbortSignal }) {
      await new Promise((resolve) => setTimeout(resolve, options.delayMs ?? 40));
      opts.signal?.throwIfAborted();
      if (options.failRecognition) throw new Error('model failed');
      log.push('piece');
      const startMs = opts.startMs ?? 0;
      const endMs = startMs + Math.round(samples.length / 16);
      return {
        text: 'ቃል',
        confidence: 0.9,
        words: [{ text: 'ቃል', start_ms: startMs, end_ms: endMs, confidence: 0.9 }],
        inference: { workerMs: 1, batchSize: 1, queueWaitMs: 0 },
      };
    },
  } as unknown as CtcRecognizer;
  return {
    registry,
    ffmpeg: tools.ffmpeg,
    ffprobe: tools.ffprobe,
    maxAudioBytes: 100 * 1024 * 1024,
    maxInFlightPerJob: 1,
    segmenter: { maxSegmentMs: 1000 },
    recognizerFor: () => recognizer,
    detectLanguage: () => Promise.reject(new Error('not used')),
    diarize,
  };
}

/** One speaker over the whole file, after `delayMs`; `log` says when it started and finished. */
function diarizer(log: string[], delayMs: number, seen: { samples?: number; signal?: AbortSignal } = {}): Diarizer {
  return async (pcm, _options, signal): Promise<DiarizedAudio> => {
    log.push('diarize');
    seen.samples = pcm.length;
    seen.signal = signal;
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, delayMs);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(signal.reason);
      });
    });
    log.push('diarized');
    return { turns: [{ startMs: 0, endMs: Math.round(pcm.length / 16), speaker: 0 }], types: null, typesWarning: null, overlapWarning: null };
  };
}

const base = (signal: AbortSignal, stages: FileTranscriptionProgress['stage'][]) => ({
  audioPath,
  language: 'am',
  model: null,
  signal,
  onProgress: (p: FileTranscriptionProgress) => {
    if (stages.at(-1) !== p.stage) stages.push(p.stage);
  },
  diarization: request,
});

describe('transcribeFile with diarization', () => {
  it('diarizes the whole decoded file while recognition is still running, then puts the speakers on the segments', async () => {
    const log: string[] = [];
    const stages: FileTranscriptionProgress['stage'][] = [];
    const seen: { samples?: number } = {};
    const out = await transcribeFile(parts(log, diarizer(log, 10, seen)), base(new AbortController().signal, stages));
    expect(log.indexOf('diarize')).toBeGreaterThanOrEqual(0);
    // Started and finished before the last piece was recognised.
    expect(log.indexOf('diarized')).toBeLessThan(log.lastIndexOf('piece'));
    expect(Math.abs(seen.samples! - out.durationSeconds * 16_000)).toBeLessThanOrEqual(16);
    expect(out.segments.length).toBeGreaterThan(1);
    expect(out.segments.every((s) => s.speaker === 'SPEAKER_00')).toBe(true);
    expect(out.diarization).toEqual({ speakers: { count: 1, labels: ['SPEAKER_00'] }, warning: null });
    // Nothing left to wait for after recognition: no diarizing stage.
    expect(stages).toEqual(['decoding', 'transcribing']);
  });

  it('hands the diarizer the Silero spans as they are being computed', async () => {
    const spans = [{ startMs: 0, endMs: 1000 }];
    let handed: Promise<unknown> | undefined;
    const withSpans: Diarizer = async (pcm, options, signal, speech) => {
      handed = speech;
      return diarizer([], 1)(pcm, options, signal);
    };
    const speechSpans = () => new Promise<typeof spans>((resolve) => setTimeout(() => resolve(spans), 100));
    const out = await transcribeFile({ ...parts([], withSpans), speechSpans }, base(new AbortController().signal, []));
    expect(out.diarization!.speakers!.count).toBe(1);
    expect(await handed).toEqual(spans);
  });

  it("reports the diarizing stage when diarization outlasts recognition, and a diarizer's failure is a warning", async () => {
    const log: string[] = [];
    const stages: FileTranscriptionProgress['stage'][] = [];
    const out = await transcribeFile(parts(log, diarizer(log, 3000), { delayMs: 1 }), base(new AbortController().signal, stages));
    expect(stages).toEqual(['decoding', 'transcribing', 'diarizing']);
    expect(log.at(-1)).toBe('diarized');
    expect(out.diarization!.speakers!.count).toBe(1);
    const failing: Diarizer = () => Promise.reject(new Error('Speaker diarization failed: boom'));
    const failed = await transcribeFile(parts([], failing), base(new AbortController().signal, []));
    expect(failed.segments.length).toBeGreaterThan(1);
    expect(failed.segments.every((s) => s.speaker === null)).toBe(true);
    expect(failed.diarization).toEqual({ speakers: null, warning: 'Speaker diarization failed: boom. The transcript has no speaker labels.' });
  });

  it('an abort stops recognition and diarization alike; a recognition failure stops the diarization', async () => {
    const log: string[] = [];
    const seen: { signal?: AbortSignal } = {};
    const controller = new AbortController();
    const running = transcribeFile(parts(log, diarizer(log, 60_000, seen)), base(controller.signal, []));
    while (!log.includes('diarize')) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort(new Error('job cancelled'));
    await expect(running).rejects.toThrow('job cancelled');
    expect(seen.signal!.aborted).toBe(true);
    expect(log).not.toContain('diarized');

    const failedLog: string[] = [];
    const failedSeen: { signal?: AbortSignal } = {};
    const failing = transcribeFile(
      parts(failedLog, diarizer(failedLog, 60_000, failedSeen), { failRecognition: true, delayMs: 500 }),
      base(new AbortController().signal, []),
    );
    await expect(failing).rejects.toThrow('model failed');
    // The file was decoded (and diarization started) long before the first piece failed.
    expect(failedSeen.signal!.aborted).toBe(true);
  });
});

describe('transcribeFile duration bounds', () => {
  const plain = (signal: AbortSignal) => ({ ...base(signal, []), diarization: null });

  it('refuses a probed duration past the maximum before decoding, and bounds what is decoded by the allowance', async () => {
    const log: string[] = [];
    const tooLong = transcribeFile({ ...parts(log, diarizer(log, 0)), maxAudioSeconds: 5 }, plain(new AbortController().signal));
    await expect(tooLong).rejects.toMatchObject({ name: 'AudioTooLongError', engineError: 'audio_too_large' });
    expect(log).toEqual([]);
    // The allowance (a key's quota left) is asked with the probed duration, and decoding stops past it.
    const asked: (number | null)[] = [];
    const bounded = transcribeFile(parts(log, diarizer(log, 0)), {
      ...plain(new AbortController().signal),
      admitAudio: async (seconds) => {
        asked.push(seconds);
        return { maxSeconds: 3, refuse: () => new Error('quota left: 3 s') };
      },
    });
    await expect(bounded).rejects.toThrow('quota left: 3 s');
    expect(asked[0]).toBeCloseTo(8.14, 1);
    // Within the allowance: the whole file, its decoded duration.
    const whole = await transcribeFile(parts(log, diarizer(log, 0), { delayMs: 1 }), {
      ...plain(new AbortController().signal),
      admitAudio: async () => ({ maxSeconds: 60, refuse: () => new Error('not reached') }),
    });
    expect(whole.durationSeconds).toBeCloseTo(8.14, 1);
  });
});
