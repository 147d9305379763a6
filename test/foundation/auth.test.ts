import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/platform/auth/api-key-secrets.js';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => gw.close());

async function languages(headers: Record<string, string>) {
  const response = await fetch(`${gw.url}/v1/languages`, { headers });
  return { status: response.status, body: (await response.json()) as { error?: { code: string; type: string; message: string } } };
}

describe('bearer authentication on the unified API', () => {
  it('accepts a valid key', async () => {
    const key = await gw.key();
    const { status } = await languages(bearer(key));
    expect(status).toBe(200);
  });

  it('answers 401 missing_api_key without a header', async () => {
    const { status, body } = await languages({});
    expect(status).toBe(401);
    expect(body.error).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' });
  });

  it('answers 401 invalid_api_key for an unknown key or a malformed header', async () => {
    expect((await languages(bearer('sk_' + 'x'.repeat(40)))).body.error?.code).toBe('invalid_api_key');
    const malformed = await languages({ authorization: 'Basic dXNlcjpwYXNz' });
    expect(malformed.status).toBe(401);
    expect(malformed.body.error?.code).toBe('invalid_api_key');
  });

  it('answers 401 expired_api_key for an expired key', async () => {
    const key = 'sk_' + 'E'.repeat(40);
    const account = await gw.gateway.store.accounts.ensure('expiry');
    await gw.gateway.store.apiKeys.create({
      accountId: account.id,
      name: 'old',
      prefix: key.slice(0, 11),
      hash: hashApiKey(key),
      scopes: ['read'],
      ipAllowlist: null,
      originAllowlist: null,
      limits: {},
      expiresAt: new Date(Date.now() - 1000).toISOString(),
    });
    const { status, body } = await languages(bearer(key));
    expect(status).toBe(401);
    expect(body.error?.code).toBe('expired_api_key');
  });

  it('answers 401 revoked_api_key after revocation', async () => {
    const created = await gw.gateway.keys.create({ account: 'revocation' });
    expect((await languages(bearer(created.key))).status).toBe(200);
    await gw.gateway.keys.revoke(created.record.id);
    const { status, body } = await languages(bearer(created.key));
    expect(status).toBe(401);
    expect(body.error?.code).toBe('revoked_api_key');
  });

  it('answers 403 insufficient_scope when a key lacks the scope', async () => {
    const writeOnly = await gw.key({ scopes: ['write'] });
    expect((await languages(bearer(writeOnly))).status).toBe(200); // write implies read
    const readOnly = await gw.key({ scopes: ['read'] });
    const response = await fetch(`${gw.url}/v1/admin/keys`, {
      method: 'POST',
      headers: bearer(readOnly, { 'content-type': 'application/json' }),
      body: JSON.stringify({ account: 'x' }),
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('admin_required');
  });

  it('enforces the IP allowlist', async () => {
    const blocked = await gw.key({ ipAllowlist: ['10.0.0.0/8'] });
    const refused = await languages(bearer(blocked));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'ip_not_allowed' });
    const allowed = await gw.key({ ipAllowlist: ['10.0.0.0/8', '127.0.0.0/8'] });
    expect((await languages(bearer(allowed))).status).toBe(200);
  });

  it('enforces the origin allowlist for browser requests', async () => {
    const key = await gw.key({ originAllowlist: ['https://app.example.com', 'https://*.example.org'] });
    expect((await languages(bearer(key, { origin: 'https://app.example.com' }))).status).toBe(200);
    expect((await languages(bearer(key, { origin: 'https://eu.example.org' }))).status).toBe(200);
    const refused = await languages(bearer(key, { origin: 'https://evil.example.net' }));
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('origin_not_allowed');
    expect((await languages(bearer(key))).status).toBe(200); // no Origin: not a browser request
  });

  it('stores keys only as hashes', async () => {
    const created = await gw.gateway.keys.create({ account: 'hashing' });
    const db = (gw.gateway.store as unknown as { db: import('better-sqlite3').Database }).db;
    const rows = db.prepare('SELECT * FROM api_keys WHERE id = ?').all(created.record.id) as Record<string, unknown>[];
    expect(JSON.stringify(rows)).not.toContain(created.key);
    expect(rows[0]!['hash']).toBe(hashApiKey(created.key));
  });
});

describe('key management endpoints', () => {
  it('lets an admin key create, list and revoke keys, and hides them from the OpenAPI document', async () => {
    const admin = await gw.key({ scopes: ['admin'] });
    const createdResponse = await fetch(`${gw.url}/v1/admin/keys`, {
      method: 'POST',
      headers: bearer(admin, { 'content-type': 'application/json' }),
      body: JSON.stringify({ account: 'customer', name: 'ci', scopes: ['read'], expires: '7d', limits: { requests_per_minute: 5 } }),
    });
    expect(createdResponse.status).toBe(201);
    const created = (await createdResponse.json()) as { id: string; key: string; scopes: string[]; limits: Record<string, number> };
    expect(created.key).toMatch(/^sk_[0-9A-Za-z]{40}$/);
    expect(created.limits).toEqual({ requests_per_minute: 5 });
    const usage = await fetch(`${gw.url}/v1/usage`, { headers: bearer(created.key) });
    expect(usage.headers.get('x-ratelimit-limit')).toBe('5');

    const listed = (await (await fetch(`${gw.url}/v1/admin/keys?account=customer`, { headers: bearer(admin) })).json()) as {
      data: { id: string; key?: string }[];
    };
    expect(listed.data.map((k) => k.id)).toEqual([created.id]);
    expect(listed.data[0]!.key).toBeUndefined();

    const revoked = await fetch(`${gw.url}/v1/admin/keys/${created.id}/revoke`, { method: 'POST', headers: bearer(admin) });
    expect(((await revoked.json()) as { status: string }).status).toBe('revoked');

    const openapi = (await (await fetch(`${gw.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths).some((p) => p.includes('admin'))).toBe(false);
  });

  it('rejects invalid key options with the field named', async () => {
    const admin = await gw.key({ scopes: ['admin'] });
    const response = await fetch(`${gw.url}/v1/admin/keys`, {
      method: 'POST',
      headers: bearer(admin, { 'content-type': 'application/json' }),
      body: JSON.stringify({ account: 'customer', ip_allowlist: ['not-a-cidr'] }),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'invalid_field_value', param: 'ip_allowlist' } });
  });
});
