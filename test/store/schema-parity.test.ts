import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaRecord } from '../../src/platform/db/media-records.js';
import { PostgresStore } from '../../src/platform/db/postgres/postgres-store.js';
import { SqliteStore } from '../../src/platform/db/sqlite/sqlite-store.js';
import { skipWithout } from '../helpers/distributed-servers.js';
import { useTestSchema } from '../helpers/suite-fixtures.js';

/** table → column → `type, nullability, primary key`, as one backend's catalog describes it. */
type Catalog = Record<string, Record<string, string>>;

/** The SQLite type each PostgreSQL type is stored as (instants, dates and documents as text, flags as integers). */
const SQLITE_TYPE_OF: Record<string, string> = {
  text: 'TEXT',
  'timestamp with time zone': 'TEXT',
  date: 'TEXT',
  json: 'TEXT',
  integer: 'INTEGER',
  bigint: 'INTEGER',
  boolean: 'INTEGER',
  'double precision': 'REAL',
};

function sqliteCatalog(store: SqliteStore): { columns: Catalog; indexes: string[] } {
  const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  const columns: Catalog = {};
  for (const table of tables) {
    const info = store.db.prepare('SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(?)').all(table) as {
      name: string;
      type: string;
      nn: number;
      pk: number;
    }[];
    columns[table] = Object.fromEntries(info.map((c) => [c.name, `${c.type}, ${c.nn || c.pk ? 'not null' : 'null'}${c.pk ? ', key' : ''}`]));
  }
  // Indexes the migrations name (SQLite's own for PRIMARY KEY and UNIQUE have no SQL).
  const indexes = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").pluck().all() as string[];
  return { columns, indexes };
}

async function postgresCatalog(url: string, schema: string): Promise<{ columns: Catalog; indexes: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; key: boolean }>(
      `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable,
              EXISTS (SELECT 1 FROM information_schema.table_constraints t
                      JOIN information_schema.key_column_usage k USING (constraint_schema, constraint_name, table_name)
                      WHERE t.constraint_type = 'PRIMARY KEY' AND t.table_schema = c.table_schema AND t.table_name = c.table_name
                        AND k.column_name = c.column_name) AS key
       FROM information_schema.columns c WHERE c.table_schema = $1 ORDER BY c.table_name, c.ordinal_position`,
      [schema],
    );
    const columns: Catalog = {};
    for (const r of rows) {
      const type = SQLITE_TYPE_OF[r.data_type] ?? `unmapped ${r.data_type}`;
      (columns[r.table_name] ??= {})[r.column_name] = `${type}, ${r.is_nullable === 'NO' ? 'not null' : 'null'}${r.key ? ', key' : ''}`;
    }
    // Indexes the migration names, not those PostgreSQL makes for PRIMARY KEY and UNIQUE constraints.
    const indexes = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = $1 AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) ORDER BY name`,
      [schema],
    );
    return { columns, indexes: indexes.rows.map((r) => r.name) };
  } finally {
    await client.end();
  }
}

describe.skipIf(await skipWithout('postgres'))('SQLite and PostgreSQL stores side by side', () => {
  const schema = useTestSchema('parity');
  let dir: string;
  let sqlite: SqliteStore;
  let postgres: PostgresStore;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'schema-parity-'));
    sqlite = SqliteStore.open(join(dir, 'gateway.db'));
    postgres = await PostgresStore.open({ connectionString: schema.url, poolSize: 2 });
  });

  afterAll(async () => {
    await sqlite?.close();
    await postgres?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('migrate to the same tables, columns, column types, nullability, keys and named indexes', async () => {
    const lite = sqliteCatalog(sqlite);
    const shared = await postgresCatalog(schema.url, schema.schema);
    expect(Object.keys(lite.columns)).toContain('jobs');
    // Column by column, so a difference names its table and column.
    expect(shared.columns).toEqual(lite.columns);
    expect(shared.indexes).toEqual(lite.indexes);
  });

  it('order records that tie on time the same way (by id)', async () => {
    const at = '2026-03-01T08:00:00.000Z';
    const record = (id: string, status: MediaRecord['status']): MediaRecord => ({
      id,
      accountId: 'acct_p',
      keyId: 'key_p',
      status,
      source: 'signed_upload',
      storageKey: `k/${id}`,
      filename: 'a.mp3',
      contentType: 'audio/mpeg',
      expectedBytes: null,
      sizeBytes: null,
      format: null,
      durationSeconds: null,
      createdAt: at,
      uploadedAt: null,
      finalizedAt: null,
      updatedAt: at,
    });
    // Inserted out of id order, so that insertion order cannot pass for id order.
    const records = [record('file_c', 'pending'), record('file_a', 'uploaded'), record('file_B', 'pending'), record('file_b', 'ready')];
    for (const store of [sqlite, postgres]) for (const r of records) await store.media.insert(r);
    const ids = async (store: SqliteStore | PostgresStore) => (await store.media.findUnfinalized('2026-03-02T00:00:00.000Z', 10)).map((m) => m.id);
    expect(await ids(sqlite)).toEqual(['file_B', 'file_a', 'file_c']);
    expect(await ids(postgres)).toEqual(await ids(sqlite));
  });
});
