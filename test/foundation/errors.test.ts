import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { ERROR_REGISTRY } from '../../src/platform/errors/error-registry.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

let gw: TestGateway;
let admin: string;
beforeAll(async () => {
  gw = await startTestGateway({ MAX_JSON_BODY_BYTES: '4096' });
  admin = await gw.key({ scopes: ['admin'] });
});
afterAll(async () => gw.close());

type ErrorBody = { error: { type: string; code: string; message: string; param?: string } };

async function post(path: string, body: string | Buffer, contentType: string) {
  const response = await fetch(`${gw.url}${path}`, { method: 'POST', headers: bearer(admin, { 'content-type': contentType }), body });
  return { status: response.status, body: (await response.json()) as ErrorBody };
}

describe('error envelopes', () => {
  it('every registry code has a status, a type and a message', () => {
    for (const [code, def] of Object.entries(ERROR_REGISTRY)) {
      // Per-unit errors of file translation travel inside a 200 results response, never as a status.
      if (def.type === 'translation_unit_error') expect(def.status, code).toBe(200);
      else expect(def.status, code).toBeGreaterThanOrEqual(400);
      expect(def.type.length, code).toBeGreaterThan(0);
      expect(def.message.length, code).toBeGreaterThan(0);
    }
  });

  it('unknown routes get 404 resource_not_found in the unified envelope', async () => {
    const response = await fetch(`${gw.url}/v1/does-not-exist`);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { type: 'not_found_error', code: 'resource_not_found' } });
  });

  it('unknown job-API routes get 404 as {detail}', async () => {
    const response = await fetch(`${gw.url}/transcribe/x/y/z`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Not Found' });
  });

  it('unsupported methods get 405 with Allow', async () => {
    const response = await fetch(`${gw.url}/v1/usage`, { method: 'PUT', headers: bearer(admin) });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(((await response.json()) as ErrorBody).error.code).toBe('method_not_allowed');
  });

  it('malformed JSON gets 400 invalid_json', async () => {
    const { status, body } = await post('/v1/admin/keys', '{"account": ', 'application/json');
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
  });

  it('a missing field gets 400 missing_required_field with param', async () => {
    const { status, body } = await post('/v1/admin/keys', '{}', 'application/json');
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'missing_required_field', param: 'account' });
  });

  it('a wrongly typed field gets 400 invalid_field_value with param', async () => {
    const { status, body } = await post('/v1/admin/keys', JSON.stringify({ account: 'a', scopes: 'read' }), 'application/json');
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_field_value', param: 'scopes' });
  });

  it('a wrong content type gets 415 unsupported_content_type', async () => {
    const { status, body } = await post('/v1/admin/keys', 'account=a', 'application/x-www-form-urlencoded');
    expect(status).toBe(415);
    expect(body.error.code).toBe('unsupported_content_type');
  });

  it('an oversized body gets 413 payload_too_large, declared or streamed', async () => {
    const big = JSON.stringify({ account: 'a'.repeat(10_000) });
    const { status, body } = await post('/v1/admin/keys', big, 'application/json');
    expect(status).toBe(413);
    expect(body.error.code).toBe('payload_too_large');
    // Chunked upload without Content-Length: the limit is enforced while streaming.
    const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${gw.url}/v1/admin/keys`, {
        method: 'POST',
        headers: { ...bearer(admin), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      for (let i = 0; i < 10; i++) req.write(big.slice(i * 1000, (i + 1) * 1000));
      req.end(big.slice(10_000));
    });
    expect(streamed.status).toBe(413);
    expect(JSON.parse(streamed.body).error.code).toBe('payload_too_large');
  });

  it('still serves requests after a flood of bad ones', async () => {
    await Promise.all(Array.from({ length: 20 }, () => post('/v1/admin/keys', '{bad', 'application/json')));
    expect((await fetch(`${gw.url}/health`)).status).toBe(200);
  });

  it('answers CORS preflight requests', async () => {
    const response = await fetch(`${gw.url}/v1/usage`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect(response.headers.get('access-control-allow-headers')).toContain('Authorization');
  });
});
