import { PostgresStore } from '../../src/platform/db/postgres/postgres-store.js';
import { createTestSchema, skipWithout } from '../helpers/distributed-servers.js';
import { storeContract } from './store-contract.js';

// Each backend is a fresh schema in the `test` database, dropped afterwards.
storeContract(
  'PostgreSQL',
  async () => {
    const schema = await createTestSchema('contract');
    return {
      open: async () => PostgresStore.open({ connectionString: schema.url, poolSize: 4 }),
      destroy: () => schema.drop(),
    };
  },
  { skip: await skipWithout('postgres') },
);
