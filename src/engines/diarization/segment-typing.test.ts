import { describe, expect, it } from 'vitest';
import { segmentAt } from '../../../test/helpers/transcript-fixture.js';
import type { AudioTypes } from './segment-type.js';
import { typeSegments } from './segment-typing.js';

const segment = (id: number, start: number, end: number, text: string, speaker: string | null) => segmentAt(id, start, end, text, { speaker, confidence: 0.8 });
const types: AudioTypes = {
  music: [{ startMs: 6000, endMs: 12_000 }],
  speakers: [
    { speaker: 0, type: 'female', pFemale: 0.9, medianF0: 200, voicedFrames: 200 },
    { speaker: 1, type: 'male', pFemale: 0.1, medianF0: 100, voicedFrames: 200 },
    { speaker: 2, type: 'speech', pFemale: 0.5, medianF0: 150, voicedFrames: 100 },
  ],
  turns: [
    { startMs: 0, endMs: 3000, speaker: 0, type: 'female' },
    { startMs: 3000, endMs: 6000, speaker: 1, type: 'male' },
    { startMs: 12_000, endMs: 14_000, speaker: 2, type: 'speech' },
  ],
};

describe('typeSegments', () => {
  it('types segments by the turn overlapping them most, and unsure voices as speech', () => {
    const out = typeSegments(
      [segment(0, 0, 2900, 'a', 'SPEAKER_00'), segment(1, 2900, 6000, 'b', 'SPEAKER_01'), segment(2, 12_000, 14_000, 'c', 'SPEAKER_02')],
      types,
    );
    expect(out.filter((s) => s.text !== '').map((s) => [s.text, s.type])).toEqual([
      ['a', 'female'],
      ['b', 'male'],
      ['c', 'speech'],
    ]);
  });

  it('adds the music no segment covers as segments of its own, in time order with new ids', () => {
    const out = typeSegments(
      [segment(0, 0, 3000, 'a', 'SPEAKER_00'), segment(1, 7000, 8000, 'x', 'SPEAKER_01'), segment(2, 12_000, 14_000, 'c', 'SPEAKER_02')],
      types,
    );
    expect(out.map((s) => [s.id, s.start_ms, s.end_ms, s.text, s.speaker, s.type])).toEqual([
      [0, 0, 3000, 'a', 'SPEAKER_00', 'female'],
      [1, 6000, 7000, '', null, 'music'],
      // A segment inside the music is music: no speaker, and the recogniser's text on it is dropped.
      [2, 7000, 8000, '', null, 'music'],
      [3, 8000, 12_000, '', null, 'music'],
      [4, 12_000, 14_000, 'c', 'SPEAKER_02', 'speech'],
    ]);
  });

  it('drops the words of a segment that becomes music with its text; other segments keep theirs', () => {
    const words = (text: string, start: number) => [{ word: text, start_ms: start, end_ms: start + 400, confidence: 0.7 }];
    const out = typeSegments(
      [
        { ...segment(0, 0, 3000, 'a', 'SPEAKER_00'), words: words('a', 100) },
        { ...segment(1, 7000, 8000, 'x', 'SPEAKER_01'), words: words('x', 7100) },
      ],
      types,
    );
    expect(out.map((s) => [s.text, s.type, s.words])).toEqual([
      ['a', 'female', words('a', 100)],
      ['', 'music', undefined],
      ['', 'music', undefined],
      ['', 'music', undefined],
    ]);
  });

  it('leaves out music pieces shorter than a second between segments, and types speakerless segments speech', () => {
    const out = typeSegments([segment(0, 0, 6500, 'a', null), segment(1, 6500, 11_500, 'y', 'SPEAKER_00')], types);
    // 11.5-12 s of music is left uncovered: too short to be a segment.
    expect(out.map((s) => [s.start_ms, s.end_ms, s.speaker, s.type])).toEqual([
      [0, 6500, null, 'speech'],
      [6500, 11_500, null, 'music'],
    ]);
  });
});
