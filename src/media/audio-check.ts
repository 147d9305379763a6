import { pipeline, Transform, type Readable } from 'node:stream';
import { ApiError } from '../platform/errors/api-error.js';
import type { Asr } from '../engines/asr/asr.js';
import { SUPPORTED_FORMATS_TEXT, unsupportedAudioMessage } from '../engines/signal/signal.js';
import { FfprobeError, mediaFacts, runFfprobe } from './probe/ffprobe.js';
import { runProcess } from '../platform/subprocess/subprocess.js';
import type { FileStorage, StoredObject } from '../platform/files/file-storage.js';

const HEAD_BYTES = 64;
/** Seconds decoded from the start of an upload: a header alone (what ffprobe reads) can sit on damaged data. */
const DECODE_CHECK_SECONDS = 10;

/** Canonical media types of the recognised containers (what playback serves). */
const CONTENT_TYPES: Record<string, { audio: string; video?: string }> = {
  mp3: { audio: 'audio/mpeg' },
  wav: { audio: 'audio/wav' },
  ogg: { audio: 'audio/ogg', video: 'video/ogg' },
  flac: { audio: 'audio/flac' },
  m4a: { audio: 'audio/mp4', video: 'video/mp4' },
  webm: { audio: 'audio/webm', video: 'video/webm' },
  aac: { audio: 'audio/aac' },
};

export const ACCEPTED_FORMATS_TEXT = SUPPORTED_FORMATS_TEXT;

/** What the checks need: storage, the container sniffing, the tools and their time limit. */
export interface AudioCheckDeps {
  readonly storage: FileStorage;
  readonly asr: Pick<Asr, 'sniff'>;
  readonly ffprobe: string;
  readonly ffmpeg: string;
  readonly probeTimeoutSeconds: number;
}

export interface CheckedAudio {
  readonly object: StoredObject;
  readonly format: string;
  readonly contentType: string;
  readonly durationSeconds: number | null;
}

/**
 * Streams `body` into storage under `key` and checks it is audio by its content: the first
 * bytes must be a supported container, ffprobe must find an audio stream in it, and its first
 * DECODE_CHECK_SECONDS must decode to samples. Anything else is deleted again and refused with
 * 400 invalid_audio_format.
 */
export async function storeCheckedAudio(
  deps: AudioCheckDeps,
  key: string,
  body: Readable,
  options: { maxBytes: number; describe: string; param: string; declaredType: string; signal?: AbortSignal },
): Promise<CheckedAudio> {
  const capture = headCapture();
  // pipeline (not pipe) carries an error of `body` into `capture` at once, even one raised
  // before storage starts reading; storage.put then fails with it.
  pipeline(body, capture, () => undefined);
  const object = await deps.storage.put(key, capture, {
    contentType: options.declaredType,
    maxBytes: options.maxBytes,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return checkStoredAudio(deps, object, capture.head, options);
}

/** A pass-through stream that keeps the first bytes it passes (`head`: what sniffing a container needs). */
export function headCapture(): Transform & { readonly head: Buffer } {
  let head = Buffer.alloc(0);
  const capture = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
      callback(null, chunk);
    },
  });
  return Object.defineProperty(capture, 'head', { get: () => head }) as Transform & { readonly head: Buffer };
}

/**
 * The same check for bytes already in storage (a direct upload to the bucket): `head` is the
 * object's first bytes. A refused object is deleted.
 */
export async function checkStoredAudio(
  deps: AudioCheckDeps,
  object: StoredObject,
  head: Buffer,
  options: { describe: string; param: string },
): Promise<CheckedAudio> {
  const { key } = object;
  const refuse = async (reason: string): Promise<never> => {
    await deps.storage.delete(key);
    throw new ApiError('invalid_audio_format', {
      message: `${options.describe} ${reason} Accepted: ${ACCEPTED_FORMATS_TEXT}.`,
      param: options.param,
    });
  };
  const format = object.size === 0 ? null : deps.asr.sniff(head);
  if (format === null) {
    // The same words as every other endpoint's (an empty file, or not a supported container).
    await deps.storage.delete(key);
    throw new ApiError('invalid_audio_format', { message: unsupportedAudioMessage(options.describe, object.size), param: options.param });
  }

  let durationSeconds: number | null = null;
  let hasVideo = false;
  const local = await deps.storage.localPath(key);
  try {
    const facts = mediaFacts(await runFfprobe(deps.ffprobe, local.path, { protocols: 'file', signal: AbortSignal.timeout(deps.probeTimeoutSeconds * 1000) }));
    if (!facts.hasAudio) return await refuse('holds no audio stream.');
    durationSeconds = facts.durationSeconds;
    hasVideo = facts.hasVideo;
    const problem = await decodeProblem(deps, local.path);
    if (problem !== null) return await refuse(problem);
  } catch (error) {
    if (error instanceof FfprobeError && error.exitCode !== null)
      return await refuse('could not be read as audio (the data is damaged or not what its header claims).');
    if (error instanceof ApiError) throw error;
    // ffprobe missing or too slow: the container check stands, the duration stays unknown.
  } finally {
    await local.release();
  }
  const types = CONTENT_TYPES[format] ?? { audio: 'application/octet-stream' };
  const contentType = hasVideo && types.video ? types.video : types.audio;
  return { object: { ...object, contentType }, format, contentType, durationSeconds };
}

/**
 * Decodes the first DECODE_CHECK_SECONDS of a local file as a job would (first audio stream,
 * mono): the reason it is not audio, or null when samples came out. Null as well when ffmpeg
 * cannot run or runs past the probe time limit: the other checks then stand alone.
 */
async function decodeProblem(deps: AudioCheckDeps, path: string): Promise<string | null> {
  const source = `file:${path}`;
  const args = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-threads', '1', '-protocol_whitelist', 'file'];
  args.push('-t', String(DECODE_CHECK_SECONDS), '-i', source, '-map', '0:a:0', '-vn', '-sn', '-dn', '-ac', '1', '-ar', '8000', '-f', 's16le', 'pipe:1');
  try {
    const { code, stdout } = await runProcess(deps.ffmpeg, args, {
      name: 'ffmpeg',
      env: { PATH: process.env['PATH'] ?? '' },
      timeoutMs: deps.probeTimeoutSeconds * 1000,
      // Whether any sample came out is all that counts: keep one byte, drop the rest.
      maxStdoutBytes: 1,
      maxStderrBytes: 2000,
      redact: { [source]: 'the file', [path]: 'the file' },
    });
    if (code === null) return null; // killed from outside: no verdict
    if (code !== 0) return 'could not be decoded as audio (the data is damaged or not what its header claims).';
    return stdout.length === 0 ? 'holds no decodable audio (the data after its header is damaged or empty).' : null;
  } catch {
    return null;
  }
}
