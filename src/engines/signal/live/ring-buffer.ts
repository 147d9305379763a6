// The per-stream ring buffer (16 kHz mono, stored as int16) on its own. StreamFrontEnd
// embeds one; this class exists for tests and benchmarks of the part alone.
import { nativeAddon, type SampleArray } from '../../runtime/native-addon.js';
import { NativeHandle } from '../../runtime/native-handle.js';

export interface RingBufferStats {
  size: number;
  readPosition: number;
  writePosition: number;
  capacity: number;
  maxCapacity: number;
  growCount: number;
}

export class RingBuffer extends NativeHandle {
  readonly #stats = new Float64Array(6);

  /**
   * @param maxSamples hard capacity; writes beyond it store what fits and report the rest.
   * @param initialSamples storage allocated now; it doubles on demand up to maxSamples.
   */
  constructor(maxSamples: number, initialSamples = Math.min(maxSamples, 128_000)) {
    const addon = nativeAddon();
    super(addon.ringBufferCreate(initialSamples, maxSamples), addon.ringBufferClose);
  }

  /** Appends samples (float in [-1, 1) or int16); returns how many were stored. */
  write(samples: SampleArray): number {
    return nativeAddon().ringBufferWrite(this.handle, samples);
  }

  /** Moves up to out.length samples from the read position into out. */
  read(out: SampleArray): number {
    return nativeAddon().ringBufferRead(this.handle, out);
  }

  /** Copies samples from absolute `position` (clamped to the read position) without consuming. */
  peek(position: number, out: SampleArray): number {
    return nativeAddon().ringBufferPeek(this.handle, position, out);
  }

  discardUntil(position: number): number {
    return nativeAddon().ringBufferDiscardUntil(this.handle, position);
  }

  clear(): void {
    nativeAddon().ringBufferClear(this.handle);
  }

  stats(): RingBufferStats {
    const s = this.#stats;
    nativeAddon().ringBufferStats(this.handle, s);
    return {
      size: s[0]!,
      readPosition: s[1]!,
      writePosition: s[2]!,
      capacity: s[3]!,
      maxCapacity: s[4]!,
      growCount: s[5]!,
    };
  }
}
