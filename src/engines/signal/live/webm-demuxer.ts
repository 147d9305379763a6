// The streaming WebM/Matroska demuxer on its own: bytes in (split anywhere), Opus packets
// out into caller-allocated arrays. StreamFrontEnd embeds it for webm_opus.
import { nativeAddon, type ByteSource, type WebmNativeTrack } from '../../runtime/native-addon.js';
import { NativeHandle } from '../../runtime/native-handle.js';

export type WebmTrack = WebmNativeTrack;

export class WebmDemuxer extends NativeHandle {
  constructor(maxBlockBytes?: number) {
    const addon = nativeAddon();
    super(addon.webmDemuxerCreate(maxBlockBytes), addon.webmDemuxerClose);
  }

  /**
   * Parses a chunk; packets are written back to back into frameBytes with their lengths in
   * frameLengths. Returns the number of packets, or a negative NativeStatus (structural errors
   * are sticky until reset(); -2 means the output arrays were too small).
   */
  pushInto(chunk: ByteSource, frameBytes: Uint8Array, frameLengths: Int32Array): number {
    return nativeAddon().webmDemuxerPush(this.handle, chunk, frameBytes, frameLengths);
  }

  /** Convenience for tests: the packets of one chunk as separate arrays. */
  push(chunk: ByteSource): { status: number; frames: Uint8Array[] } {
    // Frames can come from the chunk and from a block carried over from earlier chunks.
    const size = chunk.byteLength + 65536;
    const bytes = new Uint8Array(size);
    const lengths = new Int32Array(Math.min(size, 65536));
    const n = this.pushInto(chunk, bytes, lengths);
    if (n < 0) return { status: -n, frames: [] };
    const frames: Uint8Array[] = [];
    let at = 0;
    for (let i = 0; i < n; i++) {
      const len = lengths[i]!;
      frames.push(bytes.slice(at, at + len));
      at += len;
    }
    return { status: 0, frames };
  }

  get track(): WebmTrack | null {
    return nativeAddon().webmDemuxerTrack(this.handle);
  }

  reset(): void {
    nativeAddon().webmDemuxerReset(this.handle);
  }
}
