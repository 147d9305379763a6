import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { MEDIA_DIR } from '../helpers/tls-servers.js';

/**
 * A signed link is served only in the one canonical form the gateway signed: duplicated or
 * extra parameters, non-canonical numbers and percent-encoded paths (dot segments included)
 * are 403. Requests go through node:http with the raw path, as a hostile client sends them
 * (fetch would normalise dot segments before sending).
 */
const suite = useTestGateway({ RATE_LIMIT_PER_MINUTE: '100000' }, { scopes: ['write'] });
let playback: URL;
let upload: URL;
beforeAll(async () => {
  const form = new FormData();
  form.append('file', new Blob([readFileSync(join(MEDIA_DIR, 'hello-am.mp3'))]), 'hello.mp3');
  const uploaded = (await (await fetch(`${suite.gw.url}/v1/uploads`, { method: 'POST', headers: bearer(suite.key), body: form })).json()) as {
    file_id: string;
  };
  const media = (await (await fetch(`${suite.gw.url}/v1/media/${uploaded.file_id}`, { headers: bearer(suite.key) })).json()) as { playback_url: string };
  playback = new URL(media.playback_url);
  const signed = (await (
    await fetch(`${suite.gw.url}/v1/uploads/signed-url?filename=a.mp3&content_type=audio/mpeg`, { headers: bearer(suite.key) })
  ).json()) as {
    upload_url: string;
  };
  upload = new URL(signed.upload_url);
});

function raw(method: string, pathAndQuery: string, body?: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: suite.gw.gateway.port, method, path: pathAndQuery, headers });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function variants(url: URL): [string, string][] {
  const path = url.pathname;
  const query = url.search.slice(1);
  const expires = url.searchParams.get('expires')!;
  const sig = url.searchParams.get('sig')!;
  const id = path.split('/').pop()!;
  const parent = path.slice(0, path.length - id.length - 1);
  return [
    ['duplicated expires', `${path}?${query}&expires=${expires}`],
    ['duplicated expires, first one forged', `${path}?${query.replace(`expires=${expires}`, `expires=${Number(expires) + 86400}`)}&expires=${expires}`],
    ['duplicated sig', `${path}?${query}&sig=${sig}`],
    ['an extra parameter', `${path}?${query}&download=1`],
    ['expires in exponent form', `${path}?${query.replace(`expires=${expires}`, `expires=${expires.slice(0, 1)}.${expires.slice(1)}e${expires.length - 1}`)}`],
    ['expires with a fraction', `${path}?${query.replace(`expires=${expires}`, `expires=${expires}.0`)}`],
    ['expires with a leading zero', `${path}?${query.replace(`expires=${expires}`, `expires=0${expires}`)}`],
    ['a percent-encoded id', `${parent}/${id.replace('_', '%5F')}?${query}`],
    ['encoded dot segments', `${parent}/%2e%2e/${parent.split('/').pop()}/${id}?${query}`],
    ['encoded dot segments inside the id', `${parent}/${id}%2F%2E%2E%2F${id}?${query}`],
  ];
}

describe('strict canonical signed URLs', () => {
  it("serves the playback link as signed, with the caller address's X-RateLimit-* figures", async () => {
    const answer = await new Promise<{ status: number; limit: unknown }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: suite.gw.gateway.port, path: `${playback.pathname}${playback.search}` });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, limit: res.headers['x-ratelimit-limit'] }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer).toEqual({ status: 200, limit: '100000' });
  });

  it('refuses every non-canonical form of the playback link with 403', async () => {
    for (const [name, target] of variants(playback)) {
      const answer = await raw('GET', target);
      expect(answer.status, `${name}: ${target}`).toBe(403);
      expect(JSON.parse(answer.body).error.code, name).toBe('invalid_signature');
    }
  });

  it('refuses every non-canonical form of a signed upload URL with 403', async () => {
    const bytes = readFileSync(join(MEDIA_DIR, 'hello-am.mp3'));
    for (const [name, target] of variants(upload)) {
      const answer = await raw('PUT', target, bytes, { 'content-type': 'audio/mpeg' });
      expect(answer.status, `${name}: ${target}`).toBe(403);
    }
    expect((await raw('PUT', `${upload.pathname}${upload.search}`, bytes, { 'content-type': 'audio/mpeg' })).status).toBe(200);
  });
});
