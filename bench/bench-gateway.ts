/**
 * An in-process gateway for the live (WebSocket) benchmarks: a free port on 127.0.0.1, a fresh
 * data folder, silent logs, one inference worker, the models of MODELS_DIR (default ./models; DEFAULT_MODELS from the environment picks defaults),
 * and the limits that would cut a benchmark short lifted (UNLIMITED_LIVE). Removes its folder on close.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Gateway } from '../src/app/gateway.js';
import { loadConfig } from '../src/platform/config/config.js';
import { createLogger } from '../src/platform/logging/logger.js';

/**
 * The per-key WebSocket limits and the capacity guard, lifted: benchmarks open many sessions at
 * once and send faster than real time (raw Opus is one 20 ms packet per message), which the
 * message, byte and audio-speed limits (4x by default) would close, and the capacity guard would
 * refuse sessions for a capacity matter, not the one measured.
 */
export const UNLIMITED_LIVE: Readonly<Record<string, string>> = {
  WS_MAX_CONNECTIONS_PER_KEY: '1000',
  WS_MAX_MESSAGES_PER_SECOND: '1000000',
  WS_MAX_BYTES_PER_SECOND: '1000000000',
  WS_MAX_AUDIO_SPEED: '0',
  OVERLOAD_FULL_AT: '10',
  OVERLOAD_MAX_INFERENCE_WAIT_MS: '600000',
  OVERLOAD_HOST_CPU_FULL_AT: '0',
};

export interface BenchGateway {
  readonly gateway: Gateway;
  /** A key with the write scope. */
  readonly key: string;
  close(): Promise<void>;
}

/** Starts the gateway with `env` over the settings above; `name` prefixes its data folder. */
export async function startBenchGateway(name: string, env: Readonly<Record<string, string>> = {}): Promise<BenchGateway> {
  const dataDir = await mkdtemp(join(tmpdir(), `${name}-`));
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    MODELS_DIR: process.env['MODELS_DIR'] ?? join(process.cwd(), 'models'),
    INFERENCE_WORKERS: '1',
    // DEFAULT_MODELS from the shell: a bench measures another default model as a gateway would serve it
    ...(process.env['DEFAULT_MODELS'] ? { DEFAULT_MODELS: process.env['DEFAULT_MODELS'] } : {}),
    ...UNLIMITED_LIVE,
    ...env,
  });
  const gateway = await Gateway.start({ config, logger: createLogger('silent') });
  const key = (await gateway.keys.create({ account: 'bench', scopes: ['write'] })).key;
  return {
    gateway,
    key,
    close: async () => {
      await gateway.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
