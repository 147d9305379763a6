import { describe, expect, it } from 'vitest';
import type { Segment } from '../../platform/db/job-records.js';
import { DiarizationError } from './diarization-thread.js';
import { diarizeTranscript, type DiarizationRequest, renumberSpeakers } from './transcript-diarization.js';

const segments: Segment[] = [{ id: 0, start_ms: 0, end_ms: 4000, duration_ms: 4000, text: 'አንድ ሁለት', speaker: null, confidence: 0.9 }];
const words = [
  [
    { text: 'አንድ', start_ms: 100, end_ms: 1500 },
    { text: 'ሁለት', start_ms: 2500, end_ms: 3800 },
  ],
];
const request: DiarizationRequest = { backend: 'backend_a', minSpeakers: null, maxSpeakers: null };
const pcm = new Float32Array(16_000 * 4);

describe('diarizeTranscript', () => {
  it('puts the turns onto the segments and reports the speakers', async () => {
    const out = await diarizeTranscript(
      pcm,
      segments,
      words,
      request,
      async () => ({
        turns: [
          { startMs: 0, endMs: 2000, speaker: 0 },
          { startMs: 2000, endMs: 4000, speaker: 1 },
        ],
        types: null,
        typesWarning: null,
        overlapWarning: null,
      }),
      new AbortController().signal,
    );
    expect(out.segments.map((s) => [s.text, s.speaker, s.type])).toEqual([
      ['አንድ', 'SPEAKER_00', 'speech'],
      ['ሁለት', 'SPEAKER_01', 'speech'],
    ]);
    expect(out.diarization).toEqual({ speakers: { count: 2, labels: ['SPEAKER_00', 'SPEAKER_01'] }, warning: null });
  });

  it("hands the VAD's speech spans to the diarizer, and none when there are none", async () => {
    const seen: unknown[] = [];
    const diarizer = async (_pcm: Float32Array, options: { speech?: unknown }) => {
      seen.push(options.speech);
      return { turns: [{ startMs: 0, endMs: 4000, speaker: 0 }], types: null, typesWarning: null, overlapWarning: null };
    };
    const spans = [{ startMs: 100, endMs: 3800 }];
    await diarizeTranscript(pcm, segments, words, request, diarizer, new AbortController().signal, spans);
    await diarizeTranscript(pcm, segments, words, request, diarizer, new AbortController().signal, null);
    expect(seen).toEqual([spans, undefined]);
  });

  it('types the segments by their speakers and adds the music no segment covers', async () => {
    const long: Segment[] = [{ ...segments[0]!, end_ms: 4000 }];
    const out = await diarizeTranscript(
      new Float32Array(16_000 * 8),
      long,
      words,
      request,
      async () => ({
        turns: [
          { startMs: 0, endMs: 2000, speaker: 0 },
          { startMs: 2000, endMs: 4000, speaker: 1 },
        ],
        types: {
          music: [{ startMs: 4200, endMs: 8000 }],
          speakers: [
            { speaker: 0, type: 'male', pFemale: 0.05, medianF0: 110, voicedFrames: 120 },
            { speaker: 1, type: 'female', pFemale: 0.95, medianF0: 210, voicedFrames: 100 },
          ],
          turns: [
            { startMs: 0, endMs: 2000, speaker: 0, type: 'male' },
            { startMs: 2000, endMs: 4000, speaker: 1, type: 'female' },
          ],
        },
        typesWarning: null,
        overlapWarning: null,
      }),
      new AbortController().signal,
    );
    expect(out.segments.map((s) => [s.id, s.start_ms, s.end_ms, s.text, s.speaker, s.type])).toEqual([
      [0, 0, 2500, 'አንድ', 'SPEAKER_00', 'male'],
      [1, 2500, 4000, 'ሁለት', 'SPEAKER_01', 'female'],
      [2, 4200, 8000, '', null, 'music'],
    ]);
  });

  it('keeps the speakers when only the segment types failed, with a warning', async () => {
    const out = await diarizeTranscript(
      pcm,
      segments,
      words,
      request,
      async () => ({
        turns: [{ startMs: 0, endMs: 4000, speaker: 0 }],
        types: null,
        typesWarning: 'Segment types were not classified: ENOENT',
        overlapWarning: null,
      }),
      new AbortController().signal,
    );
    expect(out.segments.map((s) => [s.speaker, s.type])).toEqual([['SPEAKER_00', 'speech']]);
    expect(out.diarization).toEqual({
      speakers: { count: 1, labels: ['SPEAKER_00'] },
      warning: 'Segment types were not classified: ENOENT. Segments are typed `speech`.',
    });
  });

  it('keeps the speakers when the overlap detector could not be read, with a warning (beside a segment-type one)', async () => {
    const diarizer = (typesWarning: string | null) => async () => ({
      turns: [{ startMs: 0, endMs: 4000, speaker: 0 }],
      types: null,
      typesWarning,
      overlapWarning: "Overlapping speech was not detected: ENOENT: no such file or directory, open 'overlap.json'",
    });
    const alone = await diarizeTranscript(pcm, segments, words, request, diarizer(null), new AbortController().signal);
    expect(alone.segments.map((s) => s.speaker)).toEqual(['SPEAKER_00']);
    expect(alone.diarization.warning).toBe(
      "Overlapping speech was not detected: ENOENT: no such file or directory, open 'overlap.json'. Overlapping speech has one speaker.",
    );
    const both = await diarizeTranscript(pcm, segments, words, request, diarizer('Segment types were not classified: ENOENT'), new AbortController().signal);
    expect(both.diarization.warning).toBe(
      "Segment types were not classified: ENOENT. Segments are typed `speech`. Overlapping speech was not detected: ENOENT: no such file or directory, open 'overlap.json'. Overlapping speech has one speaker.",
    );
  });

  it('turns a failure or timeout into a warning and keeps the plain segments', async () => {
    const out = await diarizeTranscript(
      pcm,
      segments,
      words,
      request,
      async () => {
        throw new DiarizationError('Speaker diarization timed out after 5 ms.', true);
      },
      new AbortController().signal,
    );
    expect(out.segments).toBe(segments);
    expect(out.diarization).toEqual({ speakers: null, warning: 'Speaker diarization timed out after 5 ms. The transcript has no speaker labels.' });
  });

  it('warns without running when the samples were not kept (too long)', async () => {
    let ran = false;
    const out = await diarizeTranscript(
      null,
      segments,
      words,
      request,
      async () => {
        ran = true;
        return { turns: [], types: null, typesWarning: null, overlapWarning: null };
      },
      new AbortController().signal,
    );
    expect(ran).toBe(false);
    expect(out.diarization.warning).toMatch(/at most 3 hours/);
  });

  it('rethrows when the job was stopped', async () => {
    const controller = new AbortController();
    const stopped = diarizeTranscript(
      pcm,
      segments,
      words,
      request,
      async () => {
        controller.abort(new Error('cancelled'));
        throw controller.signal.reason;
      },
      controller.signal,
    );
    await expect(stopped).rejects.toThrow('cancelled');
  });
});

describe('renumberSpeakers', () => {
  it('numbers by first appearance again once music segments have lost their speaker', () => {
    const seg = (id: number, speaker: string | null): Segment => ({
      id,
      start_ms: id * 1000,
      end_ms: id * 1000 + 900,
      duration_ms: 900,
      text: '',
      speaker,
      confidence: null,
    });
    const out = renumberSpeakers([seg(0, null), seg(1, 'SPEAKER_01'), seg(2, 'SPEAKER_02'), seg(3, 'SPEAKER_01')], {
      count: 3,
      labels: ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02'],
    });
    expect(out.segments.map((s) => s.speaker)).toEqual([null, 'SPEAKER_00', 'SPEAKER_01', 'SPEAKER_00']);
    expect(out.speakers).toEqual({ count: 3, labels: ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02'] });
  });
});
