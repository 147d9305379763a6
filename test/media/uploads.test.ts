import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { MEDIA_DIR } from '../helpers/tls-servers.js';

type ErrorBody = { error: { type: string; code: string; message: string; param?: string } };
type MediaFile = {
  object: string;
  file_id: string;
  status: string;
  filename: string;
  content_type: string;
  size_bytes: number | null;
  format: string | null;
  duration_seconds: number | null;
  file_url: string;
  svc_uri: string;
  created_at: string;
  uploaded_at: string | null;
  finalized_at: string | null;
};
type Playback = MediaFile & { playback_url: string; expires_at: string; expires_in: number };
type SignedUpload = {
  upload_url: string;
  file_url: string;
  file_id: string;
  svc_uri: string;
  method: string;
  headers: Record<string, string>;
  expires_at: string;
};

const fixture = (name: string): Buffer => readFileSync(join(MEDIA_DIR, name));

let gw: TestGateway;
let key: string;
let otherKey: string;

beforeAll(async () => {
  // 60 kB per file: the WAV fixture (53 kB) fits, a 70 kB body does not.
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '10000', MAX_AUDIO_BYTES: '60kB' });
  key = await gw.key();
  otherKey = await gw.key({ account: 'another-account' });
});
afterAll(async () => gw?.close());

async function upload(name: string, bytes: Buffer, apiKey = key, field = 'file', type = 'application/octet-stream') {
  const form = new FormData();
  form.append(field, new Blob([bytes], { type }), name);
  const response = await fetch(`${gw.url}/v1/uploads`, { method: 'POST', headers: bearer(apiKey), body: form });
  return { status: response.status, headers: response.headers, body: (await response.json()) as MediaFile & ErrorBody };
}

async function get<T>(path: string, apiKey = key): Promise<{ status: number; body: T }> {
  const response = await fetch(`${gw.url}${path}`, { headers: bearer(apiKey) });
  return { status: response.status, body: (await response.json()) as T };
}

/** Files the gateway holds on disk under an account's media folder. */
function storedFiles(): string[] {
  const root = join(gw.dataDir, 'files', 'accounts');
  if (!existsSync(root)) return [];
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (!entry.name.endsWith('.meta')) out.push(join(dir, entry.name));
    }
  };
  walk(root);
  return out.filter((f) => f.includes('/media/'));
}

