// libopus decoder (compiled into the addon) producing mono float; stereo packets are
// down-mixed by libopus.
import { nativeAddon, type ByteSource } from '../../runtime/native-addon.js';
import { NativeHandle } from '../../runtime/native-handle.js';

export class OpusFrameDecoder extends NativeHandle {
  readonly sampleRate: number;
  /** Length an output array needs (120 ms at the decoder's rate). */
  readonly maxFrameSamples: number;

  constructor(sampleRate: 8000 | 12000 | 16000 | 24000 | 48000) {
    const addon = nativeAddon();
    const handle = addon.opusDecoderCreate(sampleRate);
    super(handle, addon.opusDecoderClose);
    this.sampleRate = sampleRate;
    this.maxFrameSamples = addon.opusDecoderMaxFrameSamples(handle);
  }

  /** Decodes one packet into out; returns the sample count, or a negative NativeStatus. */
  decodeInto(packet: ByteSource, out: Float32Array): number {
    return nativeAddon().opusDecoderDecode(this.handle, packet, out);
  }

  /** Samples the packet decodes to at this rate, or -1 when its header is malformed. */
  packetSamples(packet: ByteSource): number {
    return nativeAddon().opusDecoderPacketSamples(this.handle, packet);
  }

  reset(): void {
    nativeAddon().opusDecoderReset(this.handle);
  }
}
