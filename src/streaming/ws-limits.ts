// Per-connection limits on client messages (spec: Limits): the size of one message, the
// message/byte rate windows, the audio speed (decoded audio against wall time, a token
// bucket), and the size uWS reads a message up to (wsReadCeiling). Open sessions per key are
// src/platform/limits/connection-slots.ts; the audio the whole process holds is held-audio.ts.
import type { Limits } from '../platform/config/config.js';
import { ApiError } from '../platform/errors/api-error.js';
import type { ErrorCode } from '../platform/errors/error-registry.js';

/** The size limit and the rate windows of one connection. */
export class MessageLimits {
  readonly #rate: RateWindow;
  readonly #speed: AudioSpeedLimit;

  constructor(
    private readonly limits: Pick<Limits, 'wsMaxMessageBytes' | 'wsMessagesPerSecond' | 'wsBytesPerSecond' | 'wsMaxAudioSpeed' | 'wsAudioBurstSeconds'>,
    now: number,
  ) {
    this.#rate = new RateWindow(limits.wsMessagesPerSecond, limits.wsBytesPerSecond);
    this.#speed = new AudioSpeedLimit(limits.wsMaxAudioSpeed, limits.wsAudioBurstSeconds, now);
  }

  /** Counts `audioMs` of decoded audio that arrived at `now`; audio_rate_exceeded when it runs too far ahead of real time. */
  admitAudio(audioMs: number, now: number): ApiError | null {
    if (this.#speed.admit(audioMs, now)) return null;
    const { wsMaxAudioSpeed, wsAudioBurstSeconds } = this.limits;
    const message = `Audio arrives faster than ${wsMaxAudioSpeed} times real time (more than ${wsAudioBurstSeconds} s ahead): send it at most that fast.`;
    return new ApiError('audio_rate_exceeded', { message });
  }

  /** A new connection carries the session on (resume): its audio allowance starts full again. */
  newConnection(now: number): void {
    this.#speed.refill(now);
  }

  /** Counts one message of `bytes` (audio when binary); returns the limit it breaches, or null. */
  admit(bytes: number, isBinary: boolean, now: number): ApiError | null {
    if (bytes > this.limits.wsMaxMessageBytes) {
      const message = `A WebSocket message of ${bytes} bytes exceeds the size limit of ${this.limits.wsMaxMessageBytes} bytes per message.`;
      return new ApiError('message_too_large', { message });
    }
    const breach = this.#rate.admit(isBinary ? bytes : 0, now);
    return breach === null ? null : new ApiError(breach);
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

/**
 * A token bucket over stream time: it holds `burstSeconds` of audio (full at the start), and
 * refills at `speed` seconds of audio per wall second. Audio beyond it is refused. 0: no limit.
 */
export class AudioSpeedLimit {
  #tokensMs: number;
  #at: number;

  constructor(
    private readonly speed: number,
    private readonly burstSeconds: number,
    now: number,
  ) {
    this.#tokensMs = burstSeconds * 1000;
    this.#at = now;
  }

  /** Counts `audioMs` arrived at `now`; false when the bucket ran dry. */
  admit(audioMs: number, now: number): boolean {
    if (this.speed <= 0) return true;
    this.#tokensMs = Math.min(this.burstSeconds * 1000, this.#tokensMs + Math.max(0, now - this.#at) * this.speed) - audioMs;
    this.#at = now;
    return this.#tokensMs >= 0;
  }

  refill(now: number): void {
    this.#tokensMs = this.burstSeconds * 1000;
    this.#at = now;
  }
}

/**
 * uWS (v20.30) drops a connection without a close frame (the client sees 1006) when a message
 * is longer than `maxPayloadLength`, and buffers a message whole before delivering it. So the
 * ceiling sits well above WS_MAX_MESSAGE_BYTES: any message up to it is read and refused by the
 * session with an `error` message and close 1009. It is the session's audio buffer limit (a
 * session may hold that much audio anyway, so one connection's memory stays within the same
 * bound), at least twice the message limit, and never more than 256 MiB.
 */
export function wsReadCeiling(limits: { readonly wsMaxMessageBytes: number; readonly wsMaxBufferBytes: number }): number {
  return Math.min(Math.max(limits.wsMaxMessageBytes * 2, limits.wsMaxBufferBytes), WS_READ_CEILING_MAX);
}

const WS_READ_CEILING_MAX = 256 * 1024 * 1024;
