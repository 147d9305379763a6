// The `keyterms` request field (keyterm boosting, an extension of both APIs): names and terms the
// recognition favours, shared by POST /v1/transcriptions and batches (JSON and multipart) and the
// job API's POST /transcribe. The limits and the cleaning are the engine's (checkKeyterms:
// at most 100 terms, each 1-50 characters after NFC and trimming); this module reads the forms:
// a JSON array of strings; a string of comma-separated terms (`,` or `፣`; empty pieces ignored),
// which may also be a JSON array as text; in multipart, the field repeated (one term per part).
// Refusals: the unified API answers 400 invalid_field_value with `param` (`keyterms`, or
// `keyterms.<i>` for one term), the job API 422 with `{loc: ['body', 'keyterms'(, i)]}`.
import { Type } from '@sinclair/typebox';
import { checkKeyterms, KEYTERM_LIMITS, keytermProblemText } from '../engines/asr/asr.js';
import { ApiError } from '../platform/errors/api-error.js';

const RULE = `at most ${KEYTERM_LIMITS.maxTerms} terms, each 1-${KEYTERM_LIMITS.maxChars} characters`;

export const KEYTERMS_DESCRIPTION =
  `Keyterm boosting (extension): names and terms to favour in recognition (${RULE}); the beam search gives a bonus to text that spells them ` +
  '(case and punctuation ignored) and takes it back where the audio leaves the term, so a term the audio does not hold is rarely written. docs/decoding.md';

/** JSON bodies of the unified API: an array of terms, or one comma-separated string. */
export const KeytermsJsonField = Type.Union([Type.Array(Type.String()), Type.String()], { description: KEYTERMS_DESCRIPTION });

/** Multipart (documentation): repeat the field, or send one comma-separated value or a JSON array. */
export const KeytermsMultipartField = Type.String({
  description: `${KEYTERMS_DESCRIPTION}. Repeat the field (one term each), or send one value: comma-separated terms or a JSON array`,
});

/** The job API's JSON body: an array of terms. */
export const KeytermsJobApiField = Type.Array(Type.String(), { description: KEYTERMS_DESCRIPTION });

type Read = { readonly keyterms: string[] } | { readonly param: string; readonly message: string; readonly loc: (string | number)[] };

const NOT_TERMS = "Invalid value for 'keyterms': must be an array of strings or a comma-separated string.";

/** One value: a JSON array as text, or comma-separated terms. */
function splitValue(value: string): string[] | null {
  const text = value.trim();
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return null;
    }
    return Array.isArray(parsed) && parsed.every((term) => typeof term === 'string') ? parsed : null;
  }
  return text.split(/[,፣]/u).filter((piece) => piece.trim() !== '');
}

function read(raw: unknown): Read {
  let terms: string[] | null;
  if (typeof raw === 'string') terms = splitValue(raw);
  else if (Array.isArray(raw) && raw.every((term) => typeof term === 'string')) terms = raw;
  else terms = null;
  if (terms === null) return { param: 'keyterms', message: NOT_TERMS, loc: ['keyterms'] };
  const checked = checkKeyterms(terms);
  if ('keyterms' in checked) return checked;
  const text = keytermProblemText(checked);
  return { ...text, loc: checked.reason === 'too_many' ? ['keyterms'] : ['keyterms', checked.index] };
}

/** The unified API's keyterms (JSON value, multipart value or repeated values); null when absent or empty. 400 invalid_field_value otherwise. */
export function readKeyterms(raw: unknown): string[] | null {
  if (raw === undefined || raw === null) return null;
  const result = read(raw);
  if (!('keyterms' in result)) throw new ApiError('invalid_field_value', { message: result.message, param: result.param });
  return result.keyterms.length > 0 ? result.keyterms : null;
}

/** The job API's keyterms; null when absent or empty. 422 validation_error otherwise. */
export function readJobApiKeyterms(raw: readonly string[] | undefined): string[] | null {
  if (raw === undefined) return null;
  const result = read(raw);
  if (!('keyterms' in result)) throw new ApiError('validation_error', { issues: [{ loc: ['body', ...result.loc], msg: result.message, type: 'value_error' }] });
  return result.keyterms.length > 0 ? result.keyterms : null;
}

/** The job options that carry a request's keyterms to its runner (jobs/job-runner.ts keytermsOf). */
export function keytermJobOptions(keyterms: readonly string[] | null): Record<string, unknown> {
  return keyterms === null ? {} : { keyterms: [...keyterms] };
}
