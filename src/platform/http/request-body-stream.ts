import { Readable } from 'node:stream';
import { sizeLimitExceeded, type SizeLimit } from '../errors/size-limit.js';
import type { Uws } from './uws.js';

const BODY_HIGH_WATER_MARK = 256 * 1024;

/**
 * The request body as a Readable fed by uWS `onData`. Each chunk is copied out of uWS's
 * ArrayBuffer (which uWS reuses after the callback returns); the copy belongs to the stream.
 * When the reader falls behind, the socket is paused and resumed on the next `_read`; once the
 * last chunk is in, it stays readable, so that uWS sees the client leave.
 */
export class RequestBodyStream extends Readable {
  private received = 0;
  private socketPaused = false;
  private discarded = false;
  private drainBound = 0;
  private onDrained: ((closeConnection: boolean) => void) | null = null;
  complete = false;

  constructor(
    private readonly res: Uws.HttpResponse,
    private readonly maxBytes: number,
    private readonly sizeLimit: SizeLimit,
    private readonly responseEnded: () => boolean,
  ) {
    super({ highWaterMark: BODY_HIGH_WATER_MARK });
  }

  override _read(): void {
    if (this.socketPaused && !this.responseEnded()) {
      this.socketPaused = false;
      this.res.resume();
    }
  }

  pushChunk(chunk: ArrayBuffer, isLast: boolean): void {
    if (isLast) this.complete = true;
    this.received += chunk.byteLength;
    if (this.onDrained !== null) {
      if (isLast) this.settleDrain(false);
      else if (this.received > this.drainBound) this.settleDrain(true);
      return;
    }
    if (this.discarded || this.destroyed) return;
    if (this.received > this.maxBytes) {
      this.destroy(sizeLimitExceeded(this.sizeLimit.subject, this.sizeLimit.bytes, this.sizeLimit.param));
      return;
    }
    // Never paused on the last chunk: nothing more would resume it (no `_read` after the end),
    // and a paused socket is not read, so a client that leaves would go unseen (no onAborted).
    if (chunk.byteLength > 0 && !this.push(Buffer.copyBytesFrom(new Uint8Array(chunk))) && !isLast) {
      if (!this.socketPaused && !this.responseEnded()) {
        this.socketPaused = true;
        this.res.pause();
      }
    }
    if (isLast) this.push(null);
  }

  /**
   * After the response: drop whatever else arrives. A socket paused for backpressure is
   * resumed, or a kept-alive connection would never read its next request.
   */
  discard(): void {
    this.discarded = true;
    if (!this.destroyed) this.destroy();
    if (this.socketPaused && !this.responseEnded()) {
      this.socketPaused = false;
      this.res.resume();
    }
  }

  /**
   * Drops the rest of the body; calls `done(false)` once it is complete, or `done(true)` as
   * soon as more than `bound` bytes have arrived in all. Chunks are counted, never kept.
   */
  drain(bound: number, done: (closeConnection: boolean) => void): void {
    this.discard();
    this.drainBound = bound;
    this.onDrained = done;
    if (this.received > bound) this.settleDrain(true);
  }

  private settleDrain(closeConnection: boolean): void {
    const done = this.onDrained;
    this.onDrained = null;
    this.drainBound = Number.POSITIVE_INFINITY;
    done?.(closeConnection);
  }
}
