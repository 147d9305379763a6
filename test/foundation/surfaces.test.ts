import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';

let gw: TestGateway;
let key: string;
let revokedKey: string;
beforeAll(async () => {
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '1000' });
  key = await gw.key();
  const revoked = await gw.gateway.keys.create({ account: 'test-account' });
  await gw.gateway.keys.revoke(revoked.record.id);
  revokedKey = revoked.key;
});
afterAll(async () => gw.close());

describe('the job API (X-API-Key) speaks {detail}', () => {
  const submit = (headers: Record<string, string>, body: unknown = { audio_urls: ['https://example.com/a.mp3'], language: 'am' }) =>
    fetch(`${gw.url}/transcribe`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('401 with the quoted message when the header is missing', async () => {
    const response = await submit({});
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ detail: 'Missing API Key. Include X-API-Key header.' });
  });

  it('403 "Invalid API Key." for an unknown key', async () => {
    const response = await submit({ 'x-api-key': 'sk_unknown' });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ detail: 'Invalid API Key.' });
  });

  it('403 "API Key has been deactivated." for a revoked key', async () => {
    const response = await submit({ 'x-api-key': revokedKey });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ detail: 'API Key has been deactivated.' });
  });

  it('403 "Admin access required" for a non-admin key on an admin endpoint', async () => {
    const response = await fetch(`${gw.url}/v1/admin/keys`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('admin_required');
  });

  it('422 with [{loc, msg, type}] for an invalid body', async () => {
    const response = await submit({ 'x-api-key': key }, { language: 'am' });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { detail: { loc: unknown[]; msg: string; type: string }[] };
    expect(body.detail[0]).toMatchObject({ loc: ['body', 'audio_urls'], type: 'missing' });
    const typed = await submit({ 'x-api-key': key }, { audio_urls: 'x', language: 'am' });
    expect(((await typed.json()) as { detail: { loc: unknown[] }[] }).detail[0]!.loc).toEqual(['body', 'audio_urls']);
  });

  it('422 for malformed JSON', async () => {
    const response = await fetch(`${gw.url}/transcribe`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: '{' });
    expect(response.status).toBe(422);
    expect(((await response.json()) as { detail: { type: string }[] }).detail[0]!.type).toBe('json_invalid');
  });

  it('404 {detail} for an unknown job', async () => {
    const response = await fetch(`${gw.url}/transcribe/tr_000`, { headers: { 'x-api-key': key } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: 'Job not found' });
  });

  it('does not accept the bearer header in place of X-API-Key', async () => {
    const response = await fetch(`${gw.url}/transcribe/tr_000`, { headers: { authorization: `Bearer ${key}` } });
    expect(response.status).toBe(401);
  });
});

describe('text translation takes the key as a form field', () => {
  const translate = (fields: Record<string, string>) =>
    fetch(`${gw.url}/translate/v1`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });

  it('400 missing_required_field with param for a missing field', async () => {
    const response = await translate({ text: 'hello', src_lang: 'en', tgt_lang: 'am' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: 'missing_required_field', param: 'key' } });
    const noText = await translate({ key, src_lang: 'en', tgt_lang: 'am' });
    expect(await noText.json()).toMatchObject({ error: { code: 'missing_required_field', param: 'text' } });
  });

  it('401 invalid_api_key for an unknown key, revoked_api_key for a revoked one', async () => {
    const response = await translate({ key: 'sk_nope', text: 'hello', src_lang: 'en', tgt_lang: 'am' });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_api_key' } });
    const revoked = await translate({ key: revokedKey, text: 'hello', src_lang: 'en', tgt_lang: 'am' });
    expect(await revoked.json()).toMatchObject({ error: { code: 'revoked_api_key' } });
  });

  it('400 for an unsupported or identical language pair', async () => {
    const unsupported = await translate({ key, text: 'hello', src_lang: 'en', tgt_lang: 'om' });
    expect(await unsupported.json()).toMatchObject({ error: { code: 'invalid_field_value', param: 'tgt_lang' } });
    const same = await translate({ key, text: 'hello', src_lang: 'am', tgt_lang: 'am' });
    expect(await same.json()).toMatchObject({ error: { code: 'invalid_field_value', param: 'tgt_lang' } });
  });

  it('carries rate-limit headers', async () => {
    const response = await translate({ key, text: 'hello', src_lang: 'en', tgt_lang: 'am' });
    expect(response.headers.get('x-ratelimit-limit')).toBe('1000');
  });
});
