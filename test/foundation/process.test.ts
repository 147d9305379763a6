import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distEntry, runNode, startServerProcess } from '../helpers/spawn-dist.js';

const dataDir = mkdtempSync(join(tmpdir(), 'gateway-process-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('the gateway process', () => {
  it('refuses to start on bad configuration and names every bad variable', async () => {
    const result = await runNode(distEntry('src/main.js'), [], {
      DATA_DIR: dataDir,
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      ALLOW_PRIVATE_NETWORK: 'maybe',
      STORE_BACKEND: 'postgres',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('PORT must be an integer');
    expect(result.stderr).toContain('LOG_LEVEL must be one of');
    expect(result.stderr).toContain('ALLOW_PRIVATE_NETWORK must be true or false');
    expect(result.stderr).toContain('DATABASE_URL is required when STORE_BACKEND=postgres');
  });

  it('serves, logs its effective configuration with secrets redacted, and stops cleanly on SIGTERM', async () => {
    const secret = 'x'.repeat(40);
    const server = await startServerProcess({ DATA_DIR: dataDir, SIGNING_SECRET: secret, REDIS_URL: 'redis://user:hunter2@127.0.0.1:6379' });
    const health = await fetch(`http://127.0.0.1:${server.port}/health`);
    expect(health.status).toBe(200);
    expect(server.output()).toContain('"msg":"configuration"');
    expect(server.output()).not.toContain(secret);
    expect(server.output()).not.toContain('hunter2');
    const exited = new Promise<number | null>((resolve) => server.child.on('exit', (code) => resolve(code)));
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(server.output()).toContain('shutdown complete');
  });
});

describe('npm run keys', () => {
  const cli = (args: string[]) => runNode(distEntry('src/app/cli/keys-cli.js'), args, { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });

  it('creates, lists and revokes keys as JSON, and the key works against the server', async () => {
    const created = await cli([
      'create',
      '--account',
      'acme',
      '--name',
      'ci',
      '--scopes',
      'read',
      '--expires',
      '30d',
      '--ip',
      '127.0.0.0/8',
      '--rate-limit',
      '30',
    ]);
    expect(created.code).toBe(0);
    const record = JSON.parse(created.stdout) as { id: string; key: string; scopes: string[]; limits: Record<string, number>; expires_at: string };
    expect(record.key).toMatch(/^sk_/);
    expect(record.scopes).toEqual(['read']);
    expect(record.limits).toEqual({ requests_per_minute: 30 });
    expect(Date.parse(record.expires_at)).toBeGreaterThan(Date.now() + 29 * 86400_000);

    const server = await startServerProcess({ DATA_DIR: dataDir });
    try {
      const ok = await fetch(`http://127.0.0.1:${server.port}/v1/languages`, { headers: { authorization: `Bearer ${record.key}` } });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-ratelimit-limit')).toBe('30');

      const listed = JSON.parse((await cli(['list', '--account', 'acme'])).stdout) as { data: { id: string }[] };
      expect(listed.data.map((k) => k.id)).toContain(record.id);
      expect(JSON.stringify(listed)).not.toContain(record.key);

      const revoked = await cli(['revoke', record.id]);
      expect(JSON.parse(revoked.stdout).status).toBe('revoked');
      // The server reuses key records for KEY_CACHE_SECONDS (2 s by default).
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const refused = await fetch(`http://127.0.0.1:${server.port}/v1/languages`, { headers: { authorization: `Bearer ${record.key}` } });
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('revoked_api_key');
    } finally {
      server.child.kill('SIGTERM');
    }
  });

  it('fails with a clear message on bad options', async () => {
    const result = await cli(['create', '--account', 'acme', '--scopes', 'root']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toContain('Unknown scope "root"');
    const usage = await cli(['frobnicate']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('unknown command');
  });
});
