// Authentication of the upgrade (spec: Authentication rule 2) and the session-token flow.
import { describe, expect, it } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { connect, wsUrl, connectReady } from './ws-client.js';

const suite = useTestGateway({ WS_MAX_CONNECTIONS_PER_KEY: '2' }, { scopes: ['write'] });

async function refused(url: string, headers: Record<string, string> = {}) {
  const client = connect(url, headers);
  const closed = await client.closed;
  expect(client.ofType('ready')).toHaveLength(0);
  const errors = client.ofType('error');
  expect(errors).toHaveLength(1);
  expect(errors[0]!.close_code).toBe(closed.code);
  return { ...closed, error: errors[0]!.error };
}

async function mintToken(withKey: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${suite.gw.url}/v1/ws/tokens`, { method: 'POST', headers: bearer(withKey) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('upgrade authentication', () => {
  it('no Authorization header: 4001 missing_api_key', async () => {
    const r = await refused(wsUrl(suite.gw.url));
    expect(r.code).toBe(4001);
    expect(r.error.code).toBe('missing_api_key');
  });

  it('an unknown key: 4003 invalid_api_key', async () => {
    const r = await refused(wsUrl(suite.gw.url), bearer('sk_not_a_real_key'));
    expect(r.code).toBe(4003);
    expect(r.error.code).toBe('invalid_api_key');
  });

  it('a malformed header: 4003', async () => {
    expect((await refused(wsUrl(suite.gw.url), { authorization: 'Basic abc' })).code).toBe(4003);
  });

  it('a revoked key: 4003 revoked_api_key', async () => {
    const created = await suite.gw.gateway.keys.create({ account: 'test-account', scopes: ['write'] });
    await suite.gw.gateway.keys.revoke(created.record.id);
    const r = await refused(wsUrl(suite.gw.url), bearer(created.key));
    expect(r.code).toBe(4003);
    expect(r.error.code).toBe('revoked_api_key');
  });

  it('a read-only key lacks the write scope: 4003 insufficient_scope', async () => {
    const reader = await suite.gw.key({ scopes: ['read'] });
    const r = await refused(wsUrl(suite.gw.url), bearer(reader));
    expect(r.code).toBe(4003);
    expect(r.error.code).toBe('insufficient_scope');
  });

  it('IP and origin allowlists apply to the upgrade: 4003', async () => {
    const blocked = await suite.gw.key({ scopes: ['write'], ipAllowlist: ['10.0.0.0/8'] });
    expect((await refused(wsUrl(suite.gw.url), bearer(blocked))).error.code).toBe('ip_not_allowed');
    const originBound = await suite.gw.key({ scopes: ['write'], originAllowlist: ['https://app.example.com'] });
    expect((await refused(wsUrl(suite.gw.url), bearer(originBound, { origin: 'https://evil.example.net' }))).error.code).toBe('origin_not_allowed');
    const ok = await connectReady(wsUrl(suite.gw.url), bearer(originBound, { origin: 'https://app.example.com' }));
    ok.close();
    await ok.closed;
  });

  it('a bad query parameter: 1008 with the field named', async () => {
    const r = await refused(wsUrl(suite.gw.url, { format: 'mp3' }), bearer(suite.key));
    expect(r.code).toBe(1008);
    expect(r.error).toMatchObject({ code: 'invalid_field_value', param: 'format' });
    const lang = await refused(wsUrl(suite.gw.url, { language: 'xx' }), bearer(suite.key));
    expect(lang.code).toBe(1008);
    expect(lang.error.code).toBe('UNSUPPORTED_LANGUAGE');
  });

  it('the deprecated lang alias selects the language', async () => {
    const client = connect(wsUrl(suite.gw.url, { lang: 'am' }), bearer(suite.key));
    expect((await client.waitFor('ready')).language).toBe('am');
    client.close();
    await client.closed;
  });

  it('the endpoint is listed in GET /, /openapi.json and /llms-full.txt, with the message schema', async () => {
    const root = (await (await fetch(`${suite.gw.url}/`)).json()) as { endpoints: { method: string; path: string }[] };
    expect(root.endpoints).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ method: 'GET', path: '/v1/ws/transcribe' }),
        expect.objectContaining({ method: 'POST', path: '/v1/ws/tokens' }),
      ]),
    );
    const openapi = (await (await fetch(`${suite.gw.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
    };
    const params = openapi.paths['/v1/ws/transcribe']!['get']!.parameters!.map((p) => p.name);
    expect(params).toEqual(expect.arrayContaining(['language', 'lang', 'format', 'turn_detection', 'vad_type', 'token']));
    const full = await (await fetch(`${suite.gw.url}/llms-full.txt`)).text();
    expect(full).toContain('turn_detected');
    const schema = (await (await fetch(`${suite.gw.url}/v1/ws/schema`)).json()) as { anyOf: { properties: { type: { const: string } } }[] };
    expect(schema.anyOf.map((m) => m.properties.type.const)).toEqual(
      expect.arrayContaining(['ready', 'chunk_received', 'transcription', 'turn_detected', 'pong', 'error', 'partial']),
    );
  });

  it('a plain GET without the upgrade answers 426', async () => {
    const response = await fetch(`${suite.gw.url}/v1/ws/transcribe`, { headers: bearer(suite.key) });
    expect(response.status).toBe(426);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('upgrade_required');
  });
});

