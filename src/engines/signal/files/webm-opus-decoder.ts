import { createReadStream } from 'node:fs';
import { describeNativeStatus, NativeStatus } from '../../runtime/native-status.js';
import { StreamFrontEnd } from '../live/stream-front-end.js';
import { InvalidAudioError } from './audio-errors.js';
import type { AudioProbe } from './audio-probe.js';
import { PCM_SAMPLE_RATE } from './pcm-decoder.js';

/** File bytes handed to the front end per push (a few hundred ms of 32 kbit/s Opus per 16 KiB). */
const READ_BYTES = 16 * 1024;

/**
 * Whether a file is decoded by the native WebM/Opus front end instead of ffmpeg: a WebM (or
 * Matroska) file whose first audio stream is mono Opus, the container browsers' MediaRecorder
 * writes. Rule: REST and the live `webm_opus` stream decode the same bytes with the same decoder
 * (libopus straight to 16 kHz, pre-skip dropped), so an upload of a recorded stream hears exactly
 * the samples the live session heard and a turn's final text can equal the file's. Stereo and
 * every other codec go through ffmpeg (which mixes channels to one).
 */
export function decodesNatively(probe: Pick<AudioProbe, 'formatName' | 'codec' | 'channels'>): boolean {
  return probe.codec === 'opus' && probe.channels === 1 && /(^|,)(webm|matroska)(,|$)/.test(probe.formatName);
}

export interface WebmOpusDecodeOptions {
  /** Samples per yielded chunk (the last may be shorter). Default 1 s. */
  readonly chunkSamples?: number;
  readonly signal?: AbortSignal;
}

/**
 * Decodes a WebM/Opus file to 16 kHz mono float32 PCM through the same native front end as a live
 * `webm_opus` session (energy VAD off). Streaming: the file is read in 16 KiB pieces and the
 * front end's buffer is emptied after each, so memory stays at a chunk or two.
 *
 * Lifetime: every yielded Float32Array is fresh and owned by the consumer; the front end is closed
 * when the generator finishes, fails or is left early.
 * Errors: InvalidAudioError when the container is unreadable (`bad_stream` statuses) or holds no
 * audio; single undecodable packets are skipped, as a live stream skips them. The signal's
 * reason when aborted.
 */
export async function* decodeWebmOpus(path: string, options: WebmOpusDecodeOptions = {}): AsyncGenerator<Float32Array, void, undefined> {
  const chunkSamples = options.chunkSamples ?? PCM_SAMPLE_RATE;
  const { signal } = options;
  signal?.throwIfAborted();
  const frontEnd = new StreamFrontEnd({ format: 'webm_opus', energyVad: false, initialBufferSeconds: 2 });
  const file = createReadStream(path, { highWaterMark: READ_BYTES, ...(signal ? { signal } : {}) });
  let pending = new Float32Array(chunkSamples);
  let filled = 0;
  let total = 0;
  try {
    const drain = function* (): Generator<Float32Array> {
      while (frontEnd.buffered > 0) {
        filled += frontEnd.read(pending.subarray(filled));
        if (filled === pending.length) {
          const out = pending;
          pending = new Float32Array(chunkSamples);
          filled = 0;
          total += out.length;
          yield out;
        }
      }
    };
    for await (const bytes of file as AsyncIterable<Buffer>) {
      failOnBadStream(frontEnd.push(bytes));
      yield* drain();
    }
    failOnBadStream(frontEnd.flush());
    yield* drain();
    signal?.throwIfAborted();
    if (filled > 0) {
      total += filled;
      yield pending.slice(0, filled);
    }
    if (total === 0) throw new InvalidAudioError('The file contains no decodable audio.');
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  } finally {
    file.destroy();
    frontEnd.close();
  }
}

/** `bad_message` statuses (one undecodable packet) are skipped; a broken container ends the decode. */
function failOnBadStream(status: NativeStatus): void {
  if (status === NativeStatus.Ok) return;
  const info = describeNativeStatus(status);
  if (info.kind === 'bad_message') return;
  throw new InvalidAudioError(`The audio could not be decoded: ${info.message}.`, { detail: info.name });
}
