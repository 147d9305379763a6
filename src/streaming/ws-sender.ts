// Outgoing messages of one session over uWebSockets.js, with backpressure.
//
// - Every send is corked (most happen after an await: inference, VAD, job store).
// - While the socket's buffered amount is above `highWaterBytes`, droppable messages
//   (chunk_received, partial, speech_started, lag) are skipped and counted; the others wait
//   in a queue that `drain` (uWS drain event) empties in order.
// - When unread bytes (socket buffer + queue) pass `maxUnsentBytes` the reader is too slow:
//   the session is closed with `slow_consumer` (1008). Memory per session stays bounded.
//   That is reported once, and the sender takes nothing more from then on: the report's own
//   handling (the session's `error` message, its close) must not re-enter it.
import type { Uws } from '../platform/http/uws.js';
import { DROPPABLE_TYPES, type ServerMessage } from './ws-messages.js';
import type { MainThreadParts } from './main-thread-parts.js';

export interface SessionSink {
  /** Queues or sends a message; false when it was dropped (droppable under backpressure, or closed). */
  send(message: ServerMessage): boolean;
  /** Sends a close frame with `code` after what is queued; the socket's close event follows. */
  close(code: number, reason: string): void;
  readonly open: boolean;
  readonly droppedMessages: number;
}

export class WsSender<T> implements SessionSink {
  private readonly queue: string[] = [];
  private queuedBytes = 0;
  private pendingClose: { code: number; reason: string } | null = null;
  #open = true;
  /** Unread bytes passed maxUnsentBytes: the socket takes no more messages, only the close. */
  #overLimit = false;
  #dropped = 0;

  constructor(
    private readonly ws: Uws.WebSocket<T>,
    private readonly highWaterBytes: number,
    private readonly maxUnsentBytes: number,
    private readonly onSlowConsumer: () => void,
    /** The endpoint's event-loop time by part (`json`: serialising and writing); null: not timed. */
    private readonly parts: MainThreadParts | null = null,
  ) {}

  get open(): boolean {
    return this.#open && this.pendingClose === null && !this.#overLimit;
  }

  get droppedMessages(): number {
    return this.#dropped;
  }

  send(message: ServerMessage): boolean {
    if (!this.open) return false;
    this.parts?.begin('json');
    try {
      return this.#send(message);
    } finally {
      this.parts?.end();
    }
  }

  #send(message: ServerMessage): boolean {
    const text = JSON.stringify(message);
    const backlogged = this.queue.length > 0 || this.ws.getBufferedAmount() > this.highWaterBytes;
    if (backlogged) {
      if (DROPPABLE_TYPES.has(message.type)) {
        this.#dropped++;
        return false;
      }
      this.enqueue(text);
      return true;
    }
    let status = 1;
    this.ws.cork(() => {
      status = this.ws.send(text, false);
    });
    // 2: over uWS maxBackpressure, not sent: keep it for drain.
    if (status === 2) this.enqueue(text);
    return true;
  }

  private enqueue(text: string): void {
    this.queue.push(text);
    this.queuedBytes += text.length;
    if (this.#overLimit || this.queuedBytes + this.ws.getBufferedAmount() <= this.maxUnsentBytes) return;
    // Marked before the report, whose handling sends and closes through this sender.
    this.#overLimit = true;
    this.onSlowConsumer();
  }

  /** uWS drain: sends queued messages while the socket takes them, then a pending close. */
  drain(): void {
    if (!this.#open) return;
    this.parts?.begin('json');
    try {
      this.#drain();
    } finally {
      this.parts?.end();
    }
  }

  #drain(): void {
    this.ws.cork(() => {
      while (this.queue.length > 0 && this.ws.getBufferedAmount() <= this.highWaterBytes) {
        const text = this.queue[0]!;
        if (this.ws.send(text, false) === 2) break;
        this.queue.shift();
        this.queuedBytes -= text.length;
      }
    });
    if (this.queue.length === 0 && this.pendingClose !== null) this.endNow(this.pendingClose.code, this.pendingClose.reason);
  }

  close(code: number, reason: string): void {
    if (!this.#open || this.pendingClose !== null) return;
    if (this.queue.length > 0) {
      this.pendingClose = { code, reason };
      return;
    }
    this.endNow(code, reason);
  }

  /** Closes at once, dropping anything queued (slow consumer, shutdown). */
  abort(code: number, reason: string): void {
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.endNow(code, reason);
  }

  private endNow(code: number, reason: string): void {
    if (!this.#open) return;
    this.#open = false;
    this.ws.cork(() => this.ws.end(code, reason));
  }

  /** The socket closed (uWS close event): nothing may touch it any more. */
  detach(): void {
    this.#open = false;
    this.queue.length = 0;
    this.queuedBytes = 0;
  }
}