describe('POST /v1/uploads', () => {
  it.each([
    ['hello-am.mp3', 'mp3', 'audio/mpeg'],
    ['hello-am.wav', 'wav', 'audio/wav'],
    ['hello-am.ogg', 'ogg', 'audio/ogg'],
    ['hello-am.flac', 'flac', 'audio/flac'],
    ['hello-am.m4a', 'm4a', 'audio/mp4'],
    ['hello-am.webm', 'webm', 'audio/webm'],
    ['clip.webm', 'webm', 'video/webm'],
  ])('stores %s as a media asset, recognised by its content', async (name, format, contentType) => {
    const bytes = fixture(name);
    const { status, headers, body } = await upload(name, bytes);
    expect(status).toBe(201);
    expect(body).toMatchObject({ object: 'media', status: 'ready', filename: name, format, content_type: contentType, size_bytes: bytes.length });
    expect(body.file_id).toMatch(/^file_[0-9a-f]{24}$/);
    expect(body.file_url).toBe(`${gw.gateway.baseUrl}/v1/media/${body.file_id}`);
    expect(body.svc_uri).toBe(`svc://media/${body.file_id}`);
    expect(body.duration_seconds).toBeGreaterThan(0.9);
    expect(body.duration_seconds).toBeLessThan(2.0);
    expect(body.finalized_at).not.toBeNull();
    expect(headers.get('location')).toBe(`/v1/media/${body.file_id}`);
  });

  it.each([
    ['not-audio.txt', 'is not audio'],
    ['fake.wav', 'could not be read as audio'],
  ])('refuses %s with 400 invalid_audio_format and keeps nothing', async (name, reason) => {
    const before = storedFiles().length;
    const { status, body } = await upload(name, fixture(name));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_audio_format', param: 'file' });
    expect(body.error.message).toContain(reason);
    expect(storedFiles().length).toBe(before);
  });

  it('refuses an empty file', async () => {
    const { status, body } = await upload('empty.mp3', Buffer.alloc(0));
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_audio_format');
  });

  it('answers 413 for a file over MAX_AUDIO_BYTES and keeps nothing', async () => {
    const before = storedFiles().length;
    const big = Buffer.concat([fixture('hello-am.wav'), Buffer.alloc(20_000)]);
    const { status, body } = await upload('big.wav', big);
    expect(status).toBe(413);
    expect(body.error.code).toBe('payload_too_large');
    expect(storedFiles().length).toBe(before);
  });

  it('needs a file part, multipart, and the write scope', async () => {
    const form = new FormData();
    form.append('note', 'no file here');
    const none = await fetch(`${gw.url}/v1/uploads`, { method: 'POST', headers: bearer(key), body: form });
    expect(none.status).toBe(400);
    expect(((await none.json()) as ErrorBody).error).toMatchObject({ code: 'missing_required_field', param: 'file' });
    const json = await fetch(`${gw.url}/v1/uploads`, { method: 'POST', headers: bearer(key, { 'content-type': 'application/json' }), body: '{}' });
    expect(json.status).toBe(415);
    const reader = await gw.key({ scopes: ['read'] });
    expect((await upload('hello-am.mp3', fixture('hello-am.mp3'), reader)).status).toBe(403);
  });
});

