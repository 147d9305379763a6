// What sits in front of a session's StreamFrontEnd(s) when the client's audio is not one the
// front end reads as is: interleaved multi-channel audio (channels=2) and 8 kHz 16-bit PCM
// (pcm_s16le_8k). Each binary message becomes one array per channel for the front ends: 16-bit
// PCM at their rate, or, for G.711 (mulaw_8k, alaw_8k), that channel's bytes, which the front
// ends expand and upsample themselves. Mono audio in a native format (G.711 included) never
// comes here (the session pushes it straight to its one front end, byte for byte).
//
// - Frames may be split at any byte: the bytes of an incomplete frame wait for the next message.
// - 8 kHz PCM (and WAV at rates other than 16 kHz) is upsampled to 16 kHz by the native
//   polyphase resampler, one per channel; flush() hands out its tail at END and before a format
//   change.
// - A stereo WAV stream's header is read here (16-bit PCM only); the data then goes the PCM way.
// - Stereo webm_opus is demuxed and decoded to two channels by stereo-webm-decoder.ts.
// - Problems are reported like the front end's: `sticky` ones (a bad WAV header) repeat on every
//   message until the format is set again.
import { deinterleaveInt16, floatToInt16, int16ToFloat, parseWavHeader } from '../files/pcm-channels.js';
import { isAudioFormat, isG711, type AudioFormat, type StreamFormat } from './audio-format.js';
import { Resampler } from './resampler.js';
import { StereoWebmDecoder } from './stereo-webm-decoder.js';

export interface InputProblem {
  readonly problem: string;
  /** The stream cannot go on in this format (until FORMAT sets one again). */
  readonly sticky: boolean;
}

const MAX_WAV_HEADER_BYTES = 64 * 1024;
const OUTPUT_RATE = 16_000;

/** Whether mono audio in `format` goes to the front end untouched. */
export function isPassthrough(format: StreamFormat, channels: number): boolean {
  return channels === 1 && isAudioFormat(format);
}

/** The native format the front ends of a session decode. */
export function frontEndFormatFor(format: StreamFormat, channels: number): AudioFormat {
  if (channels === 1 && isAudioFormat(format)) return format;
  if (isG711(format)) return format;
  return format === 'pcm_s16le_48k' ? 'pcm_s16le_48k' : 'pcm_s16le';
}

/** One channel's share of a message: 16-bit PCM, or G.711 bytes (one a sample). */
export type ChannelSamples = Int16Array | Uint8Array;

export class StreamInput {
  readonly channels: number;
  #format: StreamFormat;
  #carry: Uint8Array = new Uint8Array(0);
  #resamplers: Resampler[] = [];
  /** WAV: the header bytes so far (null once it is read), data bytes left (null: to the end). */
  #wavHead: Uint8Array | null = null;
  #wavDataLeft: number | null = null;
  #sticky: InputProblem | null = null;
  #webm: StereoWebmDecoder | null = null;

  constructor(format: StreamFormat, channels: number) {
    this.channels = channels;
    this.#format = format;
    this.#configure();
  }

  get format(): StreamFormat {
    return this.#format;
  }

