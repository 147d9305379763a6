// WebSocket session records under a lease (issue 34 item 5): the gateway renews a live session's
// record and clears the lease when the session ends; a record whose lease lapsed (its gateway
// crashed) is ended `failed` with a reason by the sweep, once however many processes sweep, and
// at the start of the only process using a SQLite store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildJob } from '../../src/jobs/new-job.js';
import { SESSION_LOST_MESSAGE } from '../../src/jobs/orphaned-sessions.js';
import type { JobRecord } from '../../src/platform/db/job-records.js';
import { PostgresStore } from '../../src/platform/db/postgres/postgres-store.js';
import type { Store } from '../../src/platform/db/store-types.js';
import { UsageRecorder } from '../../src/platform/limits/usage-recorder.js';
import type { SessionSettings } from '../../src/streaming/ws-query.js';
import { SessionRecords } from '../../src/streaming/ws-session-record.js';
import type { SessionOutcome } from '../../src/streaming/ws-session.js';
import { skipWithout } from '../helpers/distributed-servers.js';
import { silentLogger, testJobService, testPrincipal, withSqliteStore } from '../helpers/job-services.js';
import { useTestSchema } from '../helpers/suite-fixtures.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const principal = testPrincipal('sessions');

/** A session record as a gateway left it: `processing`, under `leaseOwner` until `leaseUntil`. */
function sessionRecord(leaseOwner: string | null, leaseUntil: string | null): JobRecord {
  return {
    ...buildJob({ principal, kind: 'websocket', language: 'am', requestedModel: '', status: 'processing', options: { session_id: 'ws_x' } }),
    progress: { stage: 'streaming', percent: 0, total_segments: 0, done_segments: 0 },
    leaseOwner,
    leaseUntil,
  };
}

const SETTINGS = {
  language: 'am',
  requestedModel: '',
  model: 'tiny',
  format: 'pcm_s16le',
  serverVad: true,
  vadType: 'energy',
  channels: 1,
  channelNames: [],
  record: false,
} as unknown as SessionSettings;

const OUTCOME: SessionOutcome = {
  status: 'completed',
  text: 'selam',
  segments: [],
  language: 'am',
  model: 'tiny',
  audioSeconds: 1,
  error: null,
  endReason: 'end',
  stats: {} as SessionOutcome['stats'],
};

function expectLost(job: JobRecord | null): void {
  expect(job).toMatchObject({
    status: 'failed',
    leaseOwner: null,
    leaseUntil: null,
    error: { type: 'server_error', code: 'internal_error', message: SESSION_LOST_MESSAGE },
    options: { session_id: 'ws_x', end_reason: 'server_lost' },
  });
  expect(job!.completedAt).not.toBeNull();
}

const skip = await skipWithout('postgres');

describe.skipIf(skip)('WebSocket session records on PostgreSQL (several gateways)', () => {
  const schema = useTestSchema('session-leases');
  let store: Store;

  beforeAll(async () => {
    store = await PostgresStore.open({ connectionString: schema.url, poolSize: 4 });
  });
  afterAll(async () => store?.close());

  it('ends records whose lease lapsed, once however many processes sweep, and leaves live sessions alone', async () => {
    const past = new Date(Date.now() - 1_000).toISOString();
    const live = sessionRecord('alive', new Date(Date.now() + 60_000).toISOString());
    const lapsed = sessionRecord('crashed', past);
    const unleased = sessionRecord(null, null);
    await store.jobs.insert([live, lapsed, unleased]);
    const others = [1, 2, 3].map(() => testJobService(store, { soleProcess: false }));
    const staleBefore = new Date(Date.now() - 60_000).toISOString();
    const results = await Promise.all(others.map((o) => o.jobs.sweep(staleBefore)));
    expect(results.reduce((n, r) => n + r.sessionsEnded, 0)).toBe(2);
    expectLost(await store.jobs.get(lapsed.id));
    expectLost(await store.jobs.get(unleased.id));
    expect(await store.jobs.get(live.id)).toMatchObject({ status: 'processing', leaseOwner: 'alive' });
    // A gateway starting now leaves the live session alone too.
    const starting = testJobService(store, { soleProcess: false });
    await starting.jobs.recover();
    expect(await store.jobs.get(live.id)).toMatchObject({ status: 'processing', leaseOwner: 'alive' });
    for (const o of [...others, starting]) await o.close();
  });

  it('renews an open session record, clears its lease when it ends, and lets it lapse after close()', async () => {
    const usage = new UsageRecorder(store.usage, silentLogger, 60_000);
    const records = new SessionRecords(store.jobs, usage, silentLogger, { owner: 'gateway-a', leaseMs: 300 });
    const ending = records.open('tr_session_leases_ending', 'ws_a', principal, SETTINGS);
    const kept = records.open('tr_session_leases_kept', 'ws_b', principal, SETTINGS);
    await Promise.all([ending.inserted, kept.inserted]);
    const opened = (await store.jobs.get('tr_session_leases_ending'))!;
    expect(opened).toMatchObject({ status: 'processing', leaseOwner: 'gateway-a' });
    await sleep(450);
    const renewed = (await store.jobs.get('tr_session_leases_ending'))!;
    expect(Date.parse(renewed.leaseUntil!)).toBeGreaterThan(Date.parse(opened.leaseUntil!));
    expect(Date.parse(renewed.leaseUntil!)).toBeGreaterThan(Date.now());
    // No sweep ends a session whose gateway renews it.
    const other = testJobService(store, { soleProcess: false });
    await other.jobs.sweep(new Date(0).toISOString());
    expect(await store.jobs.get('tr_session_leases_kept')).toMatchObject({ status: 'processing' });
    await records.finish('tr_session_leases_ending', principal.key.id, ending, OUTCOME, Date.now() - 1_000);
    expect(await store.jobs.get('tr_session_leases_ending')).toMatchObject({ status: 'completed', text: 'selam', leaseOwner: null, leaseUntil: null });
    // Shutdown with a session still open: the lease is no longer renewed, and the sweep ends the record.
    records.close();
    await sleep(400);
    expect((await other.jobs.sweep(new Date(0).toISOString())).sessionsEnded).toBeGreaterThanOrEqual(1);
    expect(await store.jobs.get('tr_session_leases_kept')).toMatchObject({ status: 'failed', options: { end_reason: 'server_lost' } });
    await other.close();
    await usage.close();
  });
});

describe('WebSocket session records on SQLite (one process)', () => {
  it('ends every session record left processing at start, live lease or not', async () => {
    await withSqliteStore('session-leases-', async (store) => {
      const left = sessionRecord('previous-run', new Date(Date.now() + 60_000).toISOString());
      const done = { ...sessionRecord(null, null), status: 'completed' as const };
      await store.jobs.insert([left, done]);
      const s = testJobService(store, { soleProcess: true });
      expect(await s.jobs.recover()).toEqual({ requeued: 0, failed: 0 });
      expectLost(await store.jobs.get(left.id));
      expect(await store.jobs.get(done.id)).toMatchObject({ status: 'completed' });
      await s.close();
    });
  });
});
