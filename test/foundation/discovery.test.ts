import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => gw.close());

describe('discovery', () => {
  it('GET /health answers without a credential with every component', async () => {
    const response = await fetch(`${gw.url}/health`);
    expect(response.status).toBe(200);
    const health = (await response.json()) as Record<string, any>;
    expect(['ok', 'degraded']).toContain(health['status']);
    for (const field of ['version', 'languages', 'default_language', 'models', 'device', 'vad', 'storage', 'queue', 'cache', 'rate_limiter']) {
      expect(health, field).toHaveProperty(field);
    }
    expect(health['storage'].database).toEqual({ backend: 'sqlite', ok: true });
    expect(health['storage'].files).toEqual({ backend: 'local', ok: true });
  });

  it('GET / lists the public endpoints and needs no credential', async () => {
    const root = (await (await fetch(`${gw.url}/`)).json()) as { endpoints: { method: string; path: string }[] };
    const paths = root.endpoints.map((e) => `${e.method} ${e.path}`);
    expect(paths).toContain('GET /health');
    expect(paths).toContain('GET /v1/languages');
    expect(paths.some((p) => p.includes('/admin/'))).toBe(false);
  });

  it('GET /v1/languages lists codes, loaded models and the default language', async () => {
    const key = await gw.key();
    const body = (await (await fetch(`${gw.url}/v1/languages`, { headers: bearer(key) })).json()) as Record<string, unknown>;
    expect(body).toHaveProperty('languages');
    expect(body).toHaveProperty('loaded_models');
    expect(body['default_language']).toBe('am');
  });

  it('/openapi.json is a valid OpenAPI 3.1 document that declares the security of each operation', async () => {
    const doc = (await (await fetch(`${gw.url}/openapi.json`)).json()) as Record<string, any>;
    expect(doc['openapi']).toBe('3.1.0');
    expect(doc['info'].version).toBe('4.0.0');
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc['paths']['/'].get.security).toEqual([]);
    expect(doc['paths']['/health'].get.security).toEqual([]);
    expect(doc['paths']['/v1/languages'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(doc['components'].schemas.Error).toBeDefined();
    expect(doc['paths']['/v1/languages'].get.responses['401'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
  });

  it('serves /llms.txt and /llms-full.txt', async () => {
    const index = await fetch(`${gw.url}/llms.txt`);
    expect(index.headers.get('content-type')).toContain('text/markdown');
    const text = await index.text();
    expect(text).toContain('/openapi.json');
    expect(text).toContain('GET /v1/usage');
    const full = await (await fetch(`${gw.url}/llms-full.txt`)).text();
    expect(full).toContain('rate_limit_exceeded');
    expect(full).toContain('### GET /v1/usage');
  });

  it('exports Prometheus metrics on the metrics listener, not on the public port', async () => {
    await fetch(`${gw.url}/health`);
    expect((await fetch(`${gw.url}/metrics`)).status).toBe(404);
    const text = await (await fetch(gw.metricsUrl!)).text();
    expect(text).toContain('gateway_http_requests_total');
    expect(text).toContain('route="/health"');
  });
});
