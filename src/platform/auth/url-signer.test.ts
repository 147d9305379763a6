import { describe, expect, it } from 'vitest';
import { UrlSigner } from './url-signer.js';

describe('UrlSigner', () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const signer = new UrlSigner(Buffer.from('s'.repeat(48)), 'https://gw.example', () => now);

  const query = (url: string) => new URL(url).searchParams;

  it('accepts its own URL until it expires', () => {
    const { url, expiresAt } = signer.sign('GET', '/files/abc', 3600, { disposition: 'inline' });
    expect(url.startsWith('https://gw.example/files/abc?')).toBe(true);
    expect(expiresAt.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(signer.verify('GET', '/files/abc', query(url), ['disposition'])).toBe('valid');
    now += 3601_000;
    expect(signer.verify('GET', '/files/abc', query(url), ['disposition'])).toBe('expired');
    now -= 3601_000;
  });

  it('rejects any alteration of path, method, expiry, bound parameters or signature', () => {
    const { url } = signer.sign('GET', '/files/abc', 60, { disposition: 'inline' });
    const q = query(url);
    expect(signer.verify('GET', '/files/abd', q, ['disposition'])).toBe('invalid');
    expect(signer.verify('PUT', '/files/abc', q, ['disposition'])).toBe('invalid');
    const later = new URLSearchParams(q);
    later.set('expires', String(Number(q.get('expires')) + 3600));
    expect(signer.verify('GET', '/files/abc', later, ['disposition'])).toBe('invalid');
    const other = new URLSearchParams(q);
    other.set('disposition', 'attachment');
    expect(signer.verify('GET', '/files/abc', other, ['disposition'])).toBe('invalid');
    const forged = new URLSearchParams(q);
    forged.set('sig', 'A'.repeat(43));
    expect(signer.verify('GET', '/files/abc', forged, ['disposition'])).toBe('invalid');
    expect(signer.verify('GET', '/files/abc', new URLSearchParams(), [])).toBe('invalid');
  });
});
