// The native log-mel kernel (native/src/dsp/log-mel.h) behind LogMelExtractor: the extractor builds
// the window and the filterbank once and hands them over; the kernel computes raw log-mel frames.
// Lifetime: one per extractor; close() frees it, an unclosed one is freed when collected
// (NativeHandle).
import { type NativeHandleRef, nativeAddon } from '../../runtime/native-addon.js';
import { NativeHandle } from '../../runtime/native-handle.js';

export interface NativeLogMelParams {
  readonly nFft: number;
  readonly hopLength: number;
  readonly power: 1 | 2;
  readonly logFloor: number;
  readonly window: Float64Array;
  /** [nMels][nFft/2 + 1] row-major. */
  readonly bank: Float64Array;
  readonly bankFrom: Int32Array;
  readonly bankTo: Int32Array;
}

export class NativeLogMel extends NativeHandle {
  private constructor(handle: NativeHandleRef) {
    super(handle, (h) => nativeAddon().logMelClose(h));
  }

  /** The kernel, or null for sizes it does not take (an n_fft prime factor above 13). */
  static tryCreate(p: NativeLogMelParams): NativeLogMel | null {
    try {
      return new NativeLogMel(nativeAddon().logMelCreate(p.nFft, p.hopLength, p.power, p.logFloor, p.window, p.bank, p.bankFrom, p.bankTo));
    } catch (error) {
      if (error instanceof RangeError) return null;
      throw error;
    }
  }

  /** Writes the frames of `pcm` to `out` ([frames, n_mels], raw log-mel); returns the frame count. */
  compute(pcm: Float32Array, center: boolean, out: Float32Array): number {
    return nativeAddon().logMelCompute(this.handle, pcm, center, out);
  }
}
