import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Webhook-Signature';
/** Receivers should refuse signatures older (or newer) than this, against replays. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. The timestamp is part of
 * the signed string, so a captured delivery cannot be replayed later with a fresh `t`.
 */
export function signatureHeader(secret: string, body: string | Buffer, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(body).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/**
 * Checks a signature header against the raw body as received: some `v1` must match and `t`
 * must be within `toleranceSeconds` of `now`. (The same check receivers run; see the README.)
 */
export function verifySignature(
  header: string | undefined,
  body: string | Buffer,
  secret: string,
  options: { toleranceSeconds?: number; now?: number } = {},
): boolean {
  if (header === undefined) return false;
  let t = NaN;
  const candidates: string[] = [];
  for (const part of header.split(',')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === 't') t = Number(value);
    else if (name === 'v1' && value !== undefined) candidates.push(value);
  }
  if (!Number.isInteger(t) || candidates.length === 0) return false;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex'));
  return candidates.some((c) => {
    const given = Buffer.from(c);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
