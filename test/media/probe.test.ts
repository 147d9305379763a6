import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { MEDIA_DIR, serveFixture, startTestServer, type RecordedRequest, type TestServer } from '../helpers/tls-servers.js';
import type { ServerResponse } from 'node:http';

type ProbeBody = {
  object: string;
  url: string;
  duration_seconds: number | null;
  title: string | null;
  thumbnail: string | null;
  uploader: string | null;
  is_live: boolean;
  media_type: string | null;
  format: string | null;
  extractor: string;
  cached: boolean;
};
type ErrorBody = { error: { type: string; code: string; message: string; param?: string } };

const TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  webm: 'video/webm',
  wav: 'audio/wav',
  txt: 'text/plain',
};

const HLS = 'application/vnd.apple.mpegurl';

/** The media host's answers that never change: status, headers and body by path. */
const FIXED_ANSWERS: Record<string, { status: number; headers?: Record<string, string>; body?: string }> = {
  '/missing': { status: 404, body: 'no such file' },
  '/gone': { status: 410 },
  '/private': { status: 403, body: 'members only' },
  '/broken': { status: 503, body: 'maintenance' },
  '/page': {
    status: 200,
    headers: { 'content-type': 'text/html; charset=utf-8' },
    body: '<!doctype html><html><head><title>A video page</title></head><body></body></html>',
  },
  '/redirect-to-mp3': { status: 302, headers: { location: '/files/hello-am.mp3' } },
  '/redirect-to-metadata': { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } },
  '/vod.m3u8': {
    status: 200,
    headers: { 'content-type': HLS },
    body: '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXTINF:10.0,\na.ts\n#EXTINF:10.0,\nb.ts\n#EXTINF:4.5,\nc.ts\n#EXT-X-ENDLIST\n',
  },
  '/live.m3u8': {
    status: 200,
    headers: { 'content-type': 'application/x-mpegURL' },
    body: '#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXT-X-MEDIA-SEQUENCE:1234\n#EXTINF:6.0,\nseg1234.ts\n#EXTINF:6.0,\nseg1235.ts\n',
  },
  '/master.m3u8': {
    status: 200,
    headers: { 'content-type': HLS },
    body: '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000,RESOLUTION=640x360,CODECS="avc1.4d401e,mp4a.40.2"\nvod.m3u8\n',
  },
};

/** A media host with the answers a probe meets in the wild. */
function mediaHost(host: () => TestServer) {
  const mp3 = readFileSync(join(MEDIA_DIR, 'hello-am.mp3'));
  return (req: RecordedRequest, res: ServerResponse): void => {
    const path = req.url.split('?')[0]!;
    const range = typeof req.headers.range === 'string' ? req.headers.range : undefined;
    const file = /^\/files\/([\w.-]+)$/.exec(path);
    if (file) {
      serveFixture(res, file[1]!, range, TYPES[file[1]!.split('.').pop()!] ?? 'application/octet-stream', req.method);
      return;
    }
    const fixed = FIXED_ANSWERS[path];
    if (fixed) {
      res.writeHead(fixed.status, fixed.headers).end(fixed.body);
      return;
    }
    switch (path) {
      case '/redirect-to-ipv6-loopback':
        res.writeHead(301, { location: `https://[::1]:${host().port}/files/hello-am.mp3` }).end();
        return;
      case '/sneaky.ogg':
        // The first bytes are honest; the seek ffprobe makes for the duration is sent to a private address.
        if (range !== undefined && !range.startsWith('bytes=0-')) res.writeHead(302, { location: 'http://10.0.0.7/hello-am.ogg' }).end();
        else serveFixture(res, 'hello-am-x3.ogg', range, 'audio/ogg', req.method);
        return;
      case '/hang':
        return; // never answers
      case '/radio': {
        // An Icecast-style live stream: no length, icy headers, MP3 frames until the client leaves.
        res.writeHead(200, { 'content-type': 'audio/mpeg', 'icy-name': 'Test radio', 'icy-br': '32' });
        const timer = setInterval(() => res.write(mp3), 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      default:
        res.writeHead(404).end();
    }
  };
}

let host: TestServer;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  host = await startTestServer({ tls: true });
  host.respond = mediaHost(() => host);
  gw = await startTestGateway({ PROBE_TIMEOUT_SECONDS: '2', RATE_LIMIT_PER_MINUTE: '1000' });
  key = await gw.key({ scopes: ['read'] });
});
afterAll(async () => {
  await gw?.close();
  await host?.close();
});

