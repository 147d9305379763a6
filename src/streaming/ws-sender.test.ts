import { describe, expect, it } from 'vitest';
import type { Uws } from '../platform/http/uws.js';
import { WsSender } from './ws-sender.js';

/** A socket whose unsent byte count the test controls, as a kernel buffer that the reader does not empty. */
function fakeSocket() {
  const state = { buffered: 0, sent: [] as string[], ended: null as null | { code: number; reason: string }, accept: true };
  const ws = {
    getBufferedAmount: () => state.buffered,
    send: (text: string) => {
      if (!state.accept) return 2;
      state.sent.push(text);
      state.buffered += text.length;
      return 1;
    },
    cork: (fn: () => void) => fn(),
    end: (code: number, reason: string) => {
      state.ended = { code, reason };
    },
  };
  return { ws: ws as unknown as Uws.WebSocket<unknown>, state };
}

const pong = { type: 'pong' as const, server_time: '2026-01-01T00:00:00.000Z' };
const ack = { type: 'chunk_received' as const, messages: 1, bytes: 1, total_bytes: 1, stream_ms: 0, buffered_ms: 0, pending_ms: 0 };

describe('WsSender', () => {
  it('sends at once while the socket keeps up', () => {
    const { ws, state } = fakeSocket();
    const sender = new WsSender(ws, 1000, 10_000, () => undefined);
    expect(sender.send(pong)).toBe(true);
    expect(state.sent).toHaveLength(1);
  });

  it('under backpressure drops droppable messages, queues the others and sends them in order on drain', () => {
    const { ws, state } = fakeSocket();
    const sender = new WsSender(ws, 100, 10_000, () => undefined);
    state.buffered = 500;
    expect(sender.send(ack)).toBe(false);
    expect(sender.send(pong)).toBe(true);
    expect(sender.send({ ...pong, server_time: 'second' })).toBe(true);
    expect(state.sent).toHaveLength(0);
    expect(sender.droppedMessages).toBe(1);
    state.buffered = 0;
    sender.drain();
    expect(state.sent.map((t) => JSON.parse(t).server_time)).toEqual([pong.server_time, 'second']);
  });

  it('a close waits for queued messages', () => {
    const { ws, state } = fakeSocket();
    const sender = new WsSender(ws, 100, 10_000, () => undefined);
    state.buffered = 500;
    sender.send(pong);
    sender.close(1000, 'end');
    expect(state.ended).toBeNull();
    expect(sender.open).toBe(false);
    state.buffered = 0;
    sender.drain();
    expect(state.sent).toHaveLength(1);
    expect(state.ended).toEqual({ code: 1000, reason: 'end' });
  });

  it('a reader that leaves more than maxUnsentBytes unread is reported once', () => {
    const { ws, state } = fakeSocket();
    let reported = 0;
    const sender = new WsSender(ws, 100, 1_000, () => {
      reported++;
      sender.abort(1008, 'slow_consumer');
    });
    state.buffered = 900;
    for (let i = 0; i < 10; i++) sender.send(pong);
    expect(reported).toBe(1);
    expect(state.ended).toEqual({ code: 1008, reason: 'slow_consumer' });
    expect(sender.send(pong)).toBe(false);
  });

  it('a report whose handling sends and closes through the sender does not re-enter it', () => {
    const { ws, state } = fakeSocket();
    let reported = 0;
    const sender = new WsSender(ws, 100, 1_000, () => {
      reported++;
      // The session's `error` message and close, then the endpoint's abort (ws-endpoint.ts).
      expect(sender.send({ ...pong, server_time: 'error' })).toBe(false);
      sender.close(1008, 'slow_consumer: unread');
      sender.abort(1008, 'slow_consumer');
    });
    state.buffered = 990;
    expect(sender.send(pong)).toBe(true);
    expect(reported).toBe(1);
    expect(state.ended).toEqual({ code: 1008, reason: 'slow_consumer' });
    expect(sender.open).toBe(false);
    sender.close(1000, 'end');
    sender.abort(1001, 'server shutting down');
    expect(state.ended).toEqual({ code: 1008, reason: 'slow_consumer' });
  });

  it('messages uWS refuses (over maxBackpressure) are kept for drain', () => {
    const { ws, state } = fakeSocket();
    const sender = new WsSender(ws, 100, 10_000, () => undefined);
    state.accept = false;
    sender.send(pong);
    expect(state.sent).toHaveLength(0);
    state.accept = true;
    sender.drain();
    expect(state.sent).toHaveLength(1);
  });
});
