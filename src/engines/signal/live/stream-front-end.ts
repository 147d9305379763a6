// One per WebSocket connection: client audio in any API format -> 16 kHz mono in a bounded
// ring buffer, with energy VAD and endpointing on the way (native/src/dsp/stream-front-end.h).
//
// Buffers and lifetimes:
// - push(message) reads the message in place, synchronously; the caller may reuse or free it
//   as soon as push returns (this is the one copy out of a uWebSockets.js message).
// - Audio is stored as int16 (so the spec's 50 MB limit is 25,000,000 samples, ~26 min);
//   read/peek convert into the caller's Float32Array (scaled to [-1, 1)) or copy into an
//   Int16Array.
// - `state` is a Float64Array owned by this object that the addon rewrites after each call;
//   the getters read it without crossing into native code.
import { audioFormatCode, type AudioFormat } from './audio-format.js';
import { decodeEvents, EVENT_STRIDE, type EndpointEvent } from './endpoint-event.js';
import type { EnergyVadOptions } from './energy-vad.js';
import type { EndpointerOptions } from './endpointer.js';
import { nativeAddon, type ByteSource, type SampleArray } from '../../runtime/native-addon.js';
import { NativeHandle } from '../../runtime/native-handle.js';
import type { NativeStatus } from '../../runtime/native-status.js';
import type { ResamplerQuality } from './resampler.js';

/** The spec's WebSocket buffer limit: 50 MB of 16-bit audio. */
export const DEFAULT_MAX_BUFFER_BYTES = 50_000_000;
export const OUTPUT_SAMPLE_RATE = 16000;

export interface StreamFrontEndOptions {
  format: AudioFormat;
  /** Hard limit on buffered audio in bytes of 16-bit samples (default 50 MB). */
  maxBufferBytes?: number;
  /** Storage allocated at create, in seconds (default 8); it doubles on demand. */
  initialBufferSeconds?: number;
  /**
   * webm_opus: 16000 lets libopus decode straight to 16 kHz (cheaper, default); 48000 decodes
   * at 48 kHz and uses the polyphase resampler.
   */
  webmDecodeRate?: 16000 | 48000;
  /** Energy VAD + endpointing in the front end (default true); turn off for Silero. */
  energyVad?: boolean;
  vad?: Omit<EnergyVadOptions, 'sampleRate'>;
  /** hopSamples is fixed to the VAD frame size. */
  endpointing?: Omit<EndpointerOptions, 'sampleRate' | 'hopSamples'>;
  resamplerQuality?: ResamplerQuality;
}

// Layout of the state array (front-end-binding.cc StateField).
const S = {
  appendedLast: 0,
  droppedLast: 1,
  buffered: 2,
  readPos: 3,
  writePos: 4,
  pendingEvents: 5,
  droppedEvents: 6,
  droppedTotal: 7,
  packetsDecoded: 8,
  packetsRejected: 9,
  noiseFloorDb: 10,
  lastEnergyDb: 11,
  inSpeech: 12,
  capacity: 13,
  rejectedWavTag: 14,
  bytesIn: 15,
} as const;
const STATE_LENGTH = 16;

export class StreamFrontEnd extends NativeHandle {
  readonly #state: Float64Array;
  readonly #events = new Float64Array(EVENT_STRIDE * 64);
  #format: AudioFormat;
  readonly maxBufferSamples: number;

  constructor(options: StreamFrontEndOptions) {
    const addon = nativeAddon();
    const maxBufferSamples = Math.floor((options.maxBufferBytes ?? DEFAULT_MAX_BUFFER_BYTES) / 2);
    const initial = Math.max(1, Math.round((options.initialBufferSeconds ?? 8) * OUTPUT_SAMPLE_RATE));
    const state = new Float64Array(STATE_LENGTH);
    const handle = addon.frontEndCreate(
      {
        format: audioFormatCode(options.format),
        maxBufferSamples,
        initialBufferSamples: Math.min(initial, maxBufferSamples),
        webmDecodeRate: options.webmDecodeRate ?? 16000,
        energyVad: options.energyVad ?? true,
        ...(options.vad ? { vad: options.vad } : {}),
        ...(options.endpointing ? { endpointer: options.endpointing } : {}),
        ...(options.resamplerQuality ? { quality: options.resamplerQuality } : {}),
      },
      state,
    );
    super(handle, addon.frontEndClose);
    this.#state = state;
    this.#format = options.format;
    this.maxBufferSamples = maxBufferSamples;
  }

