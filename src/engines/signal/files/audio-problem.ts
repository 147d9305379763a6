/**
 * ffmpeg and ffprobe report problems with file paths, pointers and internal names
 * ("/data/files/accounts/.../audio: Invalid data found when processing input"). Clients get
 * the problem in their own terms instead; the tool's line is kept on the error for the log.
 */
const PROBLEMS: readonly (readonly [RegExp, string])[] = [
  [
    /moov atom not found|partial file|truncat|end of file|premature end|unexpected end/i,
    'the file is incomplete (it may have been cut off during upload or download)',
  ],
  [/does not contain any stream|matches no streams|no audio stream|could not find codec parameters/i, 'the file contains no audio stream'],
  [/decoder .*not found|unknown decoder|unsupported codec|codec not (currently )?supported|no decoder/i, 'the audio codec is not supported'],
  [
    /invalid data found|invalid argument|header missing|invalid (frame|header|sample rate)|not a valid|failed to read|error while decoding|corrupt/i,
    'the file is damaged or is not audio in a supported format',
  ],
];

const GENERIC = 'the file could not be decoded as audio';

/** A short phrase (lower-case, no final period) saying what is wrong, free of server details. */
export function audioProblemInUserTerms(toolOutput: string): string {
  for (const [pattern, phrase] of PROBLEMS) if (pattern.test(toolOutput)) return phrase;
  return GENERIC;
}