async function probe(target: TestGateway, url: unknown, apiKey = key): Promise<{ status: number; body: ProbeBody & ErrorBody }> {
  const response = await fetch(`${target.url}/v1/media/probe`, {
    method: 'POST',
    headers: bearer(apiKey, { 'content-type': 'application/json' }),
    body: JSON.stringify({ url }),
  });
  return { status: response.status, body: (await response.json()) as ProbeBody & ErrorBody };
}

describe('POST /v1/media/probe on direct media', () => {
  it('reads duration, title and artist of an MP3 over HTTPS, and caches the result', async () => {
    const url = `${host.origin}/files/hello-am.mp3`;
    const first = await probe(gw, url);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      object: 'media_probe',
      url,
      title: 'Selam test clip',
      uploader: 'Horn Speech Tests',
      thumbnail: null,
      is_live: false,
      media_type: 'audio',
      format: 'mp3',
      extractor: 'ffprobe',
      cached: false,
    });
    expect(first.body.duration_seconds).toBeGreaterThan(1.5);
    expect(first.body.duration_seconds).toBeLessThan(2.0);
    const seen = host.requests.length;
    const second = await probe(gw, url);
    expect(second.body).toMatchObject({ cached: true, duration_seconds: first.body.duration_seconds, title: 'Selam test clip' });
    expect(host.requests.length).toBe(seen);
  });

  it('seeks with Range requests where the container needs it (Ogg duration from its last page)', async () => {
    const { status, body } = await probe(gw, `${host.origin}/files/hello-am-x3.ogg`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ format: 'ogg', media_type: 'audio' });
    expect(body.duration_seconds).toBeCloseTo(4.98, 1);
    expect(host.requests.some((r) => r.url === '/files/hello-am-x3.ogg' && /^bytes=[1-9]/.test(String(r.headers.range)))).toBe(true);
  });

  it('reads MP4 audio and tells video from audio', async () => {
    const m4a = await probe(gw, `${host.origin}/files/hello-am.m4a`);
    expect(m4a.body).toMatchObject({ media_type: 'audio', is_live: false });
    expect(m4a.body.format).toContain('mp4');
    expect(m4a.body.duration_seconds).toBeCloseTo(1.66, 1);
    const video = await probe(gw, `${host.origin}/files/clip.webm`);
    expect(video.body).toMatchObject({ media_type: 'video', title: 'Test pattern', format: 'matroska,webm' });
    expect(video.body.duration_seconds).toBeCloseTo(1.0, 1);
  });

  it('follows redirects', async () => {
    const { status, body } = await probe(gw, `${host.origin}/redirect-to-mp3`);
    expect(status).toBe(200);
    expect(body.title).toBe('Selam test clip');
  });

  it('flags a live radio stream and gives it no duration', async () => {
    const { status, body } = await probe(gw, `${host.origin}/radio`);
    expect(status).toBe(200);
    expect(body).toMatchObject({ is_live: true, duration_seconds: null, media_type: 'audio', format: 'mp3' });
  });

  it('reads HLS playlists: VOD duration, live flag, master playlists through their first variant', async () => {
    const vod = await probe(gw, `${host.origin}/vod.m3u8`);
    expect(vod.body).toMatchObject({ extractor: 'hls', format: 'hls', is_live: false, duration_seconds: 24.5 });
    const live = await probe(gw, `${host.origin}/live.m3u8`);
    expect(live.body).toMatchObject({ is_live: true, duration_seconds: null });
    const master = await probe(gw, `${host.origin}/master.m3u8`);
    expect(master.body).toMatchObject({ is_live: false, duration_seconds: 24.5, media_type: 'video' });
  });
});

