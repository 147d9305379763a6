import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gateway } from '../../src/app/gateway.js';
import type { CreateKeyInput } from '../../src/platform/auth/key-service.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { createLogger, type Logger } from '../../src/platform/logging/logger.js';

export interface TestGateway {
  readonly gateway: Gateway;
  readonly url: string;
  readonly dataDir: string;
  /** Creates a key through the same service the CLI uses; returns the key string. */
  key(input?: Partial<CreateKeyInput>): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts a real gateway on port 0 with its own data folder. Responses are checked against
 * their declared schemas, and private-network fetches are allowed (tests serve on loopback).
 */
export async function startTestGateway(env: Record<string, string> = {}, options: { logger?: Logger } = {}): Promise<TestGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_NETWORK: 'true',
    MODELS_DIR: join(import.meta.dirname, '..', 'fixtures', 'models'),
    INFERENCE_WORKERS: '1',
    ...env,
  });
  const gateway = await Gateway.start({ config, logger: options.logger ?? createLogger(env['LOG_LEVEL'] ?? 'silent'), validateResponses: true });
  return {
    gateway,
    url: `http://127.0.0.1:${gateway.port}`,
    dataDir,
    key: async (input = {}) => (await gateway.keys.create({ account: 'test-account', ...input })).key,
    close: async () => {
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function bearer(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${key}`, ...extra };
}
