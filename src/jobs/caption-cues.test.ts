import { describe, expect, it } from 'vitest';
import { BROADCAST_CAPTION_RULES, buildCaptionCues } from './caption-cues.js';
import { renderCaptions } from './caption-formats.js';

const AMHARIC = 'የኢትዮጵያ ፌዴራላዊ ዲሞክራሲያዊ ሪፐብሊክ መንግሥት ዛሬ በአዲስ አበባ ባደረገው ስብሰባ አዲስ የትምህርት ፖሊሲ አጽድቋል። ፖሊሲው በሚቀጥለው ዓመት ሥራ ላይ ይውላል፣ ሚኒስቴሩ ገልጿል።';

describe('buildCaptionCues', () => {
  it('keeps a short segment as one one-line cue with its own times', () => {
    const cues = buildCaptionCues([{ start_ms: 1000, end_ms: 2500, text: 'ሰላም ለአለም', speaker: null }]);
    expect(cues).toEqual([{ index: 1, startMs: 1000, endMs: 2500, lines: ['ሰላም ለአለም'], speaker: null }]);
  });

  it('never exceeds two lines of 42 characters and keeps every word in order', () => {
    const cues = buildCaptionCues([{ start_ms: 0, end_ms: 12_000, text: AMHARIC }]);
    expect(cues.length).toBeGreaterThan(1);
    for (const cue of cues) {
      expect(cue.lines.length).toBeLessThanOrEqual(2);
      for (const line of cue.lines) expect([...line].length).toBeLessThanOrEqual(42);
    }
    expect(cues.flatMap((c) => c.lines).join(' ')).toBe(AMHARIC);
  });

  it('keeps cues within 7 s, at least 5/6 s where the next cue leaves room, and 80 ms apart', () => {
    const words = Array.from({ length: 60 }, (_, i) => `ቃል${i}`).join(' ');
    const cues = buildCaptionCues([
      { start_ms: 0, end_ms: 30_000, text: words },
      { start_ms: 30_000, end_ms: 30_200, text: 'አዎ' },
    ]);
    for (const cue of cues) expect(cue.endMs - cue.startMs).toBeLessThanOrEqual(BROADCAST_CAPTION_RULES.maxCueMs);
    const last = cues[cues.length - 1]!;
    expect(last.endMs - last.startMs).toBeGreaterThanOrEqual(833);
    for (let i = 1; i < cues.length; i += 1) expect(cues[i]!.startMs - cues[i - 1]!.endMs).toBeGreaterThanOrEqual(80);
  });

  it('ends a cue at a sentence end when the cue is already a third full', () => {
    const cues = buildCaptionCues([{ start_ms: 0, end_ms: 8000, text: AMHARIC }]);
    expect(cues.some((c) => c.lines[c.lines.length - 1]!.endsWith('አጽድቋል።'))).toBe(true);
  });

  it('splits a word longer than a line and never gives a cue to an empty segment', () => {
    const long = 'ሀ'.repeat(100);
    const cues = buildCaptionCues([
      { start_ms: 0, end_ms: 1000, text: '   ' },
      { start_ms: 1000, end_ms: 5000, text: long },
    ]);
    expect(cues.flatMap((c) => c.lines).join('')).toBe(long);
    expect(cues[0]!.startMs).toBe(1000);
  });

  it("times cues by the segment's words, not by letters", () => {
    // A long pause after the first words: spread by letters, the second cue would start mid-pause.
    const texts = ['የኢትዮጵያ', 'ፌዴራላዊ', 'ዲሞክራሲያዊ', 'ሪፐብሊክ', 'መንግሥት', 'ዛሬ', 'በአዲስ', 'አበባ', 'ባደረገው', 'ስብሰባ', 'አዲስ', 'ፖሊሲ'];
    const starts = [200, 800, 1400, 2000, 2600, 3200, 9000, 9500, 10_000, 10_500, 11_000, 11_500];
    const words = texts.map((word, i) => ({ word, start_ms: starts[i]!, end_ms: starts[i]! + 450, confidence: 0.9 }));
    const segment = { start_ms: 0, end_ms: 12_500, text: texts.join(' '), speaker: null, words };
    const cues = buildCaptionCues([segment], { ...BROADCAST_CAPTION_RULES, maxCueMs: 4000 });
    expect(cues[0]!.startMs).toBe(200);
    expect(cues[0]!.lines.join(' ')).toBe(texts.slice(0, 6).join(' '));
    expect(cues[0]!.endMs).toBe(3650);
    expect(cues[1]!.startMs).toBe(9000);
    expect(cues[cues.length - 1]!.endMs).toBe(11_950);
    expect(cues.flatMap((c) => c.lines).join(' ')).toBe(segment.text);
    // The same segment without words: interpolated by letters over its whole span.
    const spread = buildCaptionCues([{ ...segment, words: undefined }], { ...BROADCAST_CAPTION_RULES, maxCueMs: 4000 });
    expect(spread[0]!.startMs).toBe(0);
    expect(spread[spread.length - 1]!.endMs).toBe(12_500);
  });

  it('falls back to letters when the words do not spell the text (edited after recognition)', () => {
    const words = [{ word: 'ሰላም', start_ms: 500, end_ms: 900, confidence: 0.9 }];
    const cues = buildCaptionCues([{ start_ms: 0, end_ms: 2000, text: 'ሰላም ለአለም', words }]);
    expect(cues).toEqual([{ index: 1, startMs: 0, endMs: 2000, lines: ['ሰላም ለአለም'], speaker: null }]);
  });

  it('does not merge speakers into one cue', () => {
    const cues = buildCaptionCues([
      { start_ms: 0, end_ms: 1000, text: 'ሰላም', speaker: 'SPEAKER_00' },
      { start_ms: 1000, end_ms: 2000, text: 'እንዴት ነህ', speaker: 'SPEAKER_01' },
    ]);
    expect(cues.map((c) => c.speaker)).toEqual(['SPEAKER_00', 'SPEAKER_01']);
  });
});

describe('renderCaptions', () => {
  const cues = buildCaptionCues([{ start_ms: 3_723_004, end_ms: 3_725_000, text: 'a <b> & c', speaker: 'SPEAKER_00' }]);

  it('writes WebVTT with a header, dotted times, voice spans and escapes', () => {
    expect(renderCaptions(cues, 'vtt')).toBe('WEBVTT\n\n1\n01:02:03.004 --> 01:02:05.000\n<v SPEAKER_00>a &lt;b&gt; &amp; c\n\n');
  });

  it('writes SubRip with comma times', () => {
    expect(renderCaptions(cues, 'srt')).toBe('1\n01:02:03,004 --> 01:02:05,000\na <b> & c\n\n');
  });
});