describe('POST /v1/media/probe errors', () => {
  it.each([
    ['/missing', 404, 'media_not_found'],
    ['/gone', 404, 'media_not_found'],
    ['/private', 403, 'media_unavailable'],
    ['/broken', 502, 'upstream_error'],
    ['/page', 422, 'unsupported_media'],
    ['/files/not-audio.txt', 422, 'unsupported_media'],
    ['/files/fake.wav', 422, 'unsupported_media'],
  ])('%s → %i %s', async (path, status, code) => {
    const result = await probe(gw, `${host.origin}${path}`);
    expect(result.status).toBe(status);
    expect(result.body.error).toMatchObject({ code, param: 'url' });
  });

  it('says a web page needs yt-dlp when none is configured', async () => {
    const { body } = await probe(gw, `${host.origin}/page`);
    expect(body.error.message).toContain('yt-dlp');
  });

  it('answers 504 probe_timeout when the window passes', async () => {
    const started = Date.now();
    const { status, body } = await probe(gw, `${host.origin}/hang`);
    expect(status).toBe(504);
    expect(body.error).toMatchObject({ type: 'api_error', code: 'probe_timeout', param: 'url' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it('bounds the probes it runs at once: 8 run, 64 wait within their window, more get 500 service_unavailable', async () => {
    const results = await Promise.all(Array.from({ length: 75 }, (_, i) => probe(gw, `${host.origin}/hang?n=${i}`)));
    const codes = results.map((r) => r.body.error.code);
    expect(codes.filter((c) => c === 'service_unavailable')).toHaveLength(3);
    expect(codes.filter((c) => c === 'probe_timeout')).toHaveLength(72);
    expect((await probe(gw, `${host.origin}/files/hello-am.flac`)).status).toBe(200);
  });

  it.each([['not a url'], ['ftp://example.com/a.mp3'], ['file:///etc/passwd'], ['https://user:pw@example.com/a.mp3']])('%s → 400 invalid_url', async (url) => {
    const { status, body } = await probe(gw, url);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_url', param: 'url' });
  });

  it('validates the body', async () => {
    const missing = await fetch(`${gw.url}/v1/media/probe`, { method: 'POST', headers: bearer(key, { 'content-type': 'application/json' }), body: '{}' });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ErrorBody).error).toMatchObject({ code: 'missing_required_field', param: 'url' });
    const unauthenticated = await fetch(`${gw.url}/v1/media/probe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"url":"https://a"}',
    });
    expect(unauthenticated.status).toBe(401);
  });
});

describe('the private-network guard on probes', () => {
  let strict: TestGateway;
  let onlyHost: TestGateway;
  let strictKey: string;
  let onlyHostKey: string;
  beforeAll(async () => {
    // Nothing private allowed; and a gateway allowed to reach exactly 127.0.0.1 (the test host).
    strict = await startTestGateway({ ALLOW_PRIVATE_NETWORK: 'false', PROBE_TIMEOUT_SECONDS: '5' });
    onlyHost = await startTestGateway({ ALLOW_PRIVATE_NETWORK: 'false', OUTBOUND_ALLOWED_CIDRS: '127.0.0.1/32', PROBE_TIMEOUT_SECONDS: '5' });
    strictKey = await strict.key();
    onlyHostKey = await onlyHost.key();
  });
  afterAll(async () => {
    await strict?.close();
    await onlyHost?.close();
  });

  it.each([
    (port: number) => `https://127.0.0.1:${port}/files/hello-am.mp3`,
    (port: number) => `https://[::1]:${port}/files/hello-am.mp3`,
    () => 'http://169.254.169.254/latest/meta-data/',
    () => 'http://[::ffff:169.254.169.254]/latest/meta-data/',
    (port: number) => `https://localhost:${port}/files/hello-am.mp3`,
  ])('refuses loopback, metadata and names resolving to them (%#)', async (make) => {
    const before = host.requests.length;
    const { status, body } = await probe(strict, make(host.port), strictKey);
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'url_not_allowed', param: 'url' });
    expect(host.requests.length).toBe(before);
  });

  it('allows the permitted range but checks every redirect', async () => {
    const origin = `https://127.0.0.1:${host.port}`;
    const ok = await probe(onlyHost, `${origin}/files/hello-am.mp3`, onlyHostKey);
    expect(ok.status).toBe(200);
    for (const path of ['/redirect-to-metadata', '/redirect-to-ipv6-loopback']) {
      const refused = await probe(onlyHost, `${origin}${path}`, onlyHostKey);
      expect(refused.status, path).toBe(400);
      expect(refused.body.error.code, path).toBe('url_not_allowed');
    }
  });

  it("refuses a probe when ffprobe's own seek is redirected to a private address", async () => {
    const { status, body } = await probe(onlyHost, `https://127.0.0.1:${host.port}/sneaky.ogg`, onlyHostKey);
    expect(status).toBe(400);
    expect(body.error.code).toBe('url_not_allowed');
  });
});
