import { describe, expect, it } from 'vitest';
import { SessionOutbox } from './session-outbox.js';
import type { ServerMessage } from './ws-messages.js';
import type { SessionSink } from './ws-sender.js';

class FakeSink implements SessionSink {
  readonly sent: ServerMessage[] = [];
  open = true;
  droppedMessages = 0;
  send(message: ServerMessage): boolean {
    this.sent.push(message);
    return true;
  }
  close(): void {
    this.open = false;
  }
}

const turn = (id: number): ServerMessage => ({
  type: 'turn_detected',
  turn_id: id,
  text: `turn ${id}`,
  segments: [],
  start_ms: id * 1000,
  end_ms: id * 1000 + 500,
  language: 'am',
  model: 'm',
  latency_ms: 1,
  processing_ms: 1,
  forced_split: false,
});
const pong: ServerMessage = { type: 'pong', server_time: '2026-01-01T00:00:00.000Z' };
const partial: ServerMessage = { type: 'partial', turn_id: 1, start_ms: 0, end_ms: 1, text: '', stable_text: '', unstable_text: '' };
const pong2: ServerMessage = { type: 'pong', server_time: '2026-01-01T00:00:01.000Z' };
const resumed = (replay: { lastSeq: number; replayed: number; missed: number }): ServerMessage => ({
  type: 'resumed',
  session_id: 's',
  job_id: 'j',
  resume_from_bytes: 0,
  discard_bytes: 0,
  stream_ms: 0,
  last_seq: replay.lastSeq,
  replayed_messages: replay.replayed,
  missed_messages: replay.missed,
  detached_ms: 0,
});

describe('SessionOutbox', () => {
  it('numbers transcript messages and forwards everything while attached', () => {
    const sink = new FakeSink();
    const outbox = new SessionOutbox(sink, 1 << 20);
    outbox.send(turn(1));
    outbox.send(pong);
    outbox.send(turn(2));
    expect(sink.sent.map((m) => [m.type, (m as { seq?: number }).seq])).toEqual([
      ['turn_detected', 1],
      ['pong', undefined],
      ['turn_detected', 2],
    ]);
    expect(outbox.lastSeq).toBe(2);
  });

  it('after a drop, replays what the client did not receive, then what was held while parked; drops partials', () => {
    const first = new FakeSink();
    const outbox = new SessionOutbox(first, 1 << 20);
    outbox.send(turn(1));
    outbox.send(turn(2)); // lost in flight: the client saw seq 1 only
    outbox.detach();
    expect(outbox.open).toBe(false);
    expect(outbox.send(partial)).toBe(false);
    expect(outbox.send(turn(3))).toBe(true);
    outbox.send(pong2);
    const second = new FakeSink();
    const replay = outbox.attach(second, 1, resumed);
    expect(replay).toEqual({ lastSeq: 3, replayed: 2, missed: 0 });
    expect(second.sent.map((m) => [m.type, (m as { seq?: number }).seq])).toEqual([
      ['resumed', undefined],
      ['turn_detected', 2],
      ['turn_detected', 3],
      ['pong', undefined],
    ]);
    expect(outbox.droppedMessages).toBe(1);
    outbox.send(turn(4));
    expect((second.sent.at(-1) as { seq?: number }).seq).toBe(4);
  });

  it('without last_seq, replays what was made after the last message sent before the drop', () => {
    const outbox = new SessionOutbox(new FakeSink(), 1 << 20);
    outbox.send(turn(1));
    outbox.detach();
    outbox.send(turn(2));
    const second = new FakeSink();
    expect(outbox.attach(second, null, resumed)).toEqual({ lastSeq: 2, replayed: 1, missed: 0 });
    expect(second.sent.map((m) => m.type)).toEqual(['resumed', 'turn_detected']);
  });

  it('a bounded history: messages pushed out are reported as missed', () => {
    const size = JSON.stringify({ ...turn(1), seq: 1 }).length;
    const outbox = new SessionOutbox(new FakeSink(), size * 2);
    outbox.detach();
    for (let i = 1; i <= 5; i++) outbox.send(turn(i));
    const second = new FakeSink();
    expect(outbox.attach(second, 0, resumed)).toEqual({ lastSeq: 5, replayed: 2, missed: 3 });
    expect(second.sent.slice(1).map((m) => (m as { seq?: number }).seq)).toEqual([4, 5]);
  });
});
