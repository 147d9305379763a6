// What a session sends, across the connections that carry it (resumable sessions,
// docs/streaming.md "Resuming a session"). The session writes to one SessionOutbox for its whole
// life; the outbox forwards to the socket attached now (a WsSender) or, while the session is
// parked, holds what the client must not miss.
//
// - turn_detected, transcription and caption messages get `seq` (1, 2, ...) and are kept in a
//   history bounded by `historyBytes` of JSON (oldest dropped first): on resume the client says
//   the last seq it received and gets every held message after it, so a message lost in flight
//   when the connection dropped comes again and none comes twice.
// - While parked, droppable messages (partial, chunk_received, speech_started, lag) are dropped
//   (counted in dropped_messages) and other messages (an `error` about a failed recognition)
//   are held, at most MAX_HELD, and sent after the replay.
import type { ServerMessage } from './ws-messages.js';
import { DROPPABLE_TYPES, SEQUENCED_TYPES } from './ws-messages.js';
import type { SessionSink } from './ws-sender.js';

const MAX_HELD = 32;

interface Held {
  readonly seq: number;
  readonly message: ServerMessage;
  readonly bytes: number;
}

export interface Replay {
  /** seq of the last sequenced message made so far (0: none). */
  readonly lastSeq: number;
  readonly replayed: number;
  readonly missed: number;
}

export class SessionOutbox implements SessionSink {
  #target: SessionSink | null;
  #seq = 0;
  /** seq of the last sequenced message handed to an attached socket. */
  #sentSeq = 0;
  readonly #history: Held[] = [];
  #historyBytes = 0;
  /** Non-sequenced messages made while parked. */
  readonly #held: ServerMessage[] = [];
  /** Dropped messages of sockets no longer attached, and of parked time. */
  #dropped = 0;

  constructor(
    target: SessionSink,
    private readonly historyBytes: number,
  ) {
    this.#target = target;
  }

  get attached(): boolean {
    return this.#target !== null;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  send(message: ServerMessage): boolean {
    let out = message;
    if (SEQUENCED_TYPES.has(message.type)) {
      out = { ...message, seq: ++this.#seq } as ServerMessage;
      this.#remember(this.#seq, out);
    }
    const target = this.#target;
    if (target === null) {
      if (out !== message) return true;
      if (DROPPABLE_TYPES.has(message.type) || this.#held.length >= MAX_HELD) {
        this.#dropped++;
        return false;
      }
      this.#held.push(out);
      return true;
    }
    const sent = target.send(out);
    if (out !== message) this.#sentSeq = this.#seq;
    return sent;
  }

  close(code: number, reason: string): void {
    this.#target?.close(code, reason);
  }

  get open(): boolean {
    return this.#target?.open === true;
  }

  get droppedMessages(): number {
    return this.#dropped + (this.#target?.droppedMessages ?? 0);
  }

  /** The socket is gone: hold messages until `attach`. */
  detach(): void {
    if (this.#target === null) return;
    this.#dropped += this.#target.droppedMessages;
    this.#target = null;
  }

  /**
   * A socket carries the session again. `lastSeq`: the last seq the client received (null: the
   * last one sent before the drop). Sends `first(replay)` (the `resumed` message), the held
   * messages after lastSeq, then what was held while parked.
   */
  attach(target: SessionSink, lastSeq: number | null, first: (replay: Replay) => ServerMessage): Replay {
    this.detach();
    const after = Math.min(lastSeq ?? this.#sentSeq, this.#seq);
    const replay = this.#history.filter((held) => held.seq > after);
    const oldestHeld = this.#history.length > 0 ? this.#history[0]!.seq : this.#seq + 1;
    const summary: Replay = { lastSeq: this.#seq, replayed: replay.length, missed: Math.max(0, oldestHeld - 1 - after) };
    this.#target = target;
    target.send(first(summary));
    for (const held of replay) target.send(held.message);
    for (const message of this.#held.splice(0)) target.send(message);
    this.#sentSeq = this.#seq;
    return summary;
  }

  #remember(seq: number, message: ServerMessage): void {
    if (this.historyBytes <= 0) return;
    const bytes = JSON.stringify(message).length;
    this.#history.push({ seq, message, bytes });
    this.#historyBytes += bytes;
    while (this.#historyBytes > this.historyBytes && this.#history.length > 0) this.#historyBytes -= this.#history.shift()!.bytes;
  }
}
