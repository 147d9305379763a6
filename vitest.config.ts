import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The forked test processes (and servers they spawn) trust the test CA, so HTTPS test servers
    // (webhook receivers, media hosts) are verified like real ones. Node reads it only at start.
    env: { NODE_EXTRA_CA_CERTS: fileURLToPath(new URL('./test/fixtures/tls/ca.pem', import.meta.url)) },
  },
});
