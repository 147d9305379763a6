import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalFileStorage } from '../../src/platform/files/local-file-storage.js';
import { distEntry } from '../helpers/spawn-dist.js';

const scratch = mkdtempSync(join(tmpdir(), 'shared-data-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function loadSecretInProcess(dataDir: string): Promise<string> {
  const script = `
    const { loadSigningSecret } = await import(${JSON.stringify(distEntry('src/app/signing-secret.js'))});
    process.stdout.write(loadSigningSecret(null, ${JSON.stringify(dataDir)}).toString('hex'));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script]);
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}: ${err}`))));
  });
}

describe('gateways sharing one DATA_DIR', () => {
  it('agree on one generated signing secret when they start together', async () => {
    const dataDir = join(scratch, 'secret');
    const secrets = await Promise.all(Array.from({ length: 6 }, () => loadSecretInProcess(dataDir)));
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]!.length).toBeGreaterThan(64);
    expect(statSync(join(dataDir, 'secrets', 'url-signing.key')).mode & 0o777).toBe(0o600);
  });

  it('never show a reader a torn object or content type while another process rewrites it', async () => {
    const root = join(scratch, 'files');
    const writer = new LocalFileStorage(root);
    const reader = new LocalFileStorage(root);
    const body = Buffer.alloc(64 * 1024, 7);
    await writer.putBuffer('accounts/a/media/file_x/file', body, 'audio/mpeg');
    let stop = false;
    const seen = new Set<string>();
    const reading = (async () => {
      while (!stop) {
        const info = await reader.stat('accounts/a/media/file_x/file');
        seen.add(`${info?.contentType}:${info?.size}`);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    for (let i = 0; i < 60; i++) await writer.putBuffer('accounts/a/media/file_x/file', body, 'audio/mpeg');
    stop = true;
    await reading;
    expect([...seen]).toEqual([`audio/mpeg:${body.length}`]);
  });
});
