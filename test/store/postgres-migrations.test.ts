import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS } from '../../src/platform/db/postgres/migrations/index.js';
import { PostgresDatabase } from '../../src/platform/db/postgres/postgres-database.js';
import { PostgresStore } from '../../src/platform/db/postgres/postgres-store.js';
import { skipWithout } from '../helpers/distributed-servers.js';
import { useTestSchema } from '../helpers/suite-fixtures.js';

describe.skipIf(await skipWithout('postgres'))('PostgreSQL store start-up', () => {
  const schema = useTestSchema('migrations');

  it('migrates once when several processes start together, and not again on a restart', async () => {
    const stores = await Promise.all(Array.from({ length: 4 }, () => PostgresStore.open({ connectionString: schema.url, poolSize: 2 })));
    try {
      const client = new pg.Client({ connectionString: schema.url });
      await client.connect();
      try {
        const { rows } = await client.query('SELECT id FROM schema_migrations ORDER BY id');
        expect(rows.map((r) => r.id)).toEqual(POSTGRES_MIGRATIONS.map((m) => m.id));
      } finally {
        await client.end();
      }
      const again = new PostgresDatabase({ connectionString: schema.url, poolSize: 1 });
      try {
        expect(await again.migrate(POSTGRES_MIGRATIONS)).toEqual([]);
      } finally {
        await again.close();
      }
      expect(await stores[0]!.health()).toEqual({ backend: 'postgres', ok: true });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });

  it('reports an unreachable database in its health instead of throwing', async () => {
    const store = await PostgresStore.open({ connectionString: schema.url, poolSize: 1 });
    const stranded = new PostgresStore(new PostgresDatabase({ connectionString: 'postgres://postgres@127.0.0.1:1/test', poolSize: 1 }));
    try {
      const health = await stranded.health();
      expect(health.backend).toBe('postgres');
      expect(health.ok).toBe(false);
      expect(health.detail).toMatch(/ECONNREFUSED|connect/);
    } finally {
      await stranded.close();
      await store.close();
    }
  });

  it('fails to open with the reason when the schema cannot be created in', async () => {
    const url = new URL(schema.url);
    url.searchParams.set('options', '-c search_path=gwt_schema_that_does_not_exist');
    await expect(PostgresStore.open({ connectionString: url.toString(), poolSize: 1 })).rejects.toThrow(/schema/);
  });
});
