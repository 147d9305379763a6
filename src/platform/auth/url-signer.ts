import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = 'valid' | 'expired' | 'invalid';

/**
 * Signs gateway URLs (audio, transcript, media playback, direct upload) with HMAC-SHA256 over
 * the method, the path, the expiry and any extra bound parameters, so none of them can be
 * altered. The signature travels as `sig`, the expiry (Unix seconds) as `expires`.
 */
export class UrlSigner {
  constructor(
    private readonly secret: Buffer,
    private readonly baseUrl: string,
    private readonly now: () => number = Date.now,
  ) {}

  private mac(method: string, path: string, expires: number, bound: Readonly<Record<string, string>>): string {
    const extra = Object.keys(bound)
      .sort()
      .map((k) => `${k}=${bound[k]}`)
      .join('&');
    return createHmac('sha256', this.secret).update(`${method}\n${path}\n${expires}\n${extra}`).digest('base64url');
  }

  /** Returns an absolute URL valid for `ttlSeconds`. `bound` parameters are part of the signature. */
  sign(method: string, path: string, ttlSeconds: number, bound: Readonly<Record<string, string>> = {}): { url: string; expiresAt: Date } {
    const expires = Math.floor(this.now() / 1000) + Math.max(1, Math.floor(ttlSeconds));
    const query = canonicalQuery(bound, expires, this.mac(method, path, expires, bound));
    return { url: `${this.baseUrl}${path}?${query}`, expiresAt: new Date(expires * 1000) };
  }

  /**
   * Checks a request against the one canonical form `sign` writes: the raw path must be the
   * signed path byte for byte (no percent-encoding, no dot segments), and the raw query
   * exactly the bound parameters (in `boundNames` order, as signed), `expires` as plain
   * decimal digits and `sig`, each once, nothing else. Anything else is 'invalid'.
   */
  verify(method: string, path: string, request: SignedRequest, boundNames: readonly string[] = []): SignatureCheck {
    if (request.path !== path) return 'invalid';
    const query = new URLSearchParams(request.rawQuery);
    const expiresText = query.get('expires') ?? '';
    const sig = query.get('sig') ?? '';
    if (!EXPIRES.test(expiresText) || !SIGNATURE.test(sig)) return 'invalid';
    const expires = Number(expiresText);
    const bound: Record<string, string> = {};
    for (const name of boundNames) {
      const value = query.get(name);
      if (value === null) return 'invalid';
      bound[name] = value;
    }
    if (canonicalQuery(bound, expires, sig) !== request.rawQuery) return 'invalid';
    const expected = Buffer.from(this.mac(method, path, expires, bound));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    return expires * 1000 > this.now() ? 'valid' : 'expired';
  }
}

/** What `verify` reads of a request: its raw (undecoded) path and query string. */
export interface SignedRequest {
  readonly path: string;
  readonly rawQuery: string;
}

/** Unix seconds as plain digits: no sign, fraction, exponent or leading zero. */
const EXPIRES = /^[1-9][0-9]{0,11}$/;
/** base64url of an HMAC-SHA256: 43 characters. */
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

function canonicalQuery(bound: Readonly<Record<string, string>>, expires: number, sig: string): string {
  return new URLSearchParams({ ...bound, expires: String(expires), sig }).toString();
}