describe('session tokens (browsers)', () => {
  it('POST /v1/ws/tokens mints a single-use token accepted as ?token=', async () => {
    const minted = await mintToken(suite.key);
    expect(minted.status).toBe(201);
    expect(minted.body).toMatchObject({ object: 'ws_token', expires_in: 60 });
    const token = minted.body['token'] as string;
    expect(minted.body['url']).toBe(`/v1/ws/transcribe?token=${token}`);
    const client = await connectReady(wsUrl(suite.gw.url, { token }));
    client.close();
    await client.closed;
    const again = await refused(wsUrl(suite.gw.url, { token }));
    expect(again.code).toBe(4003);
    expect(again.error.code).toBe('invalid_session_token');
  });

  it('a made-up token: 4003; minting needs the write scope', async () => {
    expect((await refused(wsUrl(suite.gw.url, { token: 'wst_' + 'a'.repeat(32) }))).code).toBe(4003);
    const reader = await suite.gw.key({ scopes: ['read'] });
    expect((await mintToken(reader)).status).toBe(403);
    const noKey = await fetch(`${suite.gw.url}/v1/ws/tokens`, { method: 'POST' });
    expect(noKey.status).toBe(401);
  });

  it('a token of a key revoked after minting is refused', async () => {
    const created = await suite.gw.gateway.keys.create({ account: 'test-account', scopes: ['write'] });
    const token = (await mintToken(created.key)).body['token'] as string;
    await suite.gw.gateway.keys.revoke(created.record.id);
    const r = await refused(wsUrl(suite.gw.url, { token }));
    expect(r.code).toBe(4003);
    expect(r.error.code).toBe('revoked_api_key');
  });
});

describe('daily audio quota', () => {
  it('a key whose audio minutes for today are used up is refused with 4029 daily_quota_exceeded', async () => {
    const small = await suite.gw.key({ scopes: ['write'], limits: { dailyAudioMinutes: 0.02 } });
    const client = await connectReady(wsUrl(suite.gw.url), bearer(small));
    client.send(Buffer.alloc(32_000 * 2));
    client.send('END');
    await client.closed;
    const r = await refused(wsUrl(suite.gw.url), bearer(small));
    expect(r.code).toBe(4029);
    expect(r.error.code).toBe('daily_quota_exceeded');
  });
});

describe('connection limit', () => {
  it('the key limit + 1st connection closes with 4029; a slot frees when a session ends', async () => {
    const limited = await suite.gw.key({ scopes: ['write'] });
    const a = connect(wsUrl(suite.gw.url), bearer(limited));
    const b = connect(wsUrl(suite.gw.url), bearer(limited));
    await Promise.all([a.waitFor('ready'), b.waitFor('ready')]);
    const usage = (await (await fetch(`${suite.gw.url}/v1/usage`, { headers: bearer(limited) })).json()) as Record<string, unknown>;
    expect(usage).toMatchObject({ websocket_connections: 2, websocket_connections_limit: 2 });
    const c = await refused(wsUrl(suite.gw.url), bearer(limited));
    expect(c.code).toBe(4029);
    expect(c.error.code).toBe('connection_limit_exceeded');
    a.close();
    await a.closed;
    const d = await connectReady(wsUrl(suite.gw.url), bearer(limited));
    // Another key is not affected.
    const other = await connectReady(wsUrl(suite.gw.url), bearer(suite.key));
    for (const s of [b, d, other]) s.close();
    await Promise.all([b.closed, d.closed, other.closed]);
  });

  it('a per-key override of the connection limit applies', async () => {
    const one = await suite.gw.key({ scopes: ['write'], limits: { wsConnections: 1 } });
    const a = await connectReady(wsUrl(suite.gw.url), bearer(one));
    expect((await refused(wsUrl(suite.gw.url), bearer(one))).code).toBe(4029);
    a.close();
    await a.closed;
  });
});