  get frontEndFormat(): AudioFormat {
    return frontEndFormatFor(this.#format, this.channels);
  }

  /** One binary message: one array per channel (maybe empty), or a problem. */
  split(message: ArrayBuffer | Uint8Array): ChannelSamples[] | InputProblem {
    if (this.#sticky !== null) return this.#sticky;
    let bytes = message instanceof Uint8Array ? message : new Uint8Array(message);
    if (this.#webm !== null) {
      const decoded = this.#webm.push(bytes);
      if (!Array.isArray(decoded) && decoded.sticky) this.#sticky = decoded;
      return decoded;
    }
    if (this.#format === 'wav') {
      if (this.#wavHead !== null) {
        const head = concat(this.#wavHead, bytes);
        const parsed = parseWavHeader(head);
        if (parsed === 'incomplete') {
          if (head.byteLength > MAX_WAV_HEADER_BYTES) return this.#stick('the WAV header is longer than 64 KiB');
          this.#wavHead = head;
          return this.#empty();
        }
        if ('problem' in parsed) return this.#stick(parsed.problem);
        if (parsed.formatTag !== 1 || parsed.bitsPerSample !== 16) return this.#stick('a multi-channel WAV stream must be 16-bit PCM');
        if (parsed.channels !== this.channels) {
          return this.#stick(
            `the WAV stream has ${parsed.channels} channel${parsed.channels === 1 ? '' : 's'}; channels=${this.channels} needs ${this.channels}`,
          );
        }
        if (parsed.sampleRate < 8000 || parsed.sampleRate > 192_000) return this.#stick(`WAV at ${parsed.sampleRate} Hz is not supported (8 to 192 kHz)`);
        this.#wavHead = null;
        this.#wavDataLeft = parsed.dataBytes;
        this.#setResamplers(parsed.sampleRate);
        bytes = head.subarray(parsed.headerBytes);
      }
      if (this.#wavDataLeft !== null) {
        // After a data chunk of known size: what follows is ignored (trailing chunks).
        bytes = bytes.subarray(0, Math.min(bytes.byteLength, this.#wavDataLeft));
        this.#wavDataLeft -= bytes.byteLength;
      }
    }
    const sampleBytes = isG711(this.#format) ? 1 : 2;
    const frameBytes = sampleBytes * this.channels;
    const all = this.#carry.byteLength > 0 ? concat(this.#carry, bytes) : bytes;
    const whole = all.byteLength - (all.byteLength % frameBytes);
    this.#carry = all.slice(whole);
    const frames = all.subarray(0, whole);
    // G.711: each channel's bytes go to its front end (copied: the message is not ours to keep).
    if (sampleBytes === 1) return deinterleaveBytes(frames, this.channels);
    const perChannel = deinterleaveInt16(frames, this.channels);
    return this.#resamplers.length === 0 ? perChannel : perChannel.map((samples, c) => this.#resample(c, samples));
  }

  /** END: the resamplers' tails (one array per channel); an incomplete frame is dropped. */
  flush(): Int16Array[] {
    this.#carry = new Uint8Array(0);
    if (this.#resamplers.length === 0) return this.#empty();
    return this.#resamplers.map((resampler) => {
      const out = new Float32Array(resampler.info.flushMaxOutput);
      return floatToInt16(out.subarray(0, resampler.flush(out)));
    });
  }

  /** FORMAT: the old format's tails (push them before switching the front ends), then the new format. */
  setFormat(format: StreamFormat): Int16Array[] {
    const tail = this.flush();
    this.#format = format;
    this.#configure();
    return tail;
  }

  /** Opus packets of a stereo WebM stream that libopus refused (skipped). */
  get packetsRejected(): number {
    return this.#webm?.packetsRejected ?? 0;
  }

  close(): void {
    this.#closeResamplers();
    this.#webm?.close();
    this.#webm = null;
  }

  #closeResamplers(): void {
    for (const resampler of this.#resamplers) resampler.close();
    this.#resamplers = [];
  }

  #configure(): void {
    this.close();
    if (this.#format === 'webm_opus') this.#webm = new StereoWebmDecoder();
    this.#sticky = null;
    this.#carry = new Uint8Array(0);
    this.#wavHead = this.#format === 'wav' ? new Uint8Array(0) : null;
    this.#wavDataLeft = null;
    // G.711 is upsampled by the front ends; 48 kHz PCM is read by them as it is.
    this.#setResamplers(this.#format === 'pcm_s16le_8k' ? 8000 : OUTPUT_RATE);
  }

  #setResamplers(inputRate: number): void {
    this.#closeResamplers();
    // pcm_s16le_48k goes to front ends that read 48 kHz themselves.
    if (inputRate === OUTPUT_RATE || this.#format === 'pcm_s16le_48k') return;
    for (let c = 0; c < this.channels; c++) this.#resamplers.push(new Resampler(inputRate, OUTPUT_RATE));
  }

  #resample(channel: number, samples: Int16Array): Int16Array {
    if (samples.length === 0) return samples;
    const resampler = this.#resamplers[channel]!;
    const out = new Float32Array(resampler.maxOutput(samples.length));
    return floatToInt16(out.subarray(0, resampler.process(int16ToFloat(samples), out)));
  }

  #stick(problem: string): InputProblem {
    this.#sticky = { problem, sticky: true };
    return this.#sticky;
  }

  #empty(): Int16Array[] {
    return Array.from({ length: this.channels }, () => new Int16Array(0));
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/** Splits interleaved 8-bit frames into one new byte array per channel. */
function deinterleaveBytes(bytes: Uint8Array, channels: number): Uint8Array[] {
  if (channels === 1) return [bytes.slice()];
  const frames = bytes.byteLength / channels;
  const out = Array.from({ length: channels }, () => new Uint8Array(frames));
  for (let f = 0, at = 0; f < frames; f++) for (let c = 0; c < channels; c++) out[c]![f] = bytes[at++]!;
  return out;
}
