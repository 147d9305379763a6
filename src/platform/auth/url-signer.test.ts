import { describe, expect, it } from 'vitest';
import { UrlSigner, type SignedRequest } from './url-signer.js';

describe('UrlSigner', () => {
  let now = Date.parse('2026-01-01T00:00:00Z');
  const signer = new UrlSigner(Buffer.from('s'.repeat(48)), 'https://gw.example', () => now);

  const request = (url: string): SignedRequest => {
    const parsed = new URL(url);
    return { path: parsed.pathname, rawQuery: parsed.search.slice(1) };
  };
  const withQuery = (query: URLSearchParams | string, path = '/files/abc'): SignedRequest => ({ path, rawQuery: String(query) });

  it('accepts its own URL until it expires', () => {
    const { url, expiresAt } = signer.sign('GET', '/files/abc', 3600, { disposition: 'inline' });
    expect(url.startsWith('https://gw.example/files/abc?')).toBe(true);
    expect(expiresAt.toISOString()).toBe('2026-01-01T01:00:00.000Z');
    expect(signer.verify('GET', '/files/abc', request(url), ['disposition'])).toBe('valid');
    now += 3601_000;
    expect(signer.verify('GET', '/files/abc', request(url), ['disposition'])).toBe('expired');
    now -= 3601_000;
  });

  it('rejects any alteration of path, method, expiry, bound parameters or signature', () => {
    const { url } = signer.sign('GET', '/files/abc', 60, { disposition: 'inline' });
    const q = new URL(url).searchParams;
    expect(signer.verify('GET', '/files/abd', request(url), ['disposition'])).toBe('invalid');
    expect(signer.verify('PUT', '/files/abc', request(url), ['disposition'])).toBe('invalid');
    const later = new URLSearchParams(q);
    later.set('expires', String(Number(q.get('expires')) + 3600));
    expect(signer.verify('GET', '/files/abc', withQuery(later), ['disposition'])).toBe('invalid');
    const other = new URLSearchParams(q);
    other.set('disposition', 'attachment');
    expect(signer.verify('GET', '/files/abc', withQuery(other), ['disposition'])).toBe('invalid');
    const forged = new URLSearchParams(q);
    forged.set('sig', 'A'.repeat(43));
    expect(signer.verify('GET', '/files/abc', withQuery(forged), ['disposition'])).toBe('invalid');
    expect(signer.verify('GET', '/files/abc', withQuery(''), [])).toBe('invalid');
  });

  it('accepts only the canonical form it signs', () => {
    const { url } = signer.sign('GET', '/files/abc', 60, { disposition: 'inline' });
    const { rawQuery } = request(url);
    const q = new URL(url).searchParams;
    const expires = q.get('expires')!;
    const sig = q.get('sig')!;
    const refused = [
      `${rawQuery}&expires=${expires}`, // duplicated expires
      `${rawQuery}&sig=${sig}`, // duplicated sig
      `${rawQuery}&extra=1`, // an extra parameter
      `extra=1&${rawQuery}`,
      rawQuery.replace(`expires=${expires}`, `expires=${expires}.0`), // non-canonical numbers
      rawQuery.replace(`expires=${expires}`, `expires=0${expires}`),
      rawQuery.replace(`expires=${expires}`, `expires=${expires}e0`),
      rawQuery.replace(`expires=${expires}`, `expires=%2B${expires}`),
      rawQuery.replace(`expires=${expires}`, `expires=${encodeURIComponent(expires).replace('1', '%31')}`), // encoded digits
      `expires=${expires}&disposition=inline&sig=${sig}`, // reordered
    ];
    for (const raw of refused) expect(signer.verify('GET', '/files/abc', withQuery(raw), ['disposition']), raw).toBe('invalid');
    for (const path of ['/files/%61bc', '/files/./abc', '/x/../files/abc', '/files/abc/', '/files//abc']) {
      expect(signer.verify('GET', '/files/abc', withQuery(rawQuery, path), ['disposition']), path).toBe('invalid');
    }
    expect(signer.verify('GET', '/files/abc', withQuery(rawQuery), ['disposition'])).toBe('valid');
  });
});
