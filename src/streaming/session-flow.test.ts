import { describe, expect, it } from 'vitest';
import { SessionFlow } from './session-flow.js';

describe('SessionFlow', () => {
  const at = { write: 32_000, committed: 16_000, pendingSamples: 8_000 };

  it('coalesces acks to one per 100 ms unless forced, counting what arrived since the last', () => {
    const flow = new SessionFlow(1_000);
    flow.received(640);
    flow.received(640);
    expect(flow.ack(0, at)).toEqual({
      type: 'chunk_received',
      messages: 2,
      bytes: 1280,
      total_bytes: 1280,
      stream_ms: 2000,
      buffered_ms: 1000,
      pending_ms: 500,
    });
    flow.received(640);
    expect(flow.ack(50, at)).toBeNull();
    expect(flow.unacknowledged).toBe(true);
    expect(flow.ack(60, at, true)).toMatchObject({ messages: 1, bytes: 640, total_bytes: 1920 });
    expect(flow.unacknowledged).toBe(false);
  });

  it('warns of lag past the threshold, at most once a second', () => {
    const flow = new SessionFlow(1_000);
    const behind = { oldestMs: 1_200, vadBehindMs: 0, pendingSamples: 16_000, pendingPieces: 2 };
    expect(flow.lag(0, { ...behind, oldestMs: 900 })).toBeNull();
    expect(flow.lag(0, behind)).toEqual({ type: 'lag', pending_ms: 1000, pending_pieces: 2, oldest_pending_ms: 1200, vad_behind_ms: 0 });
    expect(flow.lag(500, behind)).toBeNull();
    expect(flow.lag(1_000, { ...behind, oldestMs: 0, vadBehindMs: 1_500 })).toMatchObject({ vad_behind_ms: 1500 });
  });
});
