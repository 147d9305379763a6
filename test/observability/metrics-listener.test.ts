import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

describe('the metrics listener (default: METRICS_PORT, METRICS_ON_MAIN_PORT=off)', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ METRICS_ENABLED: 'true' });
  });
  afterAll(async () => gw?.close());

  it('serves GET /metrics on its own port, without a key, and nothing else', async () => {
    expect(gw.gateway.metricsPort).toBeGreaterThan(0);
    expect(gw.gateway.metricsPort).not.toBe(gw.gateway.port);
    await fetch(`${gw.url}/health`);
    const scrape = await fetch(gw.metricsUrl!);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toContain('text/plain');
    expect(await scrape.text()).toMatch(/^gateway_http_requests_total\{[^}]*route="\/health"[^}]*\} [1-9]/m);
    const base = gw.metricsUrl!.replace(/\/metrics$/, '');
    expect((await fetch(`${base}/health`)).status).toBe(404);
    expect((await fetch(`${base}/v1/languages`)).status).toBe(404);
    expect((await fetch(gw.metricsUrl!, { method: 'POST', body: 'x' })).status).toBe(405);
  });

  it('the public port answers /metrics with the 404 of any unknown path, key or not', async () => {
    const key = await gw.key({ scopes: ['admin'] });
    for (const headers of [{}, bearer(key)]) {
      const response = await fetch(`${gw.url}/metrics`, { headers });
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain('gateway_http_requests_total');
    }
  });

  it('stops listening when the gateway closes', async () => {
    const own = await startTestGateway();
    const url = own.metricsUrl!;
    expect((await fetch(url)).status).toBe(200);
    await own.close();
    await expect(fetch(url)).rejects.toThrow();
  });
});

describe('a metrics port in use', () => {
  it('fails the start, saying which address and which variable, and closes what it opened', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      await expect(startTestGateway({ METRICS_PORT: String(port) })).rejects.toThrow(
        `could not listen on 127.0.0.1:${port} for metrics (address in use); set METRICS_PORT`,
      );
      // The backends and features it opened were closed: a gateway starts normally afterwards.
      const next = await startTestGateway();
      await next.close();
    } finally {
      taken.close();
    }
  });
});

describe('METRICS_ON_MAIN_PORT=admin', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ METRICS_ON_MAIN_PORT: 'admin', METRICS_PORT: 'off' });
  });
  afterAll(async () => gw?.close());

  it('serves /metrics on the public port to admin keys only, and opens no metrics listener', async () => {
    expect(gw.gateway.metricsPort).toBeNull();
    expect(gw.metricsUrl).toBeNull();
    const anonymous = await fetch(`${gw.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBeTruthy();
    const writer = await fetch(`${gw.url}/metrics`, { headers: bearer(await gw.key({ scopes: ['write'] })) });
    expect(writer.status).toBe(403);
    const admin = await fetch(`${gw.url}/metrics`, { headers: bearer(await gw.key({ scopes: ['admin'] })) });
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain('gateway_http_requests_total');
  });

  it('keeps /metrics out of the public documents', async () => {
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(doc.paths['/metrics']).toBeUndefined();
  });
});

describe('METRICS_ENABLED=false', () => {
  it('serves metrics nowhere', async () => {
    const gw = await startTestGateway({ METRICS_ENABLED: 'false', METRICS_ON_MAIN_PORT: 'admin' });
    try {
      expect(gw.gateway.metricsPort).toBeNull();
      const admin = await fetch(`${gw.url}/metrics`, { headers: bearer(await gw.key({ scopes: ['admin'] })) });
      expect(admin.status).toBe(404);
    } finally {
      await gw.close();
    }
  });
});
