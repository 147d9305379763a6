// webm_opus with channels=2: the front end's Opus decoder mixes every stream down to mono, so a
// stereo WebM stream (MediaRecorder on a two-channel track) is demuxed here by the addon's
// WebmDemuxer and decoded with two output channels by libopus through @discordjs/opus (the
// package whose libopus sources the addon compiles), straight to 16 kHz: one 16-bit array per
// channel, for pcm_s16le front ends.
//
// - The OpusHead pre-skip (encoder priming) is dropped and its output gain applied, as the
//   front end does for mono.
// - A packet libopus refuses is skipped and counted (`packetsRejected`); a broken container or a
//   track that is not stereo is a sticky problem until the format is set again.
import { createRequire } from 'node:module';
import { concatSamples, deinterleaveInt16 } from '../files/pcm-channels.js';
import { describeNativeStatus } from '../../runtime/native-status.js';
import { WebmDemuxer } from './webm-demuxer.js';

type OpusBinding = typeof import('@discordjs/opus');
const require = createRequire(import.meta.url);
let binding: OpusBinding | null = null;
const opusBinding = (): OpusBinding => (binding ??= require('@discordjs/opus') as OpusBinding);

/** What cannot be read (the same shape as stream-input.ts's InputProblem). */
export interface WebmProblem {
  readonly problem: string;
  readonly sticky: boolean;
}

const OUTPUT_RATE = 16_000;
const CHANNELS = 2;

export class StereoWebmDecoder {
  readonly #demuxer = new WebmDemuxer();
  #decoder: InstanceType<OpusBinding['OpusEncoder']> | null = null;
  /** Frames (per channel, 16 kHz) of the pre-skip still to drop. */
  #skip = 0;
  #gain = 1;
  #rejected = 0;

  get packetsRejected(): number {
    return this.#rejected;
  }

  push(chunk: Uint8Array): Int16Array[] | WebmProblem {
    const { status, frames } = this.#demuxer.push(chunk);
    if (status !== 0) return { problem: describeNativeStatus(status).message, sticky: true };
    if (frames.length === 0) return [new Int16Array(0), new Int16Array(0)];
    if (this.#decoder === null) {
      const track = this.#demuxer.track;
      if (track === null) return { problem: 'WebM media data arrived before an audio track was declared', sticky: true };
      if (track.channels !== CHANNELS) {
        return {
          problem: `the WebM Opus track has ${track.channels} channel${track.channels === 1 ? '' : 's'}; channels=2 needs a stereo track`,
          sticky: true,
        };
      }
      this.#decoder = new (opusBinding().OpusEncoder)(OUTPUT_RATE, CHANNELS);
      this.#skip = Math.round((track.preSkip * OUTPUT_RATE) / 48_000);
      this.#gain = 10 ** (track.outputGainQ8 / 256 / 20);
    }
    const parts: Int16Array[][] = [[], []];
    for (const frame of frames) {
      let pcm: Buffer;
      try {
        pcm = this.#decoder.decode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
      } catch {
        this.#rejected++;
        continue;
      }
      let channels = deinterleaveInt16(pcm, CHANNELS);
      if (this.#skip > 0) {
        const drop = Math.min(this.#skip, channels[0]!.length);
        this.#skip -= drop;
        channels = channels.map((samples) => samples.subarray(drop));
      }
      if (this.#gain !== 1) for (const samples of channels) for (let i = 0; i < samples.length; i++) samples[i] = clamp(samples[i]! * this.#gain);
      channels.forEach((samples, c) => parts[c]!.push(samples));
    }
    return parts.map((channel) => concatSamples(channel, Int16Array));
  }

  close(): void {
    this.#demuxer.close();
    this.#decoder = null;
  }
}

function clamp(value: number): number {
  return Math.max(-32768, Math.min(32767, Math.round(value)));
}
