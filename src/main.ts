import { Gateway } from './app/gateway.js';
import { ConfigError, loadConfig, redactedConfig } from './platform/config/config.js';
import { createLogger } from './platform/logging/logger.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  logger.info({ config: redactedConfig(config) }, 'configuration');
  const gateway = await Gateway.start({ config, logger });
  logger.info({ port: gateway.port, metricsPort: gateway.metricsPort, baseUrl: gateway.baseUrl }, 'gateway listening');

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownGraceMs + 5_000);
    force.unref();
    gateway
      .close()
      .then(() => {
        logger.info('shutdown complete');
        logger.flush?.();
        process.exit(0);
      })
      .catch((error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`gateway failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
