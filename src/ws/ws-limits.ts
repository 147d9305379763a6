// Per-key connection counting and per-connection message/byte rate windows (spec: Limits).
import type { ErrorCode } from '../errors/error-registry.js';

/**
 * Open sessions per key in this process. A slot is taken on the upgrade (after
 * authentication) and given back when the socket closes or the upgrade is aborted.
 * With several gateways each counts its own connections.
 */
export class ConnectionCounter {
  private readonly counts = new Map<string, number>();

  tryAcquire(keyId: string, limit: number): boolean {
    const count = this.counts.get(keyId) ?? 0;
    if (count >= limit) return false;
    this.counts.set(keyId, count + 1);
    return true;
  }

  release(keyId: string): void {
    const count = (this.counts.get(keyId) ?? 0) - 1;
    if (count <= 0) this.counts.delete(keyId);
    else this.counts.set(keyId, count);
  }

  count(keyId: string): number {
    return this.counts.get(keyId) ?? 0;
  }

  get total(): number {
    let total = 0;
    for (const n of this.counts.values()) total += n;
    return total;
  }
}

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
