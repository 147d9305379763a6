import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { compressionRatio, renderAudioResult, type AudioResult } from './openai-formats.js';

const RESULT: AudioResult = {
  task: 'transcribe',
  language: 'amharic',
  durationSeconds: 8.1234,
  segments: [
    {
      start_ms: 250,
      end_ms: 2_750,
      text: 'ሰላም ለአለም',
      confidence: 0.8,
      words: [
        { word: 'ሰላም', start_ms: 250, end_ms: 1_100 },
        { word: 'ለአለም', start_ms: 1_300, end_ms: 2_750 },
      ],
    },
    { start_ms: 3_000, end_ms: 3_400, text: '', confidence: null },
    { start_ms: 4_000, end_ms: 6_500, text: ' ደህና ነህ ', confidence: 0.5 },
  ],
};

describe('renderAudioResult', () => {
  it('json: the text of the non-empty segments and the usage in whole seconds, rounded up', () => {
    expect(renderAudioResult(RESULT, 'json', ['segment'])).toEqual({
      kind: 'json',
      body: { text: 'ሰላም ለአለም ደህና ነህ', usage: { type: 'duration', seconds: 9 } },
    });
  });

  it('text: the text and a line break, as plain text', () => {
    expect(renderAudioResult(RESULT, 'text', ['segment'])).toEqual({ kind: 'text', body: 'ሰላም ለአለም ደህና ነህ\n', contentType: 'text/plain; charset=utf-8' });
  });

  it('srt and vtt: caption files with the segments’ times', () => {
    const srt = renderAudioResult(RESULT, 'srt', ['segment']);
    expect(srt.kind).toBe('text');
    expect(srt.body).toBe('1\n00:00:00,250 --> 00:00:02,750\nሰላም ለአለም\n\n2\n00:00:04,000 --> 00:00:06,500\nደህና ነህ\n\n');
    const vtt = renderAudioResult(RESULT, 'vtt', ['segment']);
    expect(vtt.body).toBe('WEBVTT\n\n1\n00:00:00.250 --> 00:00:02.750\nሰላም ለአለም\n\n2\n00:00:04.000 --> 00:00:06.500\nደህና ነህ\n\n');
    expect(vtt.kind === 'text' && vtt.contentType).toBe('text/vtt; charset=utf-8');
  });

  it('verbose_json with segments: OpenAI’s segment fields, empty segments left out and ids renumbered', () => {
    const rendered = renderAudioResult(RESULT, 'verbose_json', ['segment']);
    expect(rendered.kind).toBe('json');
    const body = rendered.body as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['task', 'language', 'duration', 'text', 'segments', 'usage']);
    expect(body).toMatchObject({ task: 'transcribe', language: 'amharic', duration: 8.123, text: 'ሰላም ለአለም ደህና ነህ' });
    expect(body['segments']).toEqual([
      {
        id: 0,
        seek: 25,
        start: 0.25,
        end: 2.75,
        text: 'ሰላም ለአለም',
        tokens: [],
        temperature: 0,
        avg_logprob: -0.2231,
        compression_ratio: Math.round(compressionRatio('ሰላም ለአለም') * 10_000) / 10_000,
        no_speech_prob: 0,
      },
      {
        id: 1,
        seek: 400,
        start: 4,
        end: 6.5,
        text: 'ደህና ነህ',
        tokens: [],
        temperature: 0,
        avg_logprob: Math.round(Math.log(0.5) * 10_000) / 10_000,
        compression_ratio: Math.round(compressionRatio('ደህና ነህ') * 10_000) / 10_000,
        no_speech_prob: 0,
      },
    ]);
  });

  it('verbose_json with words: the segments’ word timings in seconds; word alone leaves the segments out', () => {
    const both = renderAudioResult(RESULT, 'verbose_json', ['segment', 'word']).body as Record<string, unknown>;
    expect(both['words']).toEqual([
      { word: 'ሰላም', start: 0.25, end: 1.1 },
      { word: 'ለአለም', start: 1.3, end: 2.75 },
    ]);
    expect(both['segments']).toHaveLength(2);
    const words = renderAudioResult(RESULT, 'verbose_json', ['word']).body as Record<string, unknown>;
    expect(words['segments']).toBeUndefined();
    expect(words['words']).toHaveLength(2);
  });

  it('a translation says task translate and language english, and carries no usage (as OpenAI’s translation objects)', () => {
    const translation: AudioResult = { ...RESULT, task: 'translate', language: 'english' };
    const body = renderAudioResult(translation, 'verbose_json', ['segment']).body as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['task', 'language', 'duration', 'text', 'segments']);
    expect(body).toMatchObject({ task: 'translate', language: 'english' });
    expect(renderAudioResult(translation, 'json', ['segment']).body).toEqual({ text: 'ሰላም ለአለም ደህና ነህ' });
  });

  it('avg_logprob is floored: a zero confidence gives ln(1e-4), never -Infinity', () => {
    const body = renderAudioResult({ ...RESULT, segments: [{ start_ms: 0, end_ms: 1_000, text: 'ሰላም', confidence: 0 }] }, 'verbose_json', ['segment']).body as {
      segments: { avg_logprob: number }[];
    };
    expect(body.segments[0]!.avg_logprob).toBe(-9.2103);
  });

  it('an empty transcript is an empty text, no cues and no segments', () => {
    const empty: AudioResult = { ...RESULT, durationSeconds: 0, segments: [] };
    expect(renderAudioResult(empty, 'json', ['segment']).body).toEqual({ text: '', usage: { type: 'duration', seconds: 0 } });
    expect(renderAudioResult(empty, 'vtt', ['segment']).body).toBe('WEBVTT\n\n');
    expect((renderAudioResult(empty, 'verbose_json', ['segment', 'word']).body as Record<string, unknown>)['segments']).toEqual([]);
  });
});

describe('compressionRatio', () => {
  it('is the UTF-8 length over the zlib-compressed length, and grows with repetition', () => {
    const text = 'ሰላም ለአለም';
    expect(compressionRatio(text)).toBeCloseTo(Buffer.byteLength(text) / deflateSync(Buffer.from(text)).length, 10);
    expect(compressionRatio('ሰላም '.repeat(40))).toBeGreaterThan(2.4);
    expect(compressionRatio('')).toBe(0);
  });
});
