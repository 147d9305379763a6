// Flow reports of one session: coalesced `chunk_received` acks (at most one per 100 ms) and
// `lag` warnings (at most one a second while the server is behind by `lagWarningMs`).
import type { ChunkReceivedMessage, LagMessage } from './ws-messages.js';

const ACK_INTERVAL_MS = 100;
const LAG_MESSAGE_INTERVAL_MS = 1000;
const toMs = (samples: number): number => Math.round(samples / 16);

/** Where the session stands, in samples and pieces, when a report is made. */
export interface FlowSnapshot {
  readonly write: number;
  readonly committed: number;
  readonly pendingSamples: number;
}

export class SessionFlow {
  #lastAckAt = -Infinity;
  #messages = 0;
  #bytes = 0;
  #totalBytes = 0;
  #lastLagAt = -Infinity;

  constructor(private readonly lagWarningMs: number) {}

  /** An audio message of `bytes` arrived. */
  received(bytes: number): void {
    this.#totalBytes += bytes;
    this.#messages++;
    this.#bytes += bytes;
  }

  /** Audio bytes received in the session (chunk_received.total_bytes): the stream's byte offset. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  get unacknowledged(): boolean {
    return this.#messages > 0;
  }

  /** The ack to send now, or null while the last one is under 100 ms old (unless `force`). */
  ack(now: number, at: FlowSnapshot, force = false): ChunkReceivedMessage | null {
    if (!force && now - this.#lastAckAt < ACK_INTERVAL_MS) return null;
    this.#lastAckAt = now;
    const message: ChunkReceivedMessage = {
      type: 'chunk_received',
      messages: this.#messages,
      bytes: this.#bytes,
      total_bytes: this.#totalBytes,
      stream_ms: toMs(at.write),
      buffered_ms: toMs(Math.max(0, at.write - at.committed)),
      pending_ms: toMs(at.pendingSamples),
    };
    this.#messages = 0;
    this.#bytes = 0;
    return message;
  }

  /** The lag warning to send now, or null (not behind enough, or one was sent within a second). */
  lag(now: number, behind: { oldestMs: number; vadBehindMs: number; pendingSamples: number; pendingPieces: number }): LagMessage | null {
    const worst = Math.max(behind.oldestMs, behind.vadBehindMs);
    if (worst < this.lagWarningMs || now - this.#lastLagAt < LAG_MESSAGE_INTERVAL_MS) return null;
    this.#lastLagAt = now;
    return {
      type: 'lag',
      pending_ms: toMs(behind.pendingSamples),
      pending_pieces: behind.pendingPieces,
      oldest_pending_ms: behind.oldestMs,
      vad_behind_ms: behind.vadBehindMs,
    };
  }
}
