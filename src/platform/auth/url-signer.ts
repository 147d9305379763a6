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
    const query = new URLSearchParams({ ...bound, expires: String(expires), sig: this.mac(method, path, expires, bound) });
    return { url: `${this.baseUrl}${path}?${query.toString()}`, expiresAt: new Date(expires * 1000) };
  }

  verify(method: string, path: string, query: URLSearchParams, boundNames: readonly string[] = []): SignatureCheck {
    const expires = Number(query.get('expires'));
    const sig = query.get('sig') ?? '';
    if (!Number.isInteger(expires) || sig === '') return 'invalid';
    const bound: Record<string, string> = {};
    for (const name of boundNames) bound[name] = query.get(name) ?? '';
    const expected = Buffer.from(this.mac(method, path, expires, bound));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    return expires * 1000 > this.now() ? 'valid' : 'expired';
  }
}
