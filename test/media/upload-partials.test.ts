import { connect } from 'node:net';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { startTestGateway } from '../helpers/test-gateway.js';
import { MEDIA_DIR } from '../helpers/tls-servers.js';

// Temporary `.partial` files of stored uploads: removed when the client goes away mid-upload,
// and swept at start when a killed process left them behind.

const wav = readFileSync(join(MEDIA_DIR, 'hello-am.wav'));

/** Every `.partial` file under `root`. */
function partials(root: string): string[] {
  if (!existsSync(root)) return [];
  return (readdirSync(root, { recursive: true }) as string[]).filter((name) => name.endsWith('.partial'));
}

async function eventually(check: () => boolean, ms = 3000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/**
 * Sends the head of a request whose body is announced larger than what is sent, waits until the
 * gateway has started writing the file, then drops the connection.
 */
async function abandonUpload(url: string, head: string, body: Buffer, root: string): Promise<string[]> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => undefined);
  const before = new Set(partials(root));
  socket.write(head);
  socket.write(body);
  // The gateway holds the bytes in a .partial file while the rest is awaited.
  const written = (): string[] => partials(root).filter((name) => !before.has(name));
  expect(await eventually(() => written().length > 0)).toBe(true);
  const ours = written();
  socket.destroy();
  return ours;
}

describe('.partial upload files after a client disconnects', () => {
  const suite = useTestGateway({ RATE_LIMIT_PER_MINUTE: '10000', FILES_BACKEND: 'local' });
  const filesRoot = () => join(suite.gw.dataDir, 'files');

  const multipartHead = (path: string, field: string, boundary: string, total: number) =>
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${suite.key}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${total}\r\n\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`;

  it.each([
    ['POST /v1/uploads', '/v1/uploads', 'file'],
    ['POST /v1/transcriptions (multipart)', '/v1/transcriptions', 'file'],
    ['POST /v1/transcriptions/batch (multipart)', '/v1/transcriptions/batch', 'files'],
  ])('%s leaves no .partial file', async (_name, path, field) => {
    const root = filesRoot();
    const written = await abandonUpload(suite.gw.url, multipartHead(path, field, 'xyzBOUNDARY', 10_000_000), wav, root);
    expect(await eventually(() => written.every((name) => !existsSync(join(root, name))))).toBe(true);
  });

  it('a signed PUT leaves no .partial file', async () => {
    const signed = (await (
      await fetch(`${suite.gw.url}/v1/uploads/signed-url?filename=a.wav&content_type=audio/wav`, { headers: { authorization: `Bearer ${suite.key}` } })
    ).json()) as { upload_url: string };
    const target = new URL(signed.upload_url);
    const head = `PUT ${target.pathname}${target.search} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: audio/wav\r\n` + `Content-Length: 10000000\r\n\r\n`;
    const root = filesRoot();
    const written = await abandonUpload(suite.gw.url, head, wav, root);
    expect(await eventually(() => written.every((name) => !existsSync(join(root, name))))).toBe(true);
  });
});

describe('.partial files left by a killed process', () => {
  it('are removed at start once untouched for an hour; recent ones are left to their writer', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-partials-'));
    const folder = join(dataDir, 'files', 'accounts', 'acct_x', 'media', 'file_0');
    mkdirSync(folder, { recursive: true });
    const stale = join(folder, 'file.0123456789ab.partial');
    const recent = join(folder, 'file.ba9876543210.partial');
    const kept = join(folder, 'notes.partial');
    for (const path of [stale, recent, kept]) writeFileSync(path, 'half a file');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(stale, twoHoursAgo, twoHoursAgo);
    utimesSync(kept, twoHoursAgo, twoHoursAgo);
    const gw = await startTestGateway({ DATA_DIR: dataDir, FILES_BACKEND: 'local' });
    try {
      expect(await eventually(() => !existsSync(stale))).toBe(true);
      expect(existsSync(recent)).toBe(true);
      // Only names the storage writes (`<name>.<12 hex>.partial`) are its own.
      expect(existsSync(kept)).toBe(true);
    } finally {
      await gw.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
