/**
 * Audio errors carry a code of the gateway's error registry; the HTTP layer and the job
 * runner map `code` to status and type (`invalid_audio_format` and `file_too_large` are 400).
 */
export class InvalidAudioError extends Error {
  readonly code = 'invalid_audio_format' as const;
  /** The decoding tool's own words (may name server paths): for the log, never for clients. */
  readonly detail: string | undefined;
  constructor(message: string, options?: { cause?: unknown; detail?: string }) {
    super(message, options);
    this.name = 'InvalidAudioError';
    this.detail = options?.detail;
  }
}

/** channels=2 asked of a file with fewer channels (400 invalid_field_value, param `channels`). */
export class ChannelCountError extends Error {
  readonly code = 'invalid_field_value' as const;
  readonly param = 'channels';
  constructor(
    readonly wanted: number,
    readonly found: number,
  ) {
    super(`channels=${wanted} needs audio with ${wanted} channels (a stereo call recording); the file has ${found} channel${found === 1 ? '' : 's'}.`);
    this.name = 'ChannelCountError';
  }
}

export class AudioTooLargeError extends Error {
  readonly code = 'file_too_large' as const;
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`The audio is ${size} bytes; the limit is ${limit} bytes.`);
    this.name = 'AudioTooLargeError';
  }
}
