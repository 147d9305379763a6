// Audio errors are engine errors (runtime/engine-error.ts): kinds `invalid_audio`,
// `invalid_value` (param `channels`) and `audio_too_large` (bytes, or seconds past the per-file
// maximum); the layers above map them.
import { EngineError } from '../../runtime/engine-error.js';

export class InvalidAudioError extends EngineError {
  /** The decoding tool's own words (may name server paths): for the log, never for clients. */
  readonly detail: string | undefined;
  constructor(message: string, options?: { cause?: unknown; detail?: string }) {
    super('invalid_audio', message, options?.cause === undefined ? {} : { cause: options.cause });
    this.name = 'InvalidAudioError';
    this.detail = options?.detail;
  }
}

/** channels=2 asked of a file with fewer channels (400 invalid_field_value, param `channels`). */
export class ChannelCountError extends EngineError {
  constructor(
    readonly wanted: number,
    readonly found: number,
  ) {
    super(
      'invalid_value',
      `channels=${wanted} needs audio with ${wanted} channels (a stereo call recording); the file has ${found} channel${found === 1 ? '' : 's'}.`,
      { param: 'channels' },
    );
    this.name = 'ChannelCountError';
  }
}

export class AudioTooLargeError extends EngineError {
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super('audio_too_large', `The audio is ${size} bytes; the limit is ${limit} bytes.`);
    this.name = 'AudioTooLargeError';
  }
}

/**
 * Audio longer than the per-file maximum (MAX_AUDIO_SECONDS): by its probed duration before any
 * decoding, or by what was decoded (`seconds` null: decoding stopped at the limit). Kind
 * `audio_too_large`, so 400 `file_too_large`; it has no byte `limit`, so it is not the 413 size rule.
 */
export class AudioTooLongError extends EngineError {
  constructor(
    readonly seconds: number | null,
    readonly limitSeconds: number,
  ) {
    super(
      'audio_too_large',
      seconds === null
        ? `The audio is longer than ${clock(limitSeconds)}, the longest accepted per file.`
        : `The audio is ${clock(seconds)} long; the longest accepted per file is ${clock(limitSeconds)}.`,
    );
    this.name = 'AudioTooLongError';
  }
}

/** Seconds as h:mm:ss. */
function clock(seconds: number): string {
  const whole = Math.ceil(seconds);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${Math.floor(whole / 3600)}:${pad(Math.floor(whole / 60) % 60)}:${pad(whole % 60)}`;
}
