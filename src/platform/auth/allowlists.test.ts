import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, looksLikeApiKey } from './api-key-secrets.js';
import { addressAllowed, cidrProblem } from '../net/ip-allowlist.js';
import { originAllowed, originProblem } from './origin-allowlist.js';

describe('IP allowlists', () => {
  it('matches IPv4 and IPv6 ranges, bare addresses and IPv4-mapped IPv6', () => {
    expect(addressAllowed('10.2.3.4', ['10.0.0.0/8'])).toBe(true);
    expect(addressAllowed('11.2.3.4', ['10.0.0.0/8'])).toBe(false);
    expect(addressAllowed('::ffff:10.2.3.4', ['10.0.0.0/8'])).toBe(true);
    expect(addressAllowed('2001:db8::5', ['2001:db8::/32'])).toBe(true);
    expect(addressAllowed('2001:db9::5', ['2001:db8::/32'])).toBe(false);
    expect(addressAllowed('192.0.2.7', ['192.0.2.7'])).toBe(true);
    expect(addressAllowed('garbage', ['0.0.0.0/0'])).toBe(false);
  });
});

describe('origin allowlists', () => {
  it('compares normalised origins and supports subdomain wildcards', () => {
    const list = ['https://app.example.com', 'https://*.example.org', 'http://localhost:3000'];
    expect(originAllowed('https://APP.example.com', list)).toBe(true);
    expect(originAllowed('https://app.example.com:443', list)).toBe(true);
    expect(originAllowed('http://app.example.com', list)).toBe(false);
    expect(originAllowed('https://a.b.example.org', list)).toBe(true);
    expect(originAllowed('https://example.org', list)).toBe(false);
    expect(originAllowed('https://evilexample.org', list)).toBe(false);
    expect(originAllowed('http://localhost:3000', list)).toBe(true);
    expect(originAllowed('null', list)).toBe(false);
  });
});

describe('allowlist entries', () => {
  it.each([
    { list: 'IP', problem: cidrProblem, valid: ['10.0.0.0/8', '::1'], invalid: ['10.0.0.0/33', 'example.com'] },
    {
      list: 'origin',
      problem: originProblem,
      valid: ['https://app.example.com', 'https://*.example.com'],
      invalid: ['https://app.example.com/path', 'app.example.com'],
    },
  ])('$list entries are validated: no problem with a valid one, a problem named for each other', ({ problem, valid, invalid }) => {
    for (const entry of valid) expect(problem(entry), entry).toBeNull();
    for (const entry of invalid) expect(problem(entry), entry).not.toBeNull();
  });
});

describe('API key secrets', () => {
  it('generates distinct, well-formed keys whose hash is stable', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a.key).not.toBe(b.key);
    expect(looksLikeApiKey(a.key)).toBe(true);
    expect(a.prefix).toBe(a.key.slice(0, 11));
    expect(a.hash).toBe(hashApiKey(a.key));
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
