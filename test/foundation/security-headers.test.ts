import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

/** Every HTTP response says X-Content-Type-Options: nosniff, whatever its status or body type. */
let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => gw?.close());

describe('X-Content-Type-Options', () => {
  it.each([
    ['GET', '/health', 200],
    ['GET', '/', 200],
    ['GET', '/openapi.json', 200],
    ['GET', '/v1/languages', 401],
    ['GET', '/no/such/route', 404],
    ['POST', '/v1/transcriptions', 401],
  ])('%s %s (%i) carries nosniff', async (method, path, status) => {
    const response = await fetch(`${gw.url}${path}`, { method });
    await response.arrayBuffer();
    expect(response.status).toBe(status);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});
