import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gateway } from '../../src/app/gateway.js';
import type { CreateKeyInput } from '../../src/platform/auth/key-service.js';
import { loadConfig } from '../../src/platform/config/config.js';
import { createLogger, type Logger } from '../../src/platform/logging/logger.js';
import type { TranslationEngine } from '../../src/engines/translation/translation.js';
import { fixturePath } from './fixtures.js';
import { startS3 } from './s3-server.js';

export interface TestGateway {
  readonly gateway: Gateway;
  readonly url: string;
  /** The metrics listener's GET /metrics (METRICS_PORT=0 picks a free port); null when it is off. */
  readonly metricsUrl: string | null;
  readonly dataDir: string;
  /** Creates a key through the same service the CLI uses; returns the key string. */
  key(input?: Partial<CreateKeyInput>): Promise<string>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  /** Check every JSON response against its declared schema (default true; benchmarks measure without). */
  readonly validateResponses?: boolean;
  /** Account of the keys `key()` creates (default `test-account`). */
  readonly account?: string;
  /** Prefix of the temporary data folder (default `gateway-test-`). */
  readonly dataDirPrefix?: string;
  /** The gateway's logger (tests that read log lines); silent by default. */
  readonly logger?: Logger;
  /** An engine file translation jobs use instead of the gateway's own (tests provoking engine failures). */
  readonly translationEngine?: TranslationEngine;
}

/**
 * Starts a real gateway on port 0 with its own data folder, removed by `close()`. Responses are
 * checked against their declared schemas, and private-network fetches are allowed (tests serve on
 * loopback); `env` overrides any setting. Tests and the in-process benchmarks start it alike.
 */
export async function startTestGateway(env: Record<string, string> = {}, options: TestGatewayOptions = {}): Promise<TestGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), options.dataDirPrefix ?? 'gateway-test-'));
  // TEST_FILES_BACKEND=s3: every test gateway keeps its files in a bucket of its own s3rver
  // (the storage tests run on both backends; this runs the rest of the suite on S3 too).
  const s3 = process.env['TEST_FILES_BACKEND'] === 's3' && env['FILES_BACKEND'] === undefined ? await startS3() : null;
  if (s3 !== null) env = { ...s3.env, ...env };
  const config = loadConfig({
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    ALLOW_PRIVATE_NETWORK: 'true',
    MODELS_DIR: fixturePath('models'),
    INFERENCE_WORKERS: '1',
    // The suite runs many gateways on shared cores: the host CPU guard would refuse their sessions
    // whenever the suite is busy. Tests of the guard (and the benches) set it.
    OVERLOAD_HOST_CPU_FULL_AT: '0',
    ...env,
  });
  const logger = options.logger ?? createLogger(env['LOG_LEVEL'] ?? 'silent');
  const gateway = await Gateway.start({
    config,
    logger,
    validateResponses: options.validateResponses ?? true,
    ...(options.translationEngine ? { translationEngine: options.translationEngine } : {}),
  }).catch(async (error: unknown) => {
    await s3?.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  });
  return {
    gateway,
    url: `http://127.0.0.1:${gateway.port}`,
    metricsUrl: gateway.metricsPort === null ? null : `http://127.0.0.1:${gateway.metricsPort}/metrics`,
    dataDir,
    key: async (input = {}) => (await gateway.keys.create({ account: options.account ?? 'test-account', ...input })).key,
    close: async () => {
      await gateway.close();
      await s3?.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function bearer(key: string, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${key}`, ...extra };
}
