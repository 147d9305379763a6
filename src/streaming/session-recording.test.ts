import { describe, expect, it } from 'vitest';
import { parseRecording, recordableQuery, SessionRecording } from './session-recording.js';

const header = { session_id: 'ws_1', job_id: 'tr_1', started_at: '2026-11-24T00:00:00.000Z', query: { record: 'true' } };
const bytes = (...values: number[]): ArrayBuffer => new Uint8Array(values).buffer;

describe('SessionRecording', () => {
  it('keeps commands and audio in order with their times, and parses back', () => {
    const recording = new SessionRecording(header, 100);
    recording.add(new TextEncoder().encode('PING').buffer as ArrayBuffer, false, 1.234);
    recording.add(bytes(1, 2, 3), true, 20);
    const parsed = parseRecording(recording.finish(30).toString('utf8'));
    expect(parsed.header).toEqual({ type: 'recording', version: 1, ...header });
    expect(parsed.messages).toEqual([
      { t: 1.2, text: 'PING' },
      { t: 20, audio: Buffer.from([1, 2, 3]).toString('base64') },
    ]);
    expect(parsed.end).toEqual({ type: 'end', t: 30, messages: 2, bytes: 7, truncated: false });
  });

  it('stops at maxBytes of payload and says it was truncated', () => {
    const recording = new SessionRecording(header, 5);
    recording.add(bytes(1, 2, 3), true, 1);
    recording.add(bytes(4, 5, 6), true, 2);
    recording.add(bytes(7), true, 3);
    const parsed = parseRecording(recording.finish(4).toString('utf8'));
    expect(parsed.messages).toHaveLength(1);
    expect(parsed.end).toMatchObject({ messages: 1, bytes: 3, truncated: true });
  });

  it('drops the token from the query and rejects other files', () => {
    expect(recordableQuery(new URLSearchParams('token=abc&format=wav&record=true'))).toEqual({ format: 'wav', record: 'true' });
    expect(() => parseRecording('{"type":"transcript"}\n')).toThrow('not a version 1 session recording');
    expect(() => parseRecording(`${JSON.stringify({ type: 'recording', version: 1, ...header })}\n{"t":1}\n`)).toThrow('malformed');
  });
});
