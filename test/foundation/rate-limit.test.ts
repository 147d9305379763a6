import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '5' });
});
afterAll(async () => gw.close());

describe('rate limits', () => {
  it('sends X-RateLimit headers and answers 429 with retry_after and Retry-After', async () => {
    const key = await gw.key();
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${gw.url}/v1/languages`, { headers: bearer(key) });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-limit')).toBe('5');
      const reset = Number(response.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThan(Date.now() / 1000);
      expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
      remaining.push(response.headers.get('x-ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);
    const refused = await fetch(`${gw.url}/v1/languages`, { headers: bearer(key) });
    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const body = (await refused.json()) as { error: { type: string; code: string; retry_after: number } };
    expect(body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(body.error.retry_after).toBe(retryAfter);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('counts each key separately and honours per-key overrides', async () => {
    const generous = await gw.key({ limits: { requestsPerMinute: 8 } });
    for (let i = 0; i < 8; i++) expect((await fetch(`${gw.url}/v1/usage`, { headers: bearer(generous) })).status).toBe(200);
    expect((await fetch(`${gw.url}/v1/usage`, { headers: bearer(generous) })).status).toBe(429);
    const other = await gw.key();
    expect((await fetch(`${gw.url}/v1/usage`, { headers: bearer(other) })).status).toBe(200);
  });

  it('reports minute, hour and day usage', async () => {
    const key = await gw.key({ limits: { requestsPerMinute: 50 } });
    await fetch(`${gw.url}/v1/languages`, { headers: bearer(key) });
    const usage = (await (await fetch(`${gw.url}/v1/usage`, { headers: bearer(key) })).json()) as Record<string, any>;
    expect(usage).toMatchObject({ object: 'usage', requests_used: 2, requests_limit: 50, concurrent_jobs_limit: 10 });
    expect(usage['requests'].hour.used).toBe(2);
    expect(usage['requests'].day.used).toBe(2);
    expect(usage['history'].at(-1).requests).toBe(2);
    expect(usage['history']).toHaveLength(30);
  });

  it('does not rate limit /health', async () => {
    for (let i = 0; i < 8; i++) expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });
});
