// StreamSession's handling of text messages without a socket: a text message that is not valid
// UTF-8 fails the session with 1007 (invalid_frame_payload) and an `error` message. (uWS v20
// drops such a frame itself before the session sees it; this guards any transport that
// delivers it.)
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../platform/config/config.js';
import type { ServerMessage } from './ws-messages.js';
import type { SessionSink } from './ws-sender.js';
import { type SessionOutcome, StreamSession } from './ws-session.js';

function session(): { session: StreamSession; sent: ServerMessage[]; closes: number[]; outcomes: SessionOutcome[] } {
  const config = loadConfig({});
  const sent: ServerMessage[] = [];
  const closes: number[] = [];
  const outcomes: SessionOutcome[] = [];
  const sink: SessionSink = { send: (m) => sent.push(m) > 0, close: (code) => closes.push(code), open: true, droppedMessages: 0 };
  const unused = (): never => {
    throw new Error('no recognition expected');
  };
  const settings = {
    language: 'am',
    model: 'm',
    requestedModel: 'm',
    format: 'pcm_s16le',
    channels: 1,
    channelNames: [],
    serverVad: false,
    vadType: 'energy',
    partialResults: false,
    captions: null,
    record: false,
  } as const;
  const created = new StreamSession('ws_1', 'job_1', settings, sink, {
    recognizer: { recognizePiece: unused, transcribePiece: unused, detectLanguage: unused },
    silero: null,
    limits: config.limits,
    streaming: config.streaming,
    logger: pino({ level: 'silent' }),
    onComplete: (outcome) => outcomes.push(outcome),
  });
  return { session: created, sent, closes, outcomes };
}

describe('text messages', () => {
  it('a command in UTF-8 is answered', () => {
    const { session: s, sent, closes } = session();
    s.onMessage(new TextEncoder().encode('PING').buffer as ArrayBuffer, false);
    expect(sent.map((m) => m.type)).toEqual(['pong']);
    expect(closes).toEqual([]);
  });

  it('a text message that is not UTF-8 fails the session with 1007', () => {
    const { session: s, sent, closes, outcomes } = session();
    s.onMessage(new Uint8Array([0x50, 0x49, 0xff, 0xfe]).buffer, false);
    expect(closes).toEqual([1007]);
    const error = sent.find((m) => m.type === 'error');
    expect(error).toMatchObject({ error: { code: 'invalid_frame_payload' }, close_code: 1007 });
    expect(outcomes[0]).toMatchObject({ status: 'failed', endReason: 'invalid_frame_payload' });
  });
});
