import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { MEDIA_DIR } from '../helpers/tls-servers.js';

// An upload is `ready` only once its start decodes: a valid header (what the container sniffing and
// ffprobe read) followed by damaged data is refused at once, not by the jobs that use it later.

type Answer = { status: number; body: { status?: string; error?: { code: string; message: string; param?: string } } };

/** The fixture's first `keep` bytes, then deterministic garbage up to the fixture's length. */
function damaged(name: string, keep: number): Buffer {
  const original = readFileSync(join(MEDIA_DIR, name));
  const out = Buffer.from(original);
  let state = 0x2545f491;
  for (let i = keep; i < out.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway({ RATE_LIMIT_PER_MINUTE: '10000' });
  key = await gw.key();
});
afterAll(async () => gw?.close());

async function upload(name: string, bytes: Buffer): Promise<Answer> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const response = await fetch(`${gw.url}/v1/uploads`, { method: 'POST', headers: bearer(key), body: form });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

describe('uploads decode before they are ready', () => {
  it.each([
    ['hello-am.flac', 64, 'a FLAC header on garbage'],
    ['hello-am.m4a', 1000, 'an MP4 header on garbage'],
  ])('refuses %s (%i bytes intact) as %s with 400 invalid_audio_format and the reason', async (name, keep) => {
    const { status, body } = await upload(name, damaged(name, keep));
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_audio_format', param: 'file' });
    expect(body.error!.message).toMatch(/decod/);
  });

  it('still accepts the intact files', async () => {
    for (const name of ['hello-am.flac', 'hello-am.m4a']) {
      const { status, body } = await upload(name, readFileSync(join(MEDIA_DIR, name)));
      expect(status).toBe(201);
      expect(body.status).toBe('ready');
    }
  });

  it('checks a signed PUT the same way', async () => {
    const signed = (await (await fetch(`${gw.url}/v1/uploads/signed-url?filename=a.flac&content_type=audio/flac`, { headers: bearer(key) })).json()) as {
      upload_url: string;
    };
    const response = await fetch(signed.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/flac' }, body: damaged('hello-am.flac', 64) });
    expect(response.status).toBe(400);
    expect(((await response.json()) as Answer['body']).error).toMatchObject({ code: 'invalid_audio_format' });
  });
});
