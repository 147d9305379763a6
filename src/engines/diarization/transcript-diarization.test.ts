import { describe, expect, it } from 'vitest';
import type { Segment } from '../../platform/db/job-records.js';
import { DiarizationError, type DiarizedAudio } from './diarization-thread.js';
import { type Diarizer, diarizeTranscript, type DiarizationRequest, renumberSpeakers } from './transcript-diarization.js';

const segments: Segment[] = [{ id: 0, start_ms: 0, end_ms: 4000, duration_ms: 4000, text: 'አንድ ሁለት', speaker: null, confidence: 0.9 }];
const words = [
  [
    { text: 'አንድ', start_ms: 100, end_ms: 1500 },
    { text: 'ሁለት', start_ms: 2500, end_ms: 3800 },
  ],
];
const request: DiarizationRequest = { backend: 'backend_a', minSpeakers: null, maxSpeakers: null };
const pcm = new Float32Array(16_000 * 4);
const twoSpeakers = [
  { startMs: 0, endMs: 2000, speaker: 0 },
  { startMs: 2000, endMs: 4000, speaker: 1 },
];
const oneSpeaker = [{ startMs: 0, endMs: 4000, speaker: 0 }];

/** A diarizer's answer: these turns, no types and no warnings unless given. */
function diarized(turns: DiarizedAudio['turns'], rest: Partial<Omit<DiarizedAudio, 'turns'>> = {}): DiarizedAudio {
  return { turns, types: null, typesWarning: null, overlapWarning: null, ...rest };
}

/** diarizeTranscript on the shared words and request, with a fresh signal unless given. */
function diarize(diarizer: Diarizer, audio: Float32Array | null = pcm, on: Segment[] = segments, signal = new AbortController().signal) {
  return diarizeTranscript(audio, on, words, request, diarizer, signal);
}

describe('diarizeTranscript', () => {
  it('warns when fewer speakers were told apart than min_speakers asks for, and not when the minimum is met', async () => {
    const asking = (minSpeakers: number) => ({ ...request, minSpeakers });
    const short = await diarizeTranscript(pcm, segments, words, asking(20), async () => diarized(twoSpeakers), new AbortController().signal);
    expect(short.diarization.speakers).toEqual({ count: 2, labels: ['SPEAKER_00', 'SPEAKER_01'] });
    expect(short.diarization.warning).toBe('min_speakers is 20, but only 2 speakers could be told apart: the audio holds too little speech for more.');
    const met = await diarizeTranscript(pcm, segments, words, asking(2), async () => diarized(twoSpeakers), new AbortController().signal);
    expect(met.diarization.warning).toBeNull();
    // Beside the other notes of a diarization that found speakers.
    const withOverlap = await diarizeTranscript(
      pcm,
      segments,
      words,
      asking(3),
      async () => diarized(oneSpeaker, { overlapWarning: 'the overlap detector could not be read' }),
      new AbortController().signal,
    );
    expect(withOverlap.diarization.warning).toMatch(/^min_speakers is 3, but only 1 speaker could be told apart.* Overlapping speech has one speaker\.$/);
  });

  it('puts the turns onto the segments and reports the speakers', async () => {
    const out = await diarize(async () => diarized(twoSpeakers));
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
      return diarized(oneSpeaker);
    };
    const spans = [{ startMs: 100, endMs: 3800 }];
    await diarizeTranscript(pcm, segments, words, request, diarizer, new AbortController().signal, spans);
    await diarizeTranscript(pcm, segments, words, request, diarizer, new AbortController().signal, null);
    expect(seen).toEqual([spans, undefined]);
  });

  it('types the segments by their speakers and adds the music no segment covers', async () => {
    const long: Segment[] = [{ ...segments[0]!, end_ms: 4000 }];
    const out = await diarize(
      async () =>
        diarized(twoSpeakers, {
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
        }),
      new Float32Array(16_000 * 8),
      long,
    );
    expect(out.segments.map((s) => [s.id, s.start_ms, s.end_ms, s.text, s.speaker, s.type])).toEqual([
      [0, 0, 2500, 'አንድ', 'SPEAKER_00', 'male'],
      [1, 2500, 4000, 'ሁለት', 'SPEAKER_01', 'female'],
      [2, 4200, 8000, '', null, 'music'],
    ]);
  });

  it('keeps the speakers when only the segment types failed, with a warning', async () => {
    const out = await diarize(async () => diarized(oneSpeaker, { typesWarning: 'Segment types were not classified: ENOENT' }));
    expect(out.segments.map((s) => [s.speaker, s.type])).toEqual([['SPEAKER_00', 'speech']]);
    expect(out.diarization).toEqual({
      speakers: { count: 1, labels: ['SPEAKER_00'] },
      warning: 'Segment types were not classified: ENOENT. Segments are typed `speech`.',
    });
  });

  it('keeps the speakers when the overlap detector could not be read, with a warning (beside a segment-type one)', async () => {
    const diarizer = (typesWarning: string | null) => async () =>
      diarized(oneSpeaker, { typesWarning, overlapWarning: "Overlapping speech was not detected: ENOENT: no such file or directory, open 'overlap.json'" });
    const alone = await diarize(diarizer(null));
    expect(alone.segments.map((s) => s.speaker)).toEqual(['SPEAKER_00']);
    expect(alone.diarization.warning).toBe(
      "Overlapping speech was not detected: ENOENT: no such file or directory, open 'overlap.json'. Overlapping speech has one speaker.",
    );
    const both = await diarize(diarizer('Segment types were not classified: ENOENT'));
    expect(both.diarization.warning).toBe(
      "Segment types were not classified: ENOENT. Segments are typed `speech`. Overlapping speech was not detected: ENOENT: no such file or directory, open 'overlap.json'. Overlapping speech has one speaker.",
    );
  });

  it('turns a failure or timeout into a warning and keeps the plain segments', async () => {
    const out = await diarize(async () => {
      throw new DiarizationError('Speaker diarization timed out after 5 ms.', true);
    });
    expect(out.segments).toBe(segments);
    expect(out.diarization).toEqual({ speakers: null, warning: 'Speaker diarization timed out after 5 ms. The transcript has no speaker labels.' });
  });

  it('warns without running when the samples were not kept (too long)', async () => {
    let ran = false;
    const out = await diarize(async () => {
      ran = true;
      return diarized([]);
    }, null);
    expect(ran).toBe(false);
    expect(out.diarization.warning).toMatch(/at most 3 hours/);
  });

  it('rethrows when the job was stopped', async () => {
    const controller = new AbortController();
    const stopped = diarize(
      async () => {
        controller.abort(new Error('cancelled'));
        throw controller.signal.reason;
      },
      pcm,
      segments,
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
