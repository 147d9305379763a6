import { createHash } from 'node:crypto';
import { pipeline, Transform, type Readable } from 'node:stream';
import { ApiError } from '../platform/errors/api-error.js';
import type { HttpExchange } from '../platform/http/http-exchange.js';
import type { IdempotentOutcome } from '../jobs/idempotent-submissions.js';

/** Route descriptions: how the submission routes treat the header. */
export const IDEMPOTENCY_KEY_TEXT =
  'Optional `Idempotency-Key` header (1-255 visible ASCII characters, e.g. a UUID): a retry with the same key and the same body within 24 hours ' +
  'answers the job the first request created (same status and body shape, header `Idempotent-Replayed: true`) instead of creating another; ' +
  'the same key with another body or endpoint → 422 idempotency_key_reused; while the first request is still being submitted → 409 idempotency_key_in_use. Keys are per account.';

/** The answer the header adds to a submission route's responses. */
export const IDEMPOTENCY_RESPONSES = { 409: { description: 'idempotency_key_in_use: a request with this Idempotency-Key is still being submitted' } } as const;

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The request's Idempotency-Key, or null without one; 400 invalid_field_value when malformed. */
export function idempotencyKey(exchange: HttpExchange): string | null {
  const raw = exchange.header('idempotency-key');
  if (raw === undefined) return null;
  const key = raw.trim();
  if (!KEY_PATTERN.test(key)) {
    throw new ApiError('invalid_field_value', {
      message: 'The Idempotency-Key header must be 1 to 255 visible ASCII characters (a UUID, for example).',
      param: 'Idempotency-Key',
    });
  }
  return key;
}

/** JSON text of `value` with object keys sorted, so the same request always gives the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What identifies a request under its key: the route and the body (multipart: its fields and each file's SHA-256). */
export function requestFingerprint(route: string, body: unknown): string {
  return createHash('sha256').update(route).update('\n').update(canonicalJson(body)).digest('hex');
}

/** Marks a replayed answer, as hosted APIs do. */
export function markReplay(exchange: HttpExchange, outcome: IdempotentOutcome): void {
  if (outcome.replayed) exchange.setHeader('Idempotent-Replayed', 'true');
}

/** A pass-through of `source` that hashes what it passes (a multipart file's part of the fingerprint); errors of `source` carry over. */
export function hashingStream(source: Readable): { readonly stream: Transform; readonly sha256: () => string } {
  const digest = createHash('sha256');
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      digest.update(chunk);
      callback(null, chunk);
    },
  });
  pipeline(source, stream, () => undefined);
  let hex: string | null = null;
  return { stream, sha256: () => (hex ??= digest.digest('hex')) };
}
