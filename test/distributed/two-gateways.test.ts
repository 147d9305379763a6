import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_MIGRATIONS } from '../../src/platform/db/postgres/migrations/index.js';
import { audioFixture, makeLongAudio } from '../helpers/audio-files.js';
import { REDIS_URL, skipWithout, testRedisPrefix } from '../helpers/distributed-servers.js';
import { useTestSchema } from '../helpers/suite-fixtures.js';
import { JobsClient } from '../helpers/jobs-client.js';
import { createKeyWithCli, REPO_ROOT, startServerProcess, stopProcess, type ServerProcess } from '../helpers/spawn-dist.js';
import { connect, wsUrl, connectReady } from '../ws/ws-client.js';

/**
 * Two compiled gateway processes sharing one PostgreSQL schema, one Redis prefix and one data
 * folder (the shared volume), as a deployment of several gateways behind a load balancer.
 */
type Server = ServerProcess & { readonly name: string };

const skip = await skipWithout('postgres', 'redis');

describe.skipIf(skip)('two gateways on one PostgreSQL and one Redis', () => {
  const schema = useTestSchema('twogw');
  let redis: ReturnType<typeof testRedisPrefix>;
  let dataDir: string;
  let env: Record<string, string>;
  let db: pg.Client;
  const servers: Server[] = [];

  async function start(name: string): Promise<Server> {
    const server = { ...(await startServerProcess(env)), name };
    servers.push(server);
    return server;
  }

  const completedLines = (server: Server, jobId: string) =>
    server
      .output()
      .split('\n')
      .filter((line) => line.includes(`"jobId":"${jobId}"`) && line.includes('"msg":"job completed"')).length;

  const createKey = (...args: string[]): Promise<string> => createKeyWithCli('fleet', env, args, 30_000);

  let a: Server;
  let b: Server;

  beforeAll(async () => {
    redis = testRedisPrefix('twogw');
    dataDir = mkdtempSync(join(tmpdir(), 'two-gateways-'));
    env = {
      STORE_BACKEND: 'postgres',
      DATABASE_URL: schema.url,
      DATABASE_POOL_SIZE: '4',
      QUEUE_BACKEND: 'redis',
      CACHE_BACKEND: 'redis',
      RATE_LIMIT_BACKEND: 'redis',
      REDIS_URL,
      REDIS_KEY_PREFIX: redis.prefix,
      SIGNING_SECRET: 'two-gateways-test-signing-secret-0123456789',
      PUBLIC_BASE_URL: 'http://gateways.test',
      DATA_DIR: dataDir,
      MODELS_DIR: join(REPO_ROOT, 'test', 'fixtures', 'models'),
      INFERENCE_WORKERS: '1',
      JOB_WORKERS: '2',
      // Short leases: a stopped process's job is taken over about two seconds after its last renewal.
      JOB_LEASE_SECONDS: '2',
      RATE_LIMIT_PER_MINUTE: '100000',
      ALLOW_PRIVATE_NETWORK: 'true',
    };
    // Both start (and migrate) at the same moment.
    [a, b] = await Promise.all([start('a'), start('b')]);
    db = new pg.Client({ connectionString: schema.url });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    for (const server of servers) await stopProcess(server.child, 'SIGKILL');
    await db?.end().catch(() => undefined);
    await redis?.clean();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('reports the shared backends and their connectivity in /health', async () => {
    for (const server of [a, b]) {
      const health = (await (await fetch(`${server.url}/health`)).json()) as Record<string, any>;
      expect(health['storage']['database']).toEqual({ backend: 'postgres', ok: true });
      expect(health['storage']['files']).toMatchObject({ backend: 'local', ok: true });
      expect(health['queue']).toEqual({ backend: 'redis', ok: true });
      expect(health['cache']).toEqual({ backend: 'redis', ok: true });
      expect(health['rate_limiter']).toEqual({ backend: 'redis', ok: true });
    }
    // Two gateways started on one schema: each migration recorded once.
    const { rows } = await db.query('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0].n).toBe(POSTGRES_MIGRATIONS.length);
  });

  it('shows jobs submitted to one gateway on the other, runs each once, and serves its signed links on both', async () => {
    const key = await createKey();
    const onA = new JobsClient(a.url, key);
    const onB = new JobsClient(b.url, key);
    const submitted = [];
    for (let i = 0; i < 4; i++) {
      const response = await (i % 2 === 0 ? onA : onB).submitFile(audioFixture('speech-am.wav'), { language: 'am' });
      expect(response.status).toBe(202);
      submitted.push(response.body.id as string);
    }
    for (const [i, id] of submitted.entries()) {
      // Read through the gateway that did not accept it.
      const finished = await (i % 2 === 0 ? onB : onA).waitFor(id, undefined, 90_000);
      expect(finished.status).toBe('completed');
      expect(finished.text.length).toBeGreaterThan(0);
    }
    for (const id of submitted) {
      expect(completedLines(a, id) + completedLines(b, id)).toBe(1);
      const { rows } = await db.query('SELECT attempts, lease_owner FROM jobs WHERE id = $1', [id]);
      expect(rows[0]).toEqual({ attempts: 1, lease_owner: null });
    }
    // The list is the same on both.
    const list = async (server: Server) =>
      ((await (await fetch(`${server.url}/v1/transcriptions?limit=10`, { headers: onA.headers() })).json()) as { data: { id: string }[] }).data.map(
        (j) => j.id,
      );
    expect(await list(a)).toEqual(await list(b));
    // A signed link issued by one gateway (shared SIGNING_SECRET, shared files) works on the other.
    const redirect = await fetch(`${a.url}/v1/transcriptions/${submitted[1]}/transcript`, { headers: onA.headers(), redirect: 'manual' });
    expect(redirect.status).toBe(302);
    const location = new URL(redirect.headers.get('location')!);
    expect(location.origin).toBe('http://gateways.test');
    const transcript = await fetch(`${b.url}${location.pathname}${location.search}`);
    expect(transcript.status).toBe(200);
    expect(((await transcript.json()) as { id: string }).id).toBe(submitted[1]);
    // A sync request answered by one process for a job the other may run still returns promptly.
    const started = Date.now();
    const sync = await onB.submitFile(audioFixture('speech-am.wav'), { language: 'am', mode: 'sync' });
    expect(sync.body.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 180_000);

  it("counts a key's requests against one limit, whichever gateway serves them", async () => {
    const hour = () => Math.floor(Date.now() / 3_600_000);
    for (let round = 0; ; round++) {
      const key = await createKey('--rate-limit-hour', '5');
      const before = hour();
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const response = await fetch(`${(i % 2 === 0 ? a : b).url}/v1/languages`, { headers: { authorization: `Bearer ${key}` } });
        await response.arrayBuffer();
        statuses.push(response.status);
      }
      // An hour boundary crossed mid-sequence starts a new window: once more with a new key.
      if (hour() !== before && round === 0) continue;
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
      break;
    }
  });

  it("counts a key's open WebSocket sessions against one limit, whichever gateway holds them", async () => {
    const key = await createKey('--ws-connections', '2');
    const headers = { authorization: `Bearer ${key}` };
    const first = connect(wsUrl(a.url), headers);
    const second = connect(wsUrl(b.url), headers);
    await Promise.all([first.waitFor('ready'), second.waitFor('ready')]);
    for (const server of [a, b]) {
      const third = connect(wsUrl(server.url), headers);
      const error = await third.waitFor('error');
      expect(error['error']).toMatchObject({ code: 'connection_limit_exceeded' });
      expect((await third.closed).code).toBe(4029);
    }
    const openSessions = async (): Promise<unknown> => {
      const usage = (await (await fetch(`${b.url}/v1/usage`, { headers })).json()) as Record<string, unknown>;
      expect(usage['websocket_connections_limit']).toBe(2);
      return usage['websocket_connections'];
    };
    expect(await openSessions()).toBe(2);
    // A session closed on one gateway frees its slot for the other (once gateway a has seen the close).
    first.close();
    await first.closed;
    for (let i = 0; i < 100 && (await openSessions()) !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await openSessions()).toBe(1);
    const again = await connectReady(wsUrl(b.url), headers);
    for (const s of [second, again]) s.close();
    await Promise.all([second.closed, again.closed]);
  });

  it('finishes the job of a killed gateway on the other one once its lease has expired', async () => {
    const key = await createKey();
    const long = makeLongAudio(join(dataDir, 'long.flac'), 40);
    const client = new JobsClient(a.url, key);
    const created = await client.submitFile(long, { language: 'am' });
    expect(created.status).toBe(202);
    const id = created.body.id as string;
    await client.waitFor(id, (j) => j.status === 'processing', 60_000);
    const { rows } = await db.query<{ lease_owner: string; lease_until: string }>('SELECT lease_owner, lease_until FROM jobs WHERE id = $1', [id]);
    const owner = rows[0]!.lease_owner;
    const victim = [a, b].find((s) => owner.split('/')[1] === String(s.child.pid))!;
    const survivor = victim === a ? b : a;
    expect(victim).toBeDefined();
    await stopProcess(victim.child, 'SIGKILL');

    const watcher = new JobsClient(survivor.url, key);
    const finished = await watcher.waitFor(id, undefined, 150_000);
    expect(finished.status).toBe('completed');
    expect(finished.duration_seconds).toBeGreaterThan(19 * 60);
    expect(survivor.output()).toContain('took over jobs whose gateway process stopped');
    expect(completedLines(survivor, id)).toBe(1);
    expect(completedLines(victim, id)).toBe(0);
    const after = await db.query('SELECT attempts, lease_owner FROM jobs WHERE id = $1', [id]);
    expect(after.rows[0]).toEqual({ attempts: 2, lease_owner: null });
  }, 240_000);
});
