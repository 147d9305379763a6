import { describe, expect, it } from 'vitest';
import { SessionTranscript } from './session-transcript.js';

describe('SessionTranscript', () => {
  it('partials: stable text is what two partials of the same turn agree on', () => {
    const transcript = new SessionTranscript();
    const span = { start: 16_000, end: 32_000 };
    expect(transcript.partial(1, span, 'ሰላም ለ')).toMatchObject({ turn_id: 1, start_ms: 1000, end_ms: 2000, stable_text: '', unstable_text: 'ሰላም ለ' });
    expect(transcript.partial(1, span, 'ሰላም ለአለም')).toMatchObject({ stable_text: 'ሰላም', unstable_text: 'ለአለም' });
    // Another turn, or a reset, starts afresh.
    expect(transcript.partial(2, span, 'ሰላም')).toMatchObject({ stable_text: '', unstable_text: 'ሰላም' });
    transcript.resetPartial();
    expect(transcript.partial(2, span, 'ሰላም')).toMatchObject({ stable_text: '' });
  });

  it('commits numbered segments in stream time and joins the full text; empty text commits nothing', () => {
    const transcript = new SessionTranscript();
    expect(transcript.commit({ start: 0, end: 16_000 }, 'ሰላም', 0.9)).toEqual([
      { id: 0, start_ms: 0, end_ms: 1000, duration_ms: 1000, text: 'ሰላም', speaker: null, confidence: 0.9 },
    ]);
    expect(transcript.commit({ start: 16_000, end: 20_000 }, '', null)).toEqual([]);
    expect(transcript.commit({ start: 20_000, end: 40_000 }, 'ለአለም', null)[0]).toMatchObject({ id: 1, start_ms: 1250, end_ms: 2500 });
    expect(transcript.fullText).toBe('ሰላም ለአለም');
    expect(transcript.segments).toHaveLength(2);
  });

  it("keeps a turn's words on its segment, and in the record's time order with channels", () => {
    const transcript = new SessionTranscript(true);
    const words = [
      { word: 'ሰላም', start_ms: 1100, end_ms: 1400, confidence: 0.8 },
      { word: 'ለአለም', start_ms: 1500, end_ms: 1900, confidence: 0.7 },
    ];
    transcript.commit({ start: 32_000, end: 48_000 }, 'ደህና', 0.6, { channel: 1, speaker: 'customer' }, [
      { word: 'ደህና', start_ms: 2100, end_ms: 2500, confidence: 0.6 },
    ]);
    expect(transcript.commit({ start: 16_000, end: 32_000 }, 'ሰላም ለአለም', 0.75, { channel: 0, speaker: 'agent' }, words)[0]!.words).toEqual(words);
    expect(transcript.recordSegments.map((s) => s.words?.map((w) => w.word))).toEqual([['ሰላም', 'ለአለም'], ['ደህና']]);
  });
});
