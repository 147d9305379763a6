import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Gateway } from '../../src/app/gateway.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { startTestGateway } from '../helpers/test-gateway.js';

describe('health of the distributed backends', () => {
  it('reports a Redis it cannot reach as degraded, promptly, and still shuts down', async () => {
    const gw = await startTestGateway({ CACHE_BACKEND: 'redis', REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const started = Date.now();
      const health = (await (await fetch(`${gw.url}/health`)).json()) as Record<string, any>;
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(health['status']).toBe('degraded');
      expect(health['cache']).toMatchObject({ backend: 'redis', ok: false });
      expect(health['cache']['detail']).toBeTruthy();
      expect(health['storage']['database']).toEqual({ backend: 'sqlite', ok: true });
      expect(health['queue']).toEqual({ backend: 'in-process', ok: true });
    } finally {
      const closing = Date.now();
      await gw.close();
      expect(Date.now() - closing).toBeLessThan(10_000);
    }
  });

  it('refuses to start when the configured PostgreSQL cannot be reached, saying why', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'unreachable-db-'));
    try {
      const config = loadConfig({
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        STORE_BACKEND: 'postgres',
        DATABASE_URL: 'postgres://postgres@127.0.0.1:1/test',
      });
      await expect(Gateway.start({ config, logger: createLogger('silent') })).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
