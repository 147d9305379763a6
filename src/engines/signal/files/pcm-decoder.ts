import { endianness } from 'node:os';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { spawnStreaming } from '../../../platform/subprocess/subprocess.js';
import { audioProblemInUserTerms } from './audio-problem.js';
import { AudioTooLargeError, InvalidAudioError } from './audio-errors.js';

export const PCM_SAMPLE_RATE = 16_000;

export interface DecodeOptions {
  readonly ffmpegPath: string;
  /** Samples per yielded chunk (the last one may be shorter). Default 1 s. */
  readonly chunkSamples?: number;
  /** Refuse a stream input once it exceeds this many bytes (a path is checked by the caller). */
  readonly maxInputBytes?: number;
  readonly signal?: AbortSignal;
  /** Decode this 0-based channel alone (ffmpeg pan filter) instead of the mix of all channels. */
  readonly channel?: number;
}

if (endianness() !== 'LE') throw new Error('pcm-decoder reads f32le output directly and needs a little-endian host');

/**
 * Decodes any container ffmpeg reads to 16 kHz mono float32 PCM (all channels mixed, or one
 * channel with `channel`), streaming: yields chunks of
 * `chunkSamples` as ffmpeg produces them, never the whole file. Pull-driven: when the consumer
 * stops pulling, ffmpeg's stdout pipe fills and ffmpeg waits, so memory stays at a few chunks.
 *
 * Lifetime: every yielded Float32Array is fresh and owned by the consumer.
 * Errors: InvalidAudioError when ffmpeg fails or finds no audio (codes map to
 * `invalid_audio_format`), AudioTooLargeError for a stream over `maxInputBytes`, the signal's
 * reason when aborted. Leaving the loop early kills ffmpeg.
 */
export async function* decodeToPcm(input: string | Readable, options: DecodeOptions): AsyncGenerator<Float32Array, void, undefined> {
  const chunkSamples = options.chunkSamples ?? PCM_SAMPLE_RATE;
  const signal = options.signal;
  signal?.throwIfAborted();
  const source = typeof input === 'string' ? `file:${input}` : 'pipe:0';
  const args = ['-hide_banner', '-nostats', '-loglevel', 'error', '-threads', '1'];
  if (typeof input === 'string') args.push('-nostdin');
  const mono = options.channel === undefined ? ['-ac', '1'] : ['-af', `pan=mono|c0=c${options.channel}`];
  args.push('-i', source, '-map', '0:a:0', '-vn', '-sn', '-dn', ...mono, '-ar', String(PCM_SAMPLE_RATE), '-f', 'f32le', '-c:a', 'pcm_f32le', 'pipe:1');
  // The signal kills ffmpeg; the loop below then ends and reports the signal's reason.
  const child = spawnStreaming(options.ffmpegPath, args, {
    name: 'ffmpeg',
    stdin: typeof input !== 'string',
    maxStderrBytes: 2000,
    ...(signal ? { signal } : {}),
    ...(typeof input === 'string' ? { redact: { [source]: 'the file', [input]: 'the file' } } : {}),
  });
  const closed = child.closed;

  let inputError: unknown = null;
  if (typeof input !== 'string') {
    let bytes = 0;
    const limit = options.maxInputBytes ?? Number.POSITIVE_INFINITY;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, callback) {
        bytes += chunk.length;
        if (bytes > limit) callback(new AudioTooLargeError(bytes, limit));
        else callback(null, chunk);
      },
    });
    pipeline(input, counter, child.stdin!).catch((error: unknown) => {
      // EPIPE means ffmpeg stopped reading (it failed or finished); its exit status tells.
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') {
        inputError = error;
        child.kill();
      }
    });
  }

  let pending = new Float32Array(chunkSamples);
  let pendingBytes = new Uint8Array(pending.buffer);
  let filled = 0; // bytes
  let total = 0; // samples yielded
  let finished = false;
  try {
    for await (const data of child.stdout as AsyncIterable<Buffer>) {
      let offset = 0;
      while (offset < data.length) {
        const take = Math.min(data.length - offset, pendingBytes.length - filled);
        pendingBytes.set(data.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === pendingBytes.length) {
          const out = pending;
          pending = new Float32Array(chunkSamples);
          pendingBytes = new Uint8Array(pending.buffer);
          filled = 0;
          total += out.length;
          yield out;
        }
      }
    }
    const code = await closed;
    signal?.throwIfAborted();
    if (inputError !== null) throw inputError;
    if (code !== 0) {
      const tail = child.stderrTail();
      const detail = tail.trim().split('\n').pop()?.trim() ?? '';
      throw new InvalidAudioError(`The audio could not be decoded: ${audioProblemInUserTerms(tail)}.`, { detail: detail.slice(0, 300) });
    }
    const tailSamples = filled >> 2;
    if (tailSamples > 0) {
      total += tailSamples;
      yield pending.slice(0, tailSamples);
    }
    if (total === 0) throw new InvalidAudioError('The file contains no decodable audio.');
    finished = true;
  } finally {
    if (!finished) child.kill();
  }
}
