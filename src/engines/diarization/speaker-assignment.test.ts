import { describe, expect, it } from 'vitest';
import { segmentAt } from '../../../test/helpers/transcript-fixture.js';
import { assignSpeakers } from './speaker-assignment.js';

const segment = (id: number, start: number, end: number, text: string) => segmentAt(id, start, end, text, { confidence: 0.9 });
const word = (text: string, start: number, end: number) => ({ text, start_ms: start, end_ms: end });

describe('assignSpeakers', () => {
  it('numbers speakers by first appearance and labels each segment', () => {
    const turns = [
      { startMs: 0, endMs: 2000, speaker: 1 },
      { startMs: 2000, endMs: 4000, speaker: 0 },
    ];
    const { segments, speakers } = assignSpeakers(
      [segment(0, 0, 1900, 'ሰላም'), segment(1, 2100, 3900, 'ደህና')],
      [[word('ሰላም', 100, 900)], [word('ደህና', 2200, 3000)]],
      turns,
    );
    expect(segments.map((s) => s.speaker)).toEqual(['SPEAKER_00', 'SPEAKER_01']);
    expect(speakers).toEqual({ count: 2, labels: ['SPEAKER_00', 'SPEAKER_01'] });
  });

  it('splits a segment at the word where the speaker changes', () => {
    const { segments } = assignSpeakers(
      [segment(0, 0, 4000, 'አንድ ሁለት ሶስት አራት')],
      [[word('አንድ', 0, 900), word('ሁለት', 1000, 1900), word('ሶስት', 2100, 2900), word('አራት', 3000, 3900)]],
      [
        { startMs: 0, endMs: 2000, speaker: 0 },
        { startMs: 2000, endMs: 4000, speaker: 1 },
      ],
    );
    expect(segments).toEqual([
      { id: 0, start_ms: 0, end_ms: 2100, duration_ms: 2100, text: 'አንድ ሁለት', speaker: 'SPEAKER_00', confidence: 0.9 },
      { id: 1, start_ms: 2100, end_ms: 4000, duration_ms: 1900, text: 'ሶስት አራት', speaker: 'SPEAKER_01', confidence: 0.9 },
    ]);
  });

  it('gives null to a segment outside every turn and keeps it; the speaker of the turn still counts', () => {
    const { segments, speakers } = assignSpeakers([segment(0, 5000, 6000, '')], [[]], [{ startMs: 0, endMs: 1000, speaker: 0 }]);
    expect(segments[0]!.speaker).toBeNull();
    expect(speakers).toEqual({ count: 1, labels: ['SPEAKER_00'] });
  });

  it('counts speakers whose turns hold no segment after those that do, by first turn', () => {
    const { segments, speakers } = assignSpeakers(
      [segment(0, 3000, 4000, 'ሰላም')],
      [[word('ሰላም', 3100, 3900)]],
      [
        { startMs: 0, endMs: 500, speaker: 0 },
        { startMs: 1000, endMs: 1500, speaker: 1 },
        { startMs: 3000, endMs: 4000, speaker: 2 },
      ],
    );
    expect(segments.map((s) => s.speaker)).toEqual(['SPEAKER_00']);
    expect(speakers).toEqual({ count: 3, labels: ['SPEAKER_00', 'SPEAKER_01', 'SPEAKER_02'] });
  });
});
