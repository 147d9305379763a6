import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotentSubmissions } from '../../src/jobs/idempotent-submissions.js';
import { buildJob } from '../../src/jobs/new-job.js';
import type { Principal } from '../../src/platform/auth/principal.js';
import { PostgresStore } from '../../src/platform/db/postgres/postgres-store.js';
import { SqliteStore } from '../../src/platform/db/sqlite/sqlite-store.js';
import type { Store } from '../../src/platform/db/store-types.js';
import { isApiError } from '../../src/platform/errors/api-error.js';
import { createTestSchema, skipWithout } from '../helpers/distributed-servers.js';

// Idempotency-Key records on both stores (the same SQL), two stores sharing one database as two
// gateways do: the first request's job is answered again, never a second one.

const principal = { accountId: 'acct_idem', key: { id: 'key_idem' } } as unknown as Principal;

/** Creates and stores one job, counting the calls. */
function creator(store: Store) {
  const made: string[] = [];
  return {
    made,
    create: async () => {
      const job = buildJob({ principal, kind: 'single', language: 'am', requestedModel: '', audioUrl: 'https://example.org/a.wav' });
      await store.jobs.insert([job]);
      made.push(job.id);
      return job.id;
    },
  };
}

const codeOf = async (work: Promise<unknown>): Promise<string | null> =>
  work.then(
    () => null,
    (error: unknown) => (isApiError(error) ? error.code : String(error)),
  );

const backends: [string, () => Promise<{ open: () => Promise<Store>; destroy: () => Promise<void> }>, boolean][] = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'idempotency-'));
      return { open: async () => SqliteStore.open(join(dir, 'gateway.db')), destroy: async () => rmSync(dir, { recursive: true, force: true }) };
    },
    false,
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = await createTestSchema('idempotency');
      return { open: () => PostgresStore.open({ connectionString: schema.url, poolSize: 2 }), destroy: () => schema.drop() };
    },
    await skipWithout('postgres'),
  ],
];

describe.each(backends)('IdempotentSubmissions on %s', (_name, backend, skip) => {
  let stores: Store[] = [];
  let destroy: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    if (skip) return;
    const opened = await backend();
    destroy = opened.destroy;
    // Two stores on one database: two gateways.
    stores = [await opened.open(), await opened.open()];
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await destroy();
  });

  it.skipIf(skip)('answers the first job to a retry through either gateway; another request under the key is 422', async () => {
    const [a, b] = stores as [Store, Store];
    const first = new IdempotentSubmissions({ keys: a.idempotency, jobs: a.jobs });
    const second = new IdempotentSubmissions({ keys: b.idempotency, jobs: b.jobs });
    const jobs = creator(a);
    const created = await first.submit('acct_idem', 'k-1', 'fp-1', jobs.create);
    expect(created.replayed).toBe(false);
    expect(await second.submit('acct_idem', 'k-1', 'fp-1', jobs.create)).toEqual({ jobId: created.jobId, replayed: true });
    expect(jobs.made).toEqual([created.jobId]);
    expect(await codeOf(second.submit('acct_idem', 'k-1', 'fp-2', jobs.create))).toBe('idempotency_key_reused');
    // Another account's key of the same name is its own.
    expect((await second.submit('acct_other', 'k-1', 'fp-2', jobs.create)).replayed).toBe(false);
  });

  it.skipIf(skip)('is 409 while the first request is still submitting, and frees the key when it fails', async () => {
    const [a, b] = stores as [Store, Store];
    const first = new IdempotentSubmissions({ keys: a.idempotency, jobs: a.jobs });
    const second = new IdempotentSubmissions({ keys: b.idempotency, jobs: b.jobs });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const slow = first.submit('acct_idem', 'k-2', 'fp', async () => {
      await held;
      throw new Error('admission refused');
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(await codeOf(second.submit('acct_idem', 'k-2', 'fp', creator(b).create))).toBe('idempotency_key_in_use');
    release();
    await expect(slow).rejects.toThrow('admission refused');
    // The failed submission created nothing: a retry runs.
    expect((await second.submit('acct_idem', 'k-2', 'fp', creator(b).create)).replayed).toBe(false);
  });

  it.skipIf(skip)('hands the key on when its job was deleted, its request died, or its window ended', async () => {
    const [a] = stores as [Store];
    const submissions = new IdempotentSubmissions({ keys: a.idempotency, jobs: a.jobs });
    const jobs = creator(a);
    const gone = await submissions.submit('acct_idem', 'k-3', 'fp', jobs.create);
    await a.jobs.delete([gone.jobId]);
    const again = await submissions.submit('acct_idem', 'k-3', 'fp', jobs.create);
    expect(again.replayed).toBe(false);
    expect(again.jobId).not.toBe(gone.jobId);

    const old = new Date(Date.now() - 25 * 3600_000).toISOString();
    await a.idempotency.insert({ accountId: 'acct_idem', idempotencyKey: 'k-4', fingerprint: 'other', jobId: null, createdAt: old, expiresAt: old });
    expect((await submissions.submit('acct_idem', 'k-4', 'fp', jobs.create)).replayed).toBe(false);
    const abandoned = new Date(Date.now() - 120_000).toISOString();
    const later = new Date(Date.now() + 3600_000).toISOString();
    await a.idempotency.insert({ accountId: 'acct_idem', idempotencyKey: 'k-5', fingerprint: 'fp', jobId: null, createdAt: abandoned, expiresAt: later });
    expect((await submissions.submit('acct_idem', 'k-5', 'fp', jobs.create)).replayed).toBe(false);
    expect(await a.idempotency.deleteExpired(new Date(Date.now() + 48 * 3600_000).toISOString())).toBeGreaterThanOrEqual(3);
  });
});
