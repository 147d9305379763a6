// The audio all WebSocket sessions of this process hold (docs/streaming.md "Limits"): each
// session reports what its channels hold (ring storage and the pieces copied out of it), and
// the sum is bounded by WS_MAX_PROCESS_BUFFER_BYTES. Past the bound the endpoint closes the
// session holding the most (1009 buffer_limit_exceeded); from NEAR_FRACTION of it new sessions
// are refused (1013). Pure bookkeeping: O(1) per report, a scan only to find the largest.
import { totalmem } from 'node:os';

/** From this fraction of the bound, new sessions are refused. */
export const NEAR_FRACTION = 0.9;
/** Seconds a session refused for held audio is told to wait (pieces drain within seconds). */
export const HELD_AUDIO_RETRY_AFTER_SECONDS = 5;

/** The default bound: an eighth of the memory this process may use (its cgroup limit, else the RAM). */
export function defaultProcessBufferBytes(): number {
  const constrained = typeof process.constrainedMemory === 'function' ? (process.constrainedMemory() ?? 0) : 0;
  // A cgroup without a limit reads as a huge number: take the smaller of the two.
  const memory = constrained > 0 ? Math.min(constrained, totalmem()) : totalmem();
  return Math.floor(memory / 8);
}

export class HeldAudio<Holder> {
  readonly #held = new Map<Holder, number>();
  #total = 0;
  readonly maxBytes: number;

  /** `maxBytes` 0: the default from the memory. */
  constructor(maxBytes: number) {
    this.maxBytes = maxBytes > 0 ? maxBytes : defaultProcessBufferBytes();
  }

  /** What `holder` holds now, in bytes. */
  set(holder: Holder, bytes: number): void {
    this.#total += bytes - (this.#held.get(holder) ?? 0);
    this.#held.set(holder, bytes);
  }

  delete(holder: Holder): void {
    this.#total -= this.#held.get(holder) ?? 0;
    this.#held.delete(holder);
  }

  get totalBytes(): number {
    return this.#total;
  }

  /** Past the bound: a session must go. */
  get over(): boolean {
    return this.#total > this.maxBytes;
  }

  /** Near the bound: no new sessions. */
  get near(): boolean {
    return this.#total >= this.maxBytes * NEAR_FRACTION;
  }

  /** The holder of the most audio among those `eligible` (null when none holds any). */
  largest(eligible: (holder: Holder) => boolean = () => true): Holder | null {
    let largest: Holder | null = null;
    let most = 0;
    for (const [holder, bytes] of this.#held) {
      if (bytes > most && eligible(holder)) {
        most = bytes;
        largest = holder;
      }
    }
    return largest;
  }

  heldBy(holder: Holder): number {
    return this.#held.get(holder) ?? 0;
  }
}
