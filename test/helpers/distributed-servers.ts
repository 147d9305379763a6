import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

/** The local servers the README names; overridable for other set-ups. */
export const POSTGRES_URL = process.env['TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env['TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

const inCi = (): boolean => (process.env['CI'] ?? '') !== '' && process.env['CI'] !== 'false';

async function probePostgres(): Promise<string | null> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return null;
  } catch (error) {
    return (error as Error).message || String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function probeRedis(): Promise<string | null> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  let cause: Error | null = null;
  redis.on('error', (error: Error) => (cause = error));
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (error) {
    return (cause as Error | null)?.message ?? ((error as Error).message || String(error));
  } finally {
    redis.disconnect();
  }
}

/**
 * Whether tests that need these servers should be skipped: only when one is unreachable and CI
 * is not set (a message says so). With CI set an unreachable server fails the test file at once,
 * with the reason.
 */
export async function skipWithout(...servers: ('postgres' | 'redis')[]): Promise<boolean> {
  const problems: string[] = [];
  for (const server of servers) {
    const problem = server === 'postgres' ? await probePostgres() : await probeRedis();
    if (problem !== null) problems.push(`${server === 'postgres' ? `PostgreSQL (${POSTGRES_URL})` : `Redis (${REDIS_URL})`}: ${problem}`);
  }
  if (problems.length === 0) return false;
  if (inCi()) throw new Error(`CI is set and these tests need ${problems.join('; ')}`);
  process.stderr.write(`SKIPPED: these tests need ${problems.join('; ')}. Start the servers, or set CI=1 to make this a failure.\n`);
  return true;
}

/** A client connected to the test Redis, for tests that always need one: throws at once, with the reason, when it cannot connect. */
export async function connectTestRedis(): Promise<Redis> {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: true });
  try {
    await redis.connect();
  } catch (error) {
    throw new Error(`Redis is required for this test (CI=${process.env['CI'] ?? ''}): ${(error as Error).message}`);
  }
  return redis;
}

export interface TestSchema {
  /** DATABASE_URL that selects the schema (search_path) on every connection. */
  readonly url: string;
  readonly schema: string;
  drop(): Promise<void>;
}

/** A fresh schema for one test file, so parallel files never collide; `drop` removes it and everything in it. */
export async function createTestSchema(label: string): Promise<TestSchema> {
  const schema = `gwt_${label
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, 20)}_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5_000 });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    schema,
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 5_000 });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

/** A Redis key prefix for one test run, and the clean-up that deletes every key under it. */
export function testRedisPrefix(label: string): { prefix: string; clean: () => Promise<void> } {
  const prefix = `gwt:${label}:${process.pid}:${randomBytes(4).toString('hex')}`;
  return {
    prefix,
    clean: async () => {
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      try {
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
          cursor = next;
          if (keys.length > 0) await redis.del(...keys);
        } while (cursor !== '0');
      } finally {
        await redis.quit().catch(() => redis.disconnect());
      }
    },
  };
}
