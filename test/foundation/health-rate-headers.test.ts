import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

/** "Every response carries X-RateLimit-*": GET /health too, per client address, never refused. */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '5' });
});
afterAll(async () => gw?.close());

describe('GET /health rate-limit headers', () => {
  it('carries the caller address window, is never counted nor refused', async () => {
    const first = await fetch(`${gw.url}/health`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    // Health checks do not spend the window ...
    for (let i = 0; i < 10; i++) expect((await fetch(`${gw.url}/health`)).status).toBe(200);
    expect(Number((await fetch(`${gw.url}/health`)).headers.get('x-ratelimit-remaining'))).toBe(remaining);
    // ... but they report what anonymous calls from this address did spend.
    expect((await fetch(`${gw.url}/`)).status).toBe(200);
    expect(Number((await fetch(`${gw.url}/health`)).headers.get('x-ratelimit-remaining'))).toBe(remaining - 1);
    for (let i = 0; i < 10; i++) await fetch(`${gw.url}/`);
    const exhausted = await fetch(`${gw.url}/health`);
    expect(exhausted.status).toBe(200);
    expect(exhausted.headers.get('x-ratelimit-remaining')).toBe('0');
  });
});
