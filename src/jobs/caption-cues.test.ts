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