  get format(): AudioFormat {
    return this.#format;
  }

  /**
   * Decodes one WebSocket message into the buffer. Returns NativeStatus.Ok, BufferFull (the
   * hard limit was hit: close with 1009), or a format error (see describeNativeStatus).
   */
  push(message: ByteSource): NativeStatus {
    return nativeAddon().frontEndPush(this.handle, message);
  }

  /** FORMAT command: emits the old format's resampler tail and resets parsing for the new one. */
  setFormat(format: AudioFormat): NativeStatus {
    const status = nativeAddon().frontEndSetFormat(this.handle, audioFormatCode(format));
    this.#format = format;
    return status;
  }

  /** END: emits the resampler tail and closes an open speech turn. */
  flush(): NativeStatus {
    return nativeAddon().frontEndFlush(this.handle);
  }

  /** CLEAR: drops the buffered audio and any turn in progress; positions continue. */
  clear(): void {
    nativeAddon().frontEndClear(this.handle);
  }

  /** Consumes up to out.length samples from the read position. */
  read(out: SampleArray): number {
    return nativeAddon().frontEndRead(this.handle, out);
  }

  /** Copies samples from absolute `position` (clamped to readPosition) without consuming. */
  peek(position: number, out: SampleArray): number {
    return nativeAddon().frontEndPeek(this.handle, position, out);
  }

  /**
   * Copies the samples the last push/flush appended (up to out.length) into out, e.g. to feed
   * Silero VAD; returns the count. Reads from the ring: nothing is consumed.
   */
  peekAppended(out: SampleArray): number {
    const n = Math.min(out.length, this.appendedLast);
    if (n === 0) return 0;
    return nativeAddon().frontEndPeek(this.handle, this.writePosition - this.appendedLast, n === out.length ? out : out.subarray(0, n));
  }

  /** Consumes everything before absolute `position`. */
  discardUntil(position: number): number {
    return nativeAddon().frontEndDiscardUntil(this.handle, position);
  }

  /** Speech start/end events since the last call (only crosses into native code when there are some). */
  takeEvents(into: EndpointEvent[] = []): EndpointEvent[] {
    while (this.#state[S.pendingEvents]! > 0) {
      const n = nativeAddon().frontEndTakeEvents(this.handle, this.#events);
      if (n === 0) break;
      decodeEvents(this.#events, n, into);
    }
    return into;
  }

  /** Samples the last push/flush added to the buffer. */
  get appendedLast(): number {
    return this.#state[S.appendedLast]!;
  }
  /** Samples the last push/flush could not store (buffer full). */
  get droppedLast(): number {
    return this.#state[S.droppedLast]!;
  }
  get droppedTotal(): number {
    return this.#state[S.droppedTotal]!;
  }
  /** Samples buffered now. */
  get buffered(): number {
    return this.#state[S.buffered]!;
  }
  /** Bytes the buffered audio counts against the limit (16-bit samples). */
  get bufferedBytes(): number {
    return this.#state[S.buffered]! * 2;
  }
  get readPosition(): number {
    return this.#state[S.readPos]!;
  }
  get writePosition(): number {
    return this.#state[S.writePos]!;
  }
  get pendingEvents(): number {
    return this.#state[S.pendingEvents]!;
  }
  get droppedEvents(): number {
    return this.#state[S.droppedEvents]!;
  }
  get packetsDecoded(): number {
    return this.#state[S.packetsDecoded]!;
  }
  get packetsRejected(): number {
    return this.#state[S.packetsRejected]!;
  }
  get noiseFloorDbfs(): number {
    return this.#state[S.noiseFloorDb]!;
  }
  get lastEnergyDbfs(): number {
    return this.#state[S.lastEnergyDb]!;
  }
  get inSpeech(): boolean {
    return this.#state[S.inSpeech] === 1;
  }
  /** Storage currently allocated for the buffer, in samples. */
  get capacity(): number {
    return this.#state[S.capacity]!;
  }
  /** The format tag of a WAV rejected with WavNotPcm (e.g. 7 for mu-law), else 0. */
  get rejectedWavFormatTag(): number {
    return this.#state[S.rejectedWavTag]!;
  }
  get bytesIn(): number {
    return this.#state[S.bytesIn]!;
  }
}
