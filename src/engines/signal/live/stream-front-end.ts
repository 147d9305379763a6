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

// The state array (front-end-binding.cc StateField): slot i holds STATE_FIELDS[i]. Each but
// inSpeech is a read-only number property of StreamFrontEnd reading its slot (the class's static
// block defines them: no native call, no allocation).
const STATE_FIELDS = [
  'appendedLast',
  'droppedLast',
  'buffered',
  'readPosition',
  'writePosition',
  'pendingEvents',
  'droppedEvents',
  'droppedTotal',
  'packetsDecoded',
  'packetsRejected',
  'noiseFloorDbfs',
  'lastEnergyDbfs',
  'inSpeech',
  'capacity',
  'rejectedWavFormatTag',
  'bytesIn',
] as const;
const PENDING_EVENTS = STATE_FIELDS.indexOf('pendingEvents');
const IN_SPEECH = STATE_FIELDS.indexOf('inSpeech');

export class StreamFrontEnd extends NativeHandle {
  readonly #state: Float64Array;
  readonly #events = new Float64Array(EVENT_STRIDE * 64);
  #format: AudioFormat;
  readonly maxBufferSamples: number;

  constructor(options: StreamFrontEndOptions) {
    const addon = nativeAddon();
    const maxBufferSamples = Math.floor((options.maxBufferBytes ?? DEFAULT_MAX_BUFFER_BYTES) / 2);
    const initial = Math.max(1, Math.round((options.initialBufferSeconds ?? 8) * OUTPUT_SAMPLE_RATE));
    const state = new Float64Array(STATE_FIELDS.length);
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
    while (this.#state[PENDING_EVENTS]! > 0) {
      const n = nativeAddon().frontEndTakeEvents(this.handle, this.#events);
      if (n === 0) break;
      decodeEvents(this.#events, n, into);
    }
    return into;
  }

  /** Samples the last push/flush added to the buffer. */
  declare readonly appendedLast: number;
  /** Samples the last push/flush could not store (buffer full). */
  declare readonly droppedLast: number;
  declare readonly droppedTotal: number;
  /** Samples buffered now. */
  declare readonly buffered: number;
  declare readonly readPosition: number;
  declare readonly writePosition: number;
  declare readonly pendingEvents: number;
  declare readonly droppedEvents: number;
  declare readonly packetsDecoded: number;
  declare readonly packetsRejected: number;
  declare readonly noiseFloorDbfs: number;
  declare readonly lastEnergyDbfs: number;
  /** Storage currently allocated for the buffer, in samples. */
  declare readonly capacity: number;
  /** The format tag of a WAV rejected with WavNotPcm (e.g. 7 for mu-law), else 0. */
  declare readonly rejectedWavFormatTag: number;
  declare readonly bytesIn: number;

  static {
    STATE_FIELDS.forEach((field, slot) => {
      if (slot === IN_SPEECH) return;
      Object.defineProperty(StreamFrontEnd.prototype, field, {
        get(this: StreamFrontEnd): number {
          return this.#state[slot]!;
        },
      });
    });
  }

  /** Bytes the buffered audio counts against the limit (16-bit samples). */
  get bufferedBytes(): number {
    return this.buffered * 2;
  }
  get inSpeech(): boolean {
    return this.#state[IN_SPEECH] === 1;
  }
}
