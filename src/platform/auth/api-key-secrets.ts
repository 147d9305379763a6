import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 40; // 40 base62 characters ≈ 238 bits of entropy
export const KEY_PREFIX_LENGTH = 11; // "sk_" + 8 characters: enough to recognise, useless to guess

/**
 * Keys look like `sk_<40 base62 chars>`. They are random enough that a plain SHA-256 is a safe
 * stored form (no salt or slow hash needed, as for GitHub or Stripe tokens); the key is shown
 * once at creation and never stored.
 */
export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const bytes = randomBytes(KEY_BODY_LENGTH * 2);
  let body = '';
  for (let i = 0; i < bytes.length && body.length < KEY_BODY_LENGTH; i++) {
    const value = bytes[i]!;
    if (value < 248) body += ALPHABET[value % 62]; // 248 = 4 × 62: rejects the biased tail
  }
  while (body.length < KEY_BODY_LENGTH) body += ALPHABET[randomBytes(1)[0]! % 62];
  const key = `sk_${body}`;
  return { key, prefix: key.slice(0, KEY_PREFIX_LENGTH), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Cheap shape check before any lookup. */
export function looksLikeApiKey(value: string): boolean {
  return /^sk_[0-9A-Za-z]{40}$/.test(value);
}
