// Polyphase FIR resampler (Kaiser-windowed sinc) on its own; the front end embeds it for
// pcm_s16le_48k, WAV at other rates and (optionally) WebM decoded at 48 kHz.
import { nativeAddon, type ResamplerNativeInfo, type ResamplerQualityOptions } from '../../runtime/native-addon.js';
import { NativeHandle } from '../../runtime/native-handle.js';

export type ResamplerQuality = ResamplerQualityOptions;
export type ResamplerInfo = ResamplerNativeInfo;

export class Resampler extends NativeHandle {
  readonly inRate: number;
  readonly outRate: number;
  readonly info: ResamplerInfo;

  /** Throws RangeError for rates outside 4..384 kHz or ratios needing more than 1024 phases. */
  constructor(inRate: number, outRate: number, quality?: ResamplerQuality) {
    const addon = nativeAddon();
    const handle = addon.resamplerCreate(inRate, outRate, quality);
    super(handle, addon.resamplerClose);
    this.inRate = inRate;
    this.outRate = outRate;
    this.info = addon.resamplerInfo(handle);
  }

  /** Room the output array needs for `inputLength` input samples. */
  maxOutput(inputLength: number): number {
    return nativeAddon().resamplerMaxOutput(this.handle, inputLength);
  }

  /** Resamples input into output (length >= maxOutput(input.length)); returns the count written. */
  process(input: Float32Array, output: Float32Array): number {
    return nativeAddon().resamplerProcess(this.handle, input, output);
  }

  /** Emits the samples still owed at end of stream (output length >= info.flushMaxOutput), then resets. */
  flush(output: Float32Array): number {
    return nativeAddon().resamplerFlush(this.handle, output);
  }

  reset(): void {
    nativeAddon().resamplerReset(this.handle);
  }
}
