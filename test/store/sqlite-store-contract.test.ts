import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/platform/db/sqlite/sqlite-store.js';
import { storeContract } from './store-contract.js';

// A database file, so that the suite's two stores share it as two processes would.
storeContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'store-contract-'));
  return {
    open: async () => SqliteStore.open(join(dir, 'gateway.db')),
    destroy: async () => rmSync(dir, { recursive: true, force: true }),
  };
});
