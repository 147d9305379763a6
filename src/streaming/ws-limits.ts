// Per-connection message/byte rate windows (spec: Limits); open sessions per key are src/platform/limits/connection-slots.ts.
import type { ErrorCode } from '../platform/errors/error-registry.js';

/**
 * Fixed one-second windows per connection: at most `messagesPerSecond` messages (text and
 * binary) and `bytesPerSecond` bytes of audio in any window that starts at the first message
 * after the previous window ended.
 */
export class RateWindow {
  private windowStart = -Infinity;
  private messages = 0;
  private bytes = 0;

  constructor(
    private readonly messagesPerSecond: number,
    private readonly bytesPerSecond: number,
  ) {}

  /** Counts one message; returns the breached limit's code, or null. */
  admit(audioBytes: number, now: number): ErrorCode | null {
    if (now - this.windowStart >= 1000) {
      this.windowStart = now;
      this.messages = 0;
      this.bytes = 0;
    }
    this.messages++;
    this.bytes += audioBytes;
    if (this.messages > this.messagesPerSecond) return 'message_rate_exceeded';
    if (this.bytes > this.bytesPerSecond) return 'audio_rate_exceeded';
    return null;
  }
}
