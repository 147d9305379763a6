import { ApiError } from './api-error.js';

/**
 * The one size rule: whatever exceeds a size limit (a request body, a file part, a signed PUT,
 * a downloaded audio file) is 413 `payload_too_large`, and the message names the configured
 * limit in bytes. `subject` says what was too large ("The request body", "The file 'a.wav'").
 */
export function sizeLimitMessage(subject: string, limitBytes: number): string {
  return `${subject} exceeds the size limit of ${limitBytes} bytes.`;
}

export function sizeLimitExceeded(subject: string, limitBytes: number, param?: string): ApiError {
  return new ApiError('payload_too_large', { message: sizeLimitMessage(subject, limitBytes), ...(param === undefined ? {} : { param }) });
}

/** What a route's 413 names: the configured limit, which framing may exceed up to the hard cap. */
export interface SizeLimit {
  readonly bytes: number;
  readonly subject: string;
  readonly param?: string;
}
