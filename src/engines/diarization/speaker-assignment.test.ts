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

  it('splits a segment at a pause no turn covers (a second or more), so the pause is nobody’s (issue 29)', () => {
    const { segments } = assignSpeakers(
      [segment(0, 0, 6000, 'አንድ ሁለት ሶስት')],
      [[word('አንድ', 0, 900), word('ሁለት', 1000, 1900), word('ሶስት', 4000, 4900)]],
      [
        { startMs: 0, endMs: 2000, speaker: 0 },
        { startMs: 3800, endMs: 5000, speaker: 0 },
      ],
    );
    expect(segments).toEqual([
      { id: 0, start_ms: 0, end_ms: 1900, duration_ms: 1900, text: 'አንድ ሁለት', speaker: 'SPEAKER_00', confidence: 0.9 },
      { id: 1, start_ms: 4000, end_ms: 6000, duration_ms: 2000, text: 'ሶስት', speaker: 'SPEAKER_00', confidence: 0.9 },
    ]);
    // A pause under a second, or one a turn covers, keeps the segment whole.
    const whole = assignSpeakers([segment(0, 0, 4000, 'አንድ ሁለት')], [[word('አንድ', 0, 900), word('ሁለት', 1800, 2500)]], [{ startMs: 0, endMs: 3000, speaker: 0 }]);
    expect(whole.segments).toHaveLength(1);
  });

  it("splits the segment's own words with it, each part keeping the words of its text", () => {
    const timed = [word('አንድ', 0, 900), word('ሁለት', 1000, 1900), word('ሶስት', 2100, 2900)];
    const own = timed.map((w, i) => ({ word: w.text, start_ms: w.start_ms, end_ms: w.end_ms, confidence: 0.5 + i / 10 }));
    const { segments } = assignSpeakers(
      [{ ...segment(0, 0, 3000, 'አንድ ሁለት ሶስት'), words: own }],
      [timed],
      [
        { startMs: 0, endMs: 950, speaker: 0 },
        { startMs: 950, endMs: 3000, speaker: 1 },
      ],
    );
    expect(segments.map((s) => [s.text, s.words])).toEqual([
      ['አንድ', [own[0]]],
      ['ሁለት ሶስት', [own[1], own[2]]],
    ]);
    for (const s of segments) {
      expect(s.words!.map((w) => w.word).join(' ')).toBe(s.text);
      for (const w of s.words!) {
        expect(w.start_ms).toBeGreaterThanOrEqual(s.start_ms);
        expect(w.end_ms).toBeLessThanOrEqual(s.end_ms);
      }
    }
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
