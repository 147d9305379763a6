import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from './webhook-signature.js';

describe('webhook signatures', () => {
  const secret = 'whsec_0123456789abcdef0123456789abcdef';
  const body = '{"id":"evt_1","event":"job.completed"}';

  it('is t=<seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">', () => {
    const header = signatureHeader(secret, body, 1_700_000_000);
    const hex = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(header).toBe(`t=1700000000,v1=${hex}`);
  });

  it('verifies within the tolerance window and refuses replays, other bodies and other secrets', () => {
    const header = signatureHeader(secret, body, 1_700_000_000);
    expect(verifySignature(header, body, secret, { now: 1_700_000_100 })).toBe(true);
    expect(verifySignature(header, Buffer.from(body), secret, { now: 1_700_000_000 })).toBe(true);
    expect(verifySignature(header, body, secret, { now: 1_700_000_301 })).toBe(false);
    expect(verifySignature(header, body, secret, { now: 1_700_000_301, toleranceSeconds: 600 })).toBe(true);
    expect(verifySignature(header, `${body} `, secret, { now: 1_700_000_000 })).toBe(false);
    expect(verifySignature(header, body, `${secret}x`, { now: 1_700_000_000 })).toBe(false);
    // Moving the timestamp forward breaks the MAC: t is signed.
    const replayed = header.replace('t=1700000000', 't=1700000300');
    expect(verifySignature(replayed, body, secret, { now: 1_700_000_300 })).toBe(false);
    expect(verifySignature(undefined, body, secret)).toBe(false);
    expect(verifySignature('v1=abc', body, secret)).toBe(false);
  });
});