describe('direct uploads through a signed URL', () => {
  const signedUrl = async (query: string, apiKey = key) => get<SignedUpload & ErrorBody>(`/v1/uploads/signed-url?${query}`, apiKey);
  const put = (url: string, body: Buffer, contentType?: string) =>
    fetch(url.replace(gw.gateway.baseUrl, gw.url), { method: 'PUT', headers: contentType ? { 'content-type': contentType } : {}, body });

  it('issues a URL, takes the bytes, and finalizes them into a media asset', async () => {
    const bytes = fixture('hello-am.wav');
    const signed = await signedUrl(`filename=${encodeURIComponent('talk one.wav')}&content_type=audio/wav&content_length=${bytes.length}`);
    expect(signed.status).toBe(200);
    expect(signed.body).toMatchObject({
      method: 'PUT',
      headers: { 'Content-Type': 'audio/wav' },
      file_url: `${gw.gateway.baseUrl}/v1/media/${signed.body.file_id}`,
    });
    expect(signed.body.svc_uri).toBe(`svc://media/${signed.body.file_id}`);
    expect(Date.parse(signed.body.expires_at) - Date.now()).toBeGreaterThan(3500_000);
    expect((await get<ErrorBody>(`/v1/media/${signed.body.file_id}`)).status).toBe(409);
    expect((await fetch(`${gw.url}/v1/uploads/${signed.body.file_id}/finalize`, { method: 'POST', headers: bearer(key) })).status).toBe(409);

    const response = await put(signed.body.upload_url, bytes, 'audio/wav');
    expect(response.status).toBe(200);
    const uploaded = (await response.json()) as MediaFile;
    expect(uploaded).toMatchObject({
      file_id: signed.body.file_id,
      status: 'uploaded',
      filename: 'talk one.wav',
      format: 'wav',
      size_bytes: bytes.length,
      finalized_at: null,
    });

    const finalized = await fetch(`${gw.url}/v1/uploads/${signed.body.file_id}/finalize`, { method: 'POST', headers: bearer(key) });
    expect(finalized.status).toBe(200);
    const asset = (await finalized.json()) as MediaFile;
    expect(asset).toMatchObject({ status: 'ready', size_bytes: bytes.length });
    expect(asset.finalized_at).not.toBeNull();
    const again = await fetch(`${gw.url}/v1/uploads/${signed.body.file_id}/finalize`, { method: 'POST', headers: bearer(key) });
    expect(await again.json()).toEqual(asset);
    const late = await put(signed.body.upload_url, bytes, 'audio/wav');
    expect(late.status).toBe(409);
    expect(((await late.json()) as ErrorBody).error.code).toBe('upload_finalized');
    const other = await fetch(`${gw.url}/v1/uploads/${signed.body.file_id}/finalize`, { method: 'POST', headers: bearer(otherKey) });
    expect(other.status).toBe(404);
  });

  it('checks the content type, the length, the content and the signature of the PUT', async () => {
    const bytes = fixture('hello-am.mp3');
    const signed = await signedUrl(`filename=a.mp3&content_length=${bytes.length}`);
    expect(signed.body.headers['Content-Type']).toBe('audio/mpeg');
    const code = async (response: Response) => ({ status: response.status, code: ((await response.json()) as ErrorBody).error.code });
    expect(await code(await put(signed.body.upload_url, bytes, 'audio/wav'))).toEqual({ status: 415, code: 'unsupported_content_type' });
    expect(await code(await put(signed.body.upload_url, bytes))).toEqual({ status: 415, code: 'unsupported_content_type' });
    expect(await code(await put(signed.body.upload_url, bytes.subarray(0, 100), 'audio/mpeg'))).toEqual({ status: 400, code: 'invalid_field_value' });
    const altered = signed.body.upload_url.replace(`content_length=${bytes.length}`, `content_length=${bytes.length + 1}`);
    expect(await code(await put(altered, bytes, 'audio/mpeg'))).toEqual({ status: 403, code: 'invalid_signature' });
    const retyped = signed.body.upload_url.replace('content_type=audio%2Fmpeg', 'content_type=audio%2Fwav');
    expect(await code(await put(retyped, bytes, 'audio/wav'))).toEqual({ status: 403, code: 'invalid_signature' });
    const text = await signedUrl('filename=b.mp3');
    expect(await code(await put(text.body.upload_url, fixture('not-audio.txt'), 'audio/mpeg'))).toEqual({ status: 400, code: 'invalid_audio_format' });
    expect((await get<MediaFile>(`/v1/media/${text.body.file_id}`)).status).toBe(409);
    const ok = await put(signed.body.upload_url, bytes, 'Audio/MPEG; charset=binary');
    expect(ok.status).toBe(200);
  });

  it('refuses bodies over MAX_AUDIO_BYTES with 413, declared or streamed', async () => {
    const signed = await signedUrl('filename=big.wav&content_type=audio/wav');
    const big = Buffer.concat([fixture('hello-am.wav'), Buffer.alloc(20_000)]);
    const declared = await put(signed.body.upload_url, big, 'audio/wav');
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as ErrorBody).error.code).toBe('payload_too_large');
    const streamed = await fetch(signed.body.upload_url.replace(gw.gateway.baseUrl, gw.url), {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new Uint8Array(big.subarray(0, 40_000)));
          controller.enqueue(new Uint8Array(big.subarray(40_000)));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('refuses an expired upload URL', async () => {
    const signed = await signedUrl('filename=late.mp3');
    const path = `/v1/files/uploads/${signed.body.file_id}`;
    const shortLived = gw.gateway.signer.sign('PUT', path, 1, { content_type: 'audio/mpeg' });
    await new Promise((r) => setTimeout(r, 1100));
    const response = await put(shortLived.url, fixture('hello-am.mp3'), 'audio/mpeg');
    expect(response.status).toBe(403);
    expect(((await response.json()) as ErrorBody).error.code).toBe('expired_signature');
  });

  it('validates the signed-url query', async () => {
    // Every query problem is 422 validation_error, whoever finds it (the schema or the library).
    expect((await signedUrl('content_type=audio/mpeg')).body.error).toMatchObject({ code: 'validation_error', param: 'filename' });
    const text = await signedUrl('filename=a.txt&content_type=text/plain');
    expect(text.status).toBe(422);
    expect(text.body.error).toMatchObject({ code: 'validation_error', param: 'content_type' });
    const unnamed = await signedUrl('filename=%2F&content_type=audio/mpeg');
    expect(unnamed.status).toBe(422);
    expect(unnamed.body.error).toMatchObject({ code: 'validation_error', param: 'filename' });
    const big = await signedUrl('filename=a.mp3&content_length=60001');
    expect(big.status).toBe(413);
    expect(big.body.error).toMatchObject({ code: 'payload_too_large', param: 'content_length' });
    expect(big.body.error.message).toContain('size limit of 60000 bytes');
    expect((await signedUrl('filename=a.mp3&content_length=-5')).status).toBe(422);
  });

  it('deletes uploads that are never finalized once UPLOAD_RETENTION_SECONDS has passed', async () => {
    const pending = await signedUrl('filename=forgotten.mp3');
    const unfinalized = await signedUrl('filename=unfinalized.mp3');
    await put(unfinalized.body.upload_url, fixture('hello-am.mp3'), 'audio/mpeg');
    const kept = await upload('kept.mp3', fixture('hello-am.mp3'));
    const library = gw.gateway.media.library;
    expect(await library.sweep()).toBe(0);
    const removed = await library.sweep(Date.now() + 86_400_000 + 60_000);
    expect(removed).toBeGreaterThanOrEqual(2);
    expect((await get(`/v1/media/${pending.body.file_id}`)).status).toBe(404);
    expect((await get(`/v1/media/${unfinalized.body.file_id}`)).status).toBe(404);
    expect((await get(`/v1/media/${kept.body.file_id}`)).status).toBe(200);
    expect(storedFiles().some((f) => f.includes(unfinalized.body.file_id))).toBe(false);
  });
});

describe('media assets', () => {
  let asset: MediaFile;
  beforeAll(async () => {
    asset = (await upload('hello-am.mp3', fixture('hello-am.mp3'))).body;
  });

  it('answers a signed playback URL (1 hour by default, expires_in seconds up to 7 days)', async () => {
    const { status, body } = await get<Playback>(`/v1/media/${asset.file_id}`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ ...asset, expires_in: 3600 });
    expect(Math.abs(Date.parse(body.expires_at) - Date.now() - 3600_000)).toBeLessThan(5_000);
    const week = await get<Playback>(`/v1/media/${asset.file_id}?expires_in=604800`);
    expect(week.body.expires_in).toBe(604800);
    // One range and one message, whatever the value (past the configured maximum, past the
    // old schema cap of 30 days, or below 1).
    for (const value of [604801, 2592001, 0]) {
      const refused = await get<ErrorBody>(`/v1/media/${asset.file_id}?expires_in=${value}`);
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({
        code: 'validation_error',
        param: 'expires_in',
        message: `Invalid value for 'expires_in': must be between 1 and 604800 seconds (7 days).`,
      });
    }
  });

  it('plays back with Range and HEAD, without a credential; altered links get 403', async () => {
    const bytes = fixture('hello-am.mp3');
    const { body } = await get<Playback>(`/v1/media/${asset.file_id}`);
    const url = body.playback_url.replace(gw.gateway.baseUrl, gw.url);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('audio/mpeg');
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const part = await fetch(url, { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    const tail = await fetch(url, { headers: { range: 'bytes=-10' } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.length - 10))).toBe(true);
    expect((await fetch(url, { headers: { range: `bytes=${bytes.length}-` } })).status).toBe(416);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    const tampered = url.replace(/sig=[^&]+/, 'sig=AAAA');
    expect((await fetch(tampered)).status).toBe(403);
    const otherFile = url.replace(asset.file_id, 'file_000000000000000000000000');
    expect((await fetch(otherFile)).status).toBe(403);
  });

  it('belongs to the account: other accounts get 404, a new key of the same account after rotation sees it', async () => {
    expect((await get<ErrorBody>(`/v1/media/${asset.file_id}`, otherKey)).body.error.code).toBe('file_not_found');
    const rotatedFrom = await gw.gateway.keys.create({ account: 'rotating' });
    const mine = (await upload('hello-am.mp3', fixture('hello-am.mp3'), rotatedFrom.key)).body;
    await gw.gateway.keys.revoke(rotatedFrom.record.id);
    const successor = await gw.key({ account: 'rotating' });
    const seen = await get<Playback>(`/v1/media/${mine.file_id}`, successor);
    expect(seen.status).toBe(200);
    expect(seen.body.file_id).toBe(mine.file_id);
  });

  it('lists newest first with cursors and a status filter', async () => {
    const lister = await gw.key({ account: 'lister' });
    const a = (await upload('a.mp3', fixture('hello-am.mp3'), lister)).body;
    const b = (await upload('b.mp3', fixture('hello-am.mp3'), lister)).body;
    const pending = (await get<SignedUpload>('/v1/uploads/signed-url?filename=c.mp3', lister)).body;
    const all = await get<{ data: MediaFile[]; has_more: boolean; next_cursor: string | null; total: number }>('/v1/media', lister);
    expect(all.body.data.map((m) => m.file_id)).toEqual([pending.file_id, b.file_id, a.file_id]);
    expect(all.body).toMatchObject({ total: 3, has_more: false, next_cursor: null });
    const first = await get<{ data: MediaFile[]; next_cursor: string }>('/v1/media?limit=2', lister);
    const second = await get<{ data: MediaFile[]; has_more: boolean }>(`/v1/media?limit=2&cursor=${first.body.next_cursor}`, lister);
    expect([...first.body.data, ...second.body.data].map((m) => m.file_id)).toEqual([pending.file_id, b.file_id, a.file_id]);
    expect(second.body.has_more).toBe(false);
    const ready = await get<{ data: MediaFile[] }>('/v1/media?status=ready', lister);
    expect(ready.body.data.map((m) => m.file_id)).toEqual([b.file_id, a.file_id]);
    expect((await get('/v1/media?cursor=bogus', lister)).status).toBe(422);
  });

  it('deletes an asset and its bytes; its playback link stops working', async () => {
    const doomed = (await upload('doomed.mp3', fixture('hello-am.mp3'))).body;
    const { body } = await get<Playback>(`/v1/media/${doomed.file_id}`);
    const response = await fetch(`${gw.url}/v1/media/${doomed.file_id}`, { method: 'DELETE', headers: bearer(key) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: doomed.file_id, object: 'media', deleted: true });
    expect((await get(`/v1/media/${doomed.file_id}`)).status).toBe(404);
    expect((await fetch(body.playback_url.replace(gw.gateway.baseUrl, gw.url))).status).toBe(404);
    expect(storedFiles().some((f) => f.includes(doomed.file_id))).toBe(false);
    expect((await fetch(`${gw.url}/v1/media/${doomed.file_id}`, { method: 'DELETE', headers: bearer(key) })).status).toBe(404);
  });

  it('resolves file_url and svc:// references to files of the same account only', async () => {
    const resolve = gw.gateway.media.library.resolveStored;
    const account = (await gw.gateway.store.media.get(asset.file_id))!.accountId;
    expect(await resolve(asset.svc_uri, account)).toEqual({ key: expect.stringContaining(asset.file_id), size: asset.size_bytes });
    expect(await resolve(asset.file_url, account)).toEqual({ key: expect.stringContaining(asset.file_id), size: asset.size_bytes });
    await expect(resolve(asset.svc_uri, 'acct_someone_else')).rejects.toMatchObject({ code: 'audio_download_failed' });
    await expect(resolve('svc://media/file_nope', account)).rejects.toMatchObject({ code: 'audio_download_failed' });
    expect(await resolve('https://example.com/a.mp3', account)).toBeNull();
  });
});
