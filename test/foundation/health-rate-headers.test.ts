import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

/** "Every response carries X-RateLimit-*": GET /health too, per client address, never refused. */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '5' });
});
afterAll(async () => gw?.close());

async function health(): Promise<{ status: number; limit: string | null; remaining: number; reset: number }> {
  const response = await fetch(`${gw.url}/health`);
  await response.arrayBuffer();
  return {
    status: response.status,
    limit: response.headers.get('x-ratelimit-limit'),
    remaining: Number(response.headers.get('x-ratelimit-remaining')),
    reset: Number(response.headers.get('x-ratelimit-reset')),
  };
}

/** One pass; false when the fixed minute window rolled over meanwhile (the counts restart). */
async function pass(): Promise<boolean> {
  const first = await health();
  expect(first.status).toBe(200);
  expect(first.limit).toBe('5');
  expect(first.reset).toBeGreaterThan(Date.now() / 1000);
  expect(first.reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
  if (first.remaining < 2) {
    // Spent by an earlier pass: start again in the next window.
    await new Promise((resolve) => setTimeout(resolve, first.reset * 1000 - Date.now() + 100));
    return false;
  }
  // Health checks do not spend the window ...
  for (let i = 0; i < 10; i++) expect((await health()).status).toBe(200);
  const unchanged = await health();
  // ... but they report what anonymous calls from this address did spend.
  expect((await fetch(`${gw.url}/`)).status).toBe(200);
  const spent = await health();
  for (let i = 0; i < 10; i++) await fetch(`${gw.url}/`);
  const exhausted = await health();
  if (exhausted.reset !== first.reset) return false;
  expect(unchanged.remaining).toBe(first.remaining);
  expect(spent.remaining).toBe(first.remaining - 1);
  expect(exhausted.status).toBe(200);
  expect(exhausted.remaining).toBe(0);
  return true;
}

describe('GET /health rate-limit headers', () => {
  it('carries the caller address window, is never counted nor refused', async () => {
    let passed = false;
    for (let attempt = 0; attempt < 3 && !passed; attempt++) passed = await pass();
    expect(passed).toBe(true);
  }, 150_000);
});
