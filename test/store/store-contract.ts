// Over 500 lines as one suite: the contract every Store backend runs, area by area, on shared stores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../src/platform/auth/principal.js';
import { JOB_NOT_STARTED, type JobRecord } from '../../src/platform/db/job-records.js';
import type { MediaRecord } from '../../src/platform/db/media-records.js';
import { InvalidCursorError } from '../../src/platform/db/cursor.js';
import type { NewApiKey, Store } from '../../src/platform/db/store-types.js';
import { CALLBACK_NOT_SCHEDULED, type TranslationJobRecord, type TranslationUnitRecord } from '../../src/platform/db/translation-records.js';
import type { DeliveryRecord, WebhookRecord } from '../../src/platform/db/webhook-records.js';
import { deliveryRecord } from '../helpers/delivery-records.js';

/**
 * A place several stores can share, as several gateway processes share one database: `open`
 * may be called more than once, and every store it returns sees the same data.
 */
export interface StoreBackend {
  open(): Promise<Store>;
  /** Closes nothing it opened (the suite does); removes the data. */
  destroy(): Promise<void>;
}

const T0 = Date.parse('2026-03-01T08:00:00.000Z');
/** An instant `s` seconds after T0 (milliseconds kept). */
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

let counter = 0;
const uid = (prefix: string): string => `${prefix}_${(++counter).toString().padStart(6, '0')}${Math.random().toString(16).slice(2, 10)}`;

function job(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: uid('tr'),
    accountId: 'acct_a',
    keyId: 'key_a',
    kind: 'single',
    api: 'unified',
    parentId: null,
    position: 0,
    status: 'queued',
    requestedLanguage: 'auto',
    language: 'am',
    requestedModel: '',
    mode: 'async',
    audioUrl: 'https://example.com/a.mp3',
    audioObject: null,
    audioFilename: null,
    audioBytes: null,
    ...JOB_NOT_STARTED,
    options: {},
    eventsPending: false,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

function media(overrides: Partial<MediaRecord> = {}): MediaRecord {
  const id = uid('file');
  return {
    id,
    accountId: 'acct_m',
    keyId: 'key_m',
    status: 'ready',
    source: 'upload',
    storageKey: `accounts/acct_m/media/${id}/file`,
    filename: 'talk.mp3',
    contentType: 'audio/mpeg',
    expectedBytes: null,
    sizeBytes: 12_345,
    format: 'mp3',
    durationSeconds: 8.14,
    createdAt: at(0),
    uploadedAt: at(0),
    finalizedAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

function webhook(overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id: uid('wh'),
    accountId: 'acct_w',
    keyId: 'key_w',
    url: 'https://example.com/hook',
    events: ['*'],
    secret: null,
    description: '',
    status: 'active',
    consecutiveFailures: 0,
    createdAt: at(0),
    updatedAt: at(0),
    lastDeliveryAt: null,
    lastSuccessAt: null,
    lastFailureAt: null,
    disabledAt: null,
    ...overrides,
  };
}

function delivery(webhookId: string, dueAt: string, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return deliveryRecord(uid('dlv'), webhookId, dueAt, at(0), { payload: '{"id":"evt","event":"job.completed","data":{"b":1,"a":2}}', ...overrides });
}

function newKey(accountId: string, overrides: Partial<NewApiKey> = {}): NewApiKey {
  return {
    accountId,
    name: 'ci',
    prefix: 'sk_abcdefgh',
    hash: uid('hash'),
    scopes: ['read', 'write'],
    ipAllowlist: ['203.0.113.0/24'],
    originAllowlist: null,
    limits: { requestsPerMinute: 5, concurrentJobs: 2 },
    expiresAt: at(86_400),
    ...overrides,
  };
}

const claimRequest = (owner: string, max = 100) => ({
  owner,
  leaseUntil: at(60),
  maxRunningForKey: max,
  patch: { startedAt: at(1), progress: { stage: 'decoding', percent: 0, total_segments: 0, done_segments: 0 } },
});

/** The behaviour every Store backend must have; run once per backend. */
export function storeContract(name: string, makeBackend: () => Promise<StoreBackend>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip ?? false)(`Store contract: ${name}`, () => {
    let backend: StoreBackend;
    let store: Store;
    /** A second store on the same data, as a second gateway process would have. */
    let other: Store;

    beforeAll(async () => {
      backend = await makeBackend();
      [store, other] = await Promise.all([backend.open(), backend.open()]);
    });

    afterAll(async () => {
      await store?.close();
      await other?.close();
      await backend?.destroy();
    });

    describe('jobs', () => {
      it('stores every field and reads it back unchanged', async () => {
        const full = job({
          accountId: 'acct_rt',
          status: 'completed',
          requestedModel: 'tiny-ctc',
          model: 'tiny-ctc-am',
          audioObject: 'accounts/acct_rt/jobs/x/audio',
          audioFilename: 'ሰላም.mp3',
          audioBytes: 6_000_000_000,
          transcriptObject: 'accounts/acct_rt/jobs/x/transcript.json',
          text: 'ሰላም ዓለም',
          segments: [{ id: 0, start_ms: 0, end_ms: 1500, duration_ms: 1500, text: 'ሰላም ዓለም', speaker: null, confidence: 0.87 }],
          progress: { stage: 'completed', percent: 100, total_segments: 1, done_segments: 1 },
          durationSeconds: 1.5,
          processingTimeSeconds: 0.42,
          error: { type: 'server_error', code: 'internal_error', message: 'none' },
          options: { zeta: 1, alpha: { nested: [1, 'two', null] }, flag: true },
          attempts: 2,
          eventsPending: true,
          leaseOwner: 'host/1/abc',
          leaseUntil: at(90),
          startedAt: at(1),
          completedAt: at(2),
          updatedAt: at(2),
        });
        await store.jobs.insert([full]);
        const read = await other.jobs.get(full.id);
        expect(read).toEqual(full);
        // Documents keep their key order (API output is the same on every backend).
        expect(JSON.stringify(read!.options)).toBe(JSON.stringify(full.options));
        expect(JSON.stringify(read!.segments)).toBe(JSON.stringify(full.segments));
        expect(await store.jobs.get('tr_missing')).toBeNull();
      });

      it('applies updates only from the given statuses and under the given lease conditions', async () => {
        const j = job({ status: 'processing', leaseOwner: 'p1', leaseUntil: at(30) });
        await store.jobs.insert([j]);
        expect(await store.jobs.update(j.id, { text: 'x' }, ['queued'])).toBeNull();
        expect(await store.jobs.update(j.id, { text: 'x' }, ['processing'], { leaseOwner: 'p2' })).toBeNull();
        expect(await store.jobs.update(j.id, { text: 'x' }, ['processing'], { leaseExpiredAt: at(29) })).toBeNull();
        const updated = await store.jobs.update(j.id, { text: 'held', segments: [] }, ['processing'], { leaseOwner: 'p1' });
        expect(updated).toMatchObject({ text: 'held', segments: [], status: 'processing' });
        expect(updated!.updatedAt).not.toBe(j.updatedAt);
        const taken = await other.jobs.update(j.id, { status: 'queued', leaseOwner: null, leaseUntil: null }, ['processing'], { leaseExpiredAt: at(30) });
        expect(taken).toMatchObject({ status: 'queued', leaseOwner: null, leaseUntil: null, text: 'held' });
        expect(await store.jobs.update(j.id, { progress: null })).toMatchObject({ progress: null });
        expect(await store.jobs.update('tr_missing', { text: 'x' })).toBeNull();
      });

      it('lets exactly one of many concurrent conditional transitions win', async () => {
        const j = job();
        await store.jobs.insert([j]);
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            (i % 2 === 0 ? store : other).jobs.update(j.id, { status: 'cancelled', text: `winner ${i}` }, ['queued', 'processing']),
          ),
        );
        const winners = results.filter((r) => r !== null);
        expect(winners).toHaveLength(1);
        expect((await store.jobs.get(j.id))!.text).toBe(winners[0]!.text);
      });

      it('claims a queued job once, counting the attempt and setting the lease', async () => {
        const j = job({ keyId: uid('key'), attempts: 1 });
        await store.jobs.insert([j]);
        const first = await store.jobs.claim(j.id, claimRequest('owner-1'));
        expect(first.outcome).toBe('claimed');
        if (first.outcome !== 'claimed') return;
        expect(first.job).toMatchObject({ status: 'processing', attempts: 2, leaseOwner: 'owner-1', leaseUntil: at(60), startedAt: at(1) });
        expect(first.job.progress).toEqual({ stage: 'decoding', percent: 0, total_segments: 0, done_segments: 0 });
        expect(await other.jobs.claim(j.id, claimRequest('owner-2'))).toEqual({ outcome: 'not_queued' });
        expect(await other.jobs.claim('tr_missing', claimRequest('owner-2'))).toEqual({ outcome: 'not_queued' });
      });

      it("keeps a key's running jobs within its limit when two stores claim at once", async () => {
        const keyId = uid('key');
        const jobs = Array.from({ length: 10 }, (_, i) => job({ keyId, createdAt: at(i), updatedAt: at(i) }));
        // Jobs of other kinds and other keys do not count against the limit.
        await store.jobs.insert([
          ...jobs,
          job({ keyId, kind: 'batch', status: 'processing' }),
          job({ keyId, kind: 'websocket', status: 'processing' }),
          job({ keyId: uid('key'), status: 'processing' }),
        ]);
        const results = await Promise.all(jobs.map((j, i) => (i % 2 === 0 ? store : other).jobs.claim(j.id, claimRequest(`owner-${i % 2}`, 3))));
        expect(results.filter((r) => r.outcome === 'claimed')).toHaveLength(3);
        expect(results.filter((r) => r.outcome === 'busy')).toHaveLength(7);
        const busy = jobs.find((_, i) => results[i]!.outcome === 'busy')!;
        expect(await store.jobs.get(busy.id)).toMatchObject({ status: 'queued', attempts: 0, leaseOwner: null });
        // A finished job frees its slot.
        const claimed = jobs.find((_, i) => results[i]!.outcome === 'claimed')!;
        await store.jobs.update(claimed.id, { status: 'completed', leaseOwner: null, leaseUntil: null }, ['processing']);
        expect((await other.jobs.claim(busy.id, claimRequest('owner-1', 3))).outcome).toBe('claimed');
      });

      it('renews only the leases the owner still holds, and finds expired ones', async () => {
        const mine = job({ status: 'processing', leaseOwner: 'me', leaseUntil: at(10), createdAt: at(1) });
        const theirs = job({ status: 'processing', leaseOwner: 'them', leaseUntil: at(10), createdAt: at(2) });
        const cancelled = job({ status: 'cancelled', leaseOwner: 'me', leaseUntil: at(10), createdAt: at(3) });
        const orphan = job({ status: 'processing', leaseOwner: null, leaseUntil: null, createdAt: at(4), keyId: 'key_orphans' });
        const parent = job({ kind: 'batch', status: 'processing', createdAt: at(0) });
        const session = job({ kind: 'websocket', status: 'processing', createdAt: at(0) });
        await store.jobs.insert([mine, theirs, cancelled, orphan, parent, session]);
        expect(await other.jobs.renewLeases('me', [mine.id, theirs.id, cancelled.id, 'tr_missing'], at(40))).toEqual([mine.id]);
        expect(await store.jobs.renewLeases('me', [], at(40))).toEqual([]);
        const ours = [mine.id, theirs.id, cancelled.id, orphan.id, parent.id, session.id];
        const expiredAt = async (s: number) => (await store.jobs.findLeaseExpired(at(s), 1000)).map((j) => j.id).filter((id) => ours.includes(id));
        expect(await expiredAt(9)).toEqual([orphan.id]);
        expect(await expiredAt(10)).toEqual([theirs.id, orphan.id]);
        expect(await expiredAt(40)).toEqual([mine.id, theirs.id, orphan.id]);
      });

      it('finds WebSocket session records whose lease ended when asked for that kind', async () => {
        const live = job({ kind: 'websocket', status: 'processing', leaseOwner: 'me', leaseUntil: at(10), createdAt: at(1) });
        const unleased = job({ kind: 'websocket', status: 'processing', createdAt: at(2) });
        const ended = job({ kind: 'websocket', status: 'completed', createdAt: at(0) });
        const runnable = job({ status: 'processing', leaseOwner: 'me', leaseUntil: at(5), createdAt: at(0) });
        await store.jobs.insert([live, unleased, ended, runnable]);
        expect(await other.jobs.renewLeases('me', [live.id], at(20))).toEqual([live.id]);
        const ours = [live.id, unleased.id, ended.id, runnable.id];
        const sessions = async (s: number) =>
          (await store.jobs.findLeaseExpired(at(s), 1000, ['websocket'])).map((j) => j.id).filter((id) => ours.includes(id));
        expect(await sessions(19)).toEqual([unleased.id]);
        expect(await sessions(20)).toEqual([live.id, unleased.id]);
        expect((await store.jobs.findLeaseExpired(at(20), 1000)).map((j) => j.id).filter((id) => ours.includes(id))).toEqual([runnable.id]);
      });

      it('finds queued jobs not touched since an instant, oldest first', async () => {
        const old = job({ createdAt: at(-100), updatedAt: at(-100) });
        const older = job({ createdAt: at(-200), updatedAt: at(-50) });
        const fresh = job({ createdAt: at(-300), updatedAt: at(5) });
        const parent = job({ kind: 'batch', createdAt: at(-400), updatedAt: at(-400) });
        await store.jobs.insert([old, older, fresh, parent]);
        const ours = new Set([old.id, older.id, fresh.id, parent.id]);
        const ids = (await other.jobs.findQueuedIds(at(0), 10_000)).filter((id) => ours.has(id));
        expect(ids).toEqual([older.id, old.id]);
      });

      it('lists an account newest first with a stable cursor, filters and a total', async () => {
        const accountId = uid('acct');
        const single = (s: number, overrides: Partial<JobRecord> = {}) => job({ accountId, createdAt: at(s), updatedAt: at(s), ...overrides });
        const tied = [single(5, { id: `tr_tie_b_${accountId}` }), single(5, { id: `tr_tie_a_${accountId}` }), single(5, { id: `tr_tie_C_${accountId}` })];
        const parent = single(4, { kind: 'batch' });
        const child = single(4, { kind: 'batch_child', parentId: parent.id });
        const session = single(3, { kind: 'websocket', status: 'completed' });
        const jobApi = single(2, { api: 'job_api', kind: 'batch', status: 'failed' });
        await store.jobs.insert([...tied, parent, child, session, jobApi]);

        const pages: string[][] = [];
        let cursor: string | undefined;
        let total = -1;
        do {
          const page = await other.jobs.list({ accountId, limit: 2, ...(cursor ? { cursor } : {}) });
          total = page.total;
          pages.push(page.jobs.map((j) => j.id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        // Ties on created_at break on id, byte-wise descending ('b' > 'a' > 'C').
        expect(pages).toEqual([
          [tied[0]!.id, tied[1]!.id],
          [tied[2]!.id, parent.id],
          [session.id, jobApi.id],
        ]);
        expect(total).toBe(6);
        const ids = async (filter: Record<string, string>) => (await store.jobs.list({ accountId, limit: 50, ...filter })).jobs.map((j) => j.id);
        expect(await ids({ source: 'websocket' })).toEqual([session.id]);
        expect(await ids({ source: 'file', status: 'queued' })).toEqual([tied[0]!.id, tied[1]!.id, tied[2]!.id, parent.id]);
        expect(await ids({ api: 'job_api' })).toEqual([jobApi.id]);
        const filtered = await store.jobs.list({ accountId, status: 'failed', limit: 50 });
        expect([filtered.total, filtered.nextCursor]).toEqual([1, null]);
        for (const bad of [
          'not-a-cursor',
          Buffer.from('yesterday|tr_x').toString('base64url'),
          Buffer.from("2026-01-01T00:00:00.000Z'|x").toString('base64url'),
        ]) {
          await expect(store.jobs.list({ accountId, limit: 2, cursor: bad })).rejects.toBeInstanceOf(InvalidCursorError);
        }
      });

      it('orders children by position, counts active jobs and parents, and deletes with cascade', async () => {
        const keyId = uid('key');
        const parent = job({ keyId, kind: 'batch', status: 'processing' });
        const children = [2, 0, 1].map((position) =>
          job({ keyId, kind: 'batch_child', parentId: parent.id, position, status: position === 1 ? 'completed' : 'queued' }),
        );
        const jobApiParent = job({ keyId, kind: 'batch', api: 'job_api', status: 'queued' });
        await store.jobs.insert([parent, jobApiParent, ...children, job({ keyId, status: 'processing' }), job({ keyId, status: 'failed' })]);
        expect((await other.jobs.children(parent.id)).map((c) => c.position)).toEqual([0, 1, 2]);
        expect(await other.jobs.countActive(keyId)).toBe(3);
        expect(await other.jobs.countActiveParents(keyId, 'unified')).toBe(1);
        expect(await other.jobs.countActiveParents(keyId, 'job_api')).toBe(1);
        await store.jobs.delete([parent.id]);
        expect(await other.jobs.get(parent.id)).toBeNull();
        expect(await other.jobs.children(parent.id)).toEqual([]);
        expect(await other.jobs.get(children[0]!.id)).toBeNull();
        expect(await other.jobs.countActive(keyId)).toBe(1);
        await store.jobs.delete([]);
      });

      it('finds jobs by status and jobs with pending events, oldest first', async () => {
        const statusKey = uid('key');
        const a = job({ keyId: statusKey, status: 'cancelled', createdAt: at(-20) });
        const b = job({ keyId: statusKey, status: 'cancelled', createdAt: at(-30) });
        const pendingLate = job({ status: 'completed', eventsPending: true, completedAt: at(20) });
        const pendingEarly = job({ status: 'failed', eventsPending: true, completedAt: at(10) });
        await store.jobs.insert([a, b, pendingLate, pendingEarly]);
        const cancelled = (await other.jobs.findByStatus(['cancelled'])).filter((j) => j.keyId === statusKey);
        expect(cancelled.map((j) => j.id)).toEqual([b.id, a.id]);
        const parent = job({ keyId: statusKey, kind: 'batch', status: 'cancelled', createdAt: at(-40) });
        await store.jobs.insert([parent]);
        const ofKeys = async (kinds?: JobRecord['kind'][]) =>
          (await other.jobs.findByStatus(['cancelled', 'queued'], kinds)).filter((j) => j.keyId === statusKey).map((j) => j.id);
        expect(await ofKeys(['batch'])).toEqual([parent.id]);
        expect(await ofKeys(['single', 'batch_child'])).toEqual([b.id, a.id]);
        expect(await ofKeys()).toEqual([parent.id, b.id, a.id]);
        const pending = (await other.jobs.findEventsPending()).map((j) => j.id).filter((id) => id === pendingLate.id || id === pendingEarly.id);
        expect(pending).toEqual([pendingEarly.id, pendingLate.id]);
        await store.jobs.update(pendingEarly.id, { eventsPending: false });
        expect((await other.jobs.findEventsPending()).map((j) => j.id)).not.toContain(pendingEarly.id);
      });
    });

    describe('accounts and keys', () => {
      it('ensures an account once, also when two stores ask at the same moment', async () => {
        const name = uid('acme');
        const [x, y] = await Promise.all([store.accounts.ensure(name), other.accounts.ensure(name)]);
        expect(x.id).toBe(y.id);
        expect(await store.accounts.ensure(name)).toEqual(x);
        expect(await other.accounts.get(x.id)).toEqual(x);
        expect(await other.accounts.findByName(name)).toEqual(x);
        expect(await other.accounts.findByName('nobody')).toBeNull();
        expect((await other.accounts.list()).filter((a) => a.name === name)).toEqual([x]);
      });

      it('creates, finds, lists, revokes once and touches keys', async () => {
        const account = await store.accounts.ensure(uid('keys'));
        const created = await store.apiKeys.create(newKey(account.id));
        const expected: Partial<ApiKeyRecord> = {
          accountId: account.id,
          name: 'ci',
          prefix: 'sk_abcdefgh',
          scopes: ['read', 'write'],
          ipAllowlist: ['203.0.113.0/24'],
          originAllowlist: null,
          limits: { requestsPerMinute: 5, concurrentJobs: 2 },
          expiresAt: at(86_400),
          revokedAt: null,
          lastUsedAt: null,
        };
        expect(created).toMatchObject(expected);
        const hash = newKey(account.id).hash;
        const second = await store.apiKeys.create(
          newKey(account.id, {
            hash,
            name: null,
            scopes: ['admin'],
            ipAllowlist: null,
            originAllowlist: ['https://*.example.com'],
            limits: {},
            expiresAt: null,
          }),
        );
        expect(await other.apiKeys.findByHash(hash)).toEqual(second);
        expect(await other.apiKeys.get(created.id)).toEqual(created);
        expect(await other.apiKeys.findByHash('nope')).toBeNull();
        await expect(other.apiKeys.create(newKey(account.id, { hash }))).rejects.toThrow();
        // Listing order is creation time, then id (keys made in the same millisecond tie on time).
        const inListOrder = [created, second].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id)).map((k) => k.id);
        expect((await other.apiKeys.list({ accountId: account.id })).map((k) => k.id)).toEqual(inListOrder);
        const revoked = await other.apiKeys.revoke(created.id, at(100));
        expect(revoked!.revokedAt).toBe(at(100));
        expect((await store.apiKeys.revoke(created.id, at(200)))!.revokedAt).toBe(at(100));
        expect(await store.apiKeys.revoke('key_missing', at(200))).toBeNull();
        expect((await store.apiKeys.list({ accountId: account.id })).map((k) => k.id)).toEqual([second.id]);
        expect((await store.apiKeys.list({ accountId: account.id, includeRevoked: true })).map((k) => k.id)).toEqual(inListOrder);
        expect((await store.apiKeys.list({})).map((k) => k.id)).toContain(second.id);
        await other.apiKeys.touch(second.id, at(300));
        expect((await store.apiKeys.get(second.id))!.lastUsedAt).toBe(at(300));
      });
    });

    describe('usage', () => {
      it('adds from several stores at once and reads zero-filled days oldest first', async () => {
        const keyId = uid('key');
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 === 0 ? store : other).usage.add(keyId, '2026-03-02', { requests: 1, audioSeconds: 0.5, jobs: i % 4 === 0 ? 1 : 0 }),
          ),
        );
        await store.usage.add(keyId, '2026-02-27', { requests: 7 });
        expect(await other.usage.day(keyId, '2026-03-02')).toEqual({ date: '2026-03-02', requests: 20, audioSeconds: 10, jobs: 5 });
        expect(await other.usage.day(keyId, '2026-03-01')).toEqual({ date: '2026-03-01', requests: 0, audioSeconds: 0, jobs: 0 });
        const history = await store.usage.history(keyId, '2026-03-02', 5);
        expect(history.map((d) => d.date)).toEqual(['2026-02-26', '2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
        expect(history.map((d) => d.requests)).toEqual([0, 7, 0, 0, 20]);
      });
    });

    describe('media', () => {
      it('stores, updates conditionally, lists with a cursor, and deletes conditionally', async () => {
        const accountId = uid('acct');
        const ready = media({ accountId, createdAt: at(3) });
        const pending = media({
          accountId,
          status: 'pending',
          source: 'signed_upload',
          sizeBytes: null,
          format: null,
          durationSeconds: null,
          uploadedAt: null,
          finalizedAt: null,
          expectedBytes: 999,
          createdAt: at(2),
        });
        const uploaded = media({ accountId, status: 'uploaded', source: 'signed_upload', finalizedAt: null, createdAt: at(1) });
        await store.media.insert(ready);
        await store.media.insert(pending);
        await store.media.insert(uploaded);
        expect(await other.media.get(pending.id)).toEqual(pending);
        expect(await other.media.update(ready.id, { status: 'uploaded' }, ['pending'])).toBeNull();
        const finalized = await other.media.update(uploaded.id, { status: 'ready', finalizedAt: at(10) }, ['uploaded']);
        expect(finalized).toMatchObject({ status: 'ready', finalizedAt: at(10), sizeBytes: uploaded.sizeBytes });
        const first = await store.media.list({ accountId, limit: 2 });
        expect([first.items.map((m) => m.id), first.total]).toEqual([[ready.id, pending.id], 3]);
        const second = await store.media.list({ accountId, limit: 2, cursor: first.nextCursor! });
        expect([second.items.map((m) => m.id), second.nextCursor]).toEqual([[uploaded.id], null]);
        expect((await store.media.list({ accountId, status: 'pending', limit: 5 })).items.map((m) => m.id)).toEqual([pending.id]);
        await expect(store.media.list({ accountId, limit: 2, cursor: 'garbage' })).rejects.toBeInstanceOf(InvalidCursorError);
        const unfinalized = (await other.media.findUnfinalized(at(100), 1000)).filter((m) => m.accountId === accountId);
        expect(unfinalized.map((m) => m.id)).toEqual([pending.id]);
        expect(await store.media.delete(ready.id, ['pending', 'uploaded'])).toBe(false);
        expect(await store.media.delete(pending.id, ['pending', 'uploaded'])).toBe(true);
        expect(await other.media.delete(pending.id)).toBe(false);
        expect(await other.media.delete(ready.id)).toBe(true);
        expect(await store.media.get(ready.id)).toBeNull();
      });
    });

    describe('webhooks', () => {
      async function scene(s: Store) {
        const accountId = uid('acct');
        const active = webhook({ accountId, createdAt: at(0) });
        const paused = webhook({ accountId, status: 'paused', createdAt: at(1) });
        await s.webhooks.insert(active);
        await s.webhooks.insert(paused);
        const [d1, d2, d3] = [delivery(active.id, at(0)), delivery(active.id, at(100)), delivery(paused.id, at(0))];
        await s.webhooks.insertDeliveries([d1!, d2!, d3!]);
        return { accountId, active, paused, d1: d1!, d2: d2!, d3: d3! };
      }

      const ids = (list: readonly { id: string }[]) => list.map((d) => d.id);

      it('stores, updates, lists and deletes webhooks (deliveries go with them)', async () => {
        const { accountId, active, paused, d1 } = await scene(store);
        expect(await other.webhooks.get(active.id)).toEqual(active);
        const changed = await other.webhooks.update(active.id, { events: ['job.failed', 'job.completed'], description: 'ops', secret: 's3cret' });
        expect(changed).toMatchObject({ events: ['job.failed', 'job.completed'], description: 'ops', secret: 's3cret' });
        expect(await other.webhooks.update('wh_missing', { description: 'x' })).toBeNull();
        const all = await store.webhooks.list({ accountId, limit: 1, offset: 1 });
        expect([ids(all.items), all.total]).toEqual([[paused.id], 2]);
        expect(ids((await store.webhooks.list({ accountId, status: 'paused', limit: 10, offset: 0 })).items)).toEqual([paused.id]);
        expect(ids(await store.webhooks.subscribed(accountId, 'job.failed'))).toEqual([active.id]);
        expect(await store.webhooks.subscribed(accountId, 'job.progress')).toEqual([]);
        expect(await other.webhooks.delete(active.id)).toBe(true);
        expect(await other.webhooks.delete(active.id)).toBe(false);
        expect(await store.webhooks.getDelivery(d1.id)).toBeNull();
      });

      it('records an event once per webhook, redeliveries apart, and lists deliveries newest first', async () => {
        const { active, d1 } = await scene(store);
        expect(await other.webhooks.getDelivery(d1.id)).toEqual(d1);
        await other.webhooks.insertDeliveries([{ ...d1, id: uid('dlv') }]);
        const redelivery = delivery(active.id, at(5), { eventId: d1.eventId, redeliveryOf: d1.id, createdAt: at(5) });
        await other.webhooks.insertDeliveries([redelivery]);
        const page1 = await store.webhooks.listDeliveries({ webhookId: active.id, limit: 2 });
        expect(page1.items[0]!.id).toBe(redelivery.id);
        const page2 = await store.webhooks.listDeliveries({ webhookId: active.id, limit: 2, cursor: page1.nextCursor! });
        expect([...ids(page1.items), ...ids(page2.items)]).toHaveLength(3);
        expect(page2.nextCursor).toBeNull();
        expect(ids((await store.webhooks.listDeliveries({ webhookId: active.id, status: 'failed', limit: 5 })).items)).toEqual([]);
        await expect(store.webhooks.listDeliveries({ webhookId: active.id, limit: 2, cursor: 'x' })).rejects.toBeInstanceOf(InvalidCursorError);
      });

      it('leases due deliveries of active webhooks once, until the lease ends', async () => {
        // Deliveries of other tests are due too: look at this scene's only.
        const { d1, d2 } = await scene(store);
        const mine = (list: DeliveryRecord[]) =>
          ids(list)
            .filter((id) => id === d1.id || id === d2.id)
            .sort();
        const first = await store.webhooks.claimDue(at(1), at(41), 1000);
        expect(mine(first)).toEqual([d1.id]);
        expect(first.find((d) => d.id === d1.id)!.leaseUntil).toBe(at(41));
        expect(mine(await other.webhooks.claimDue(at(2), at(42), 1000))).toEqual([]);
        expect(await other.webhooks.claim(d1.id, at(2), at(42))).toBeNull();
        // The holder died: after its lease the delivery is due again.
        expect(mine(await other.webhooks.claimDue(at(41), at(81), 1000))).toEqual([d1.id]);
        expect(mine(await store.webhooks.claimDue(at(121), at(161), 1000))).toEqual([d1.id, d2.id].sort());
      });

      it('hands concurrent claimers disjoint deliveries', async () => {
        const accountId = uid('acct');
        const hook = webhook({ accountId });
        await store.webhooks.insert(hook);
        const due = Array.from({ length: 24 }, (_, i) => delivery(hook.id, at(-1000 + i)));
        await store.webhooks.insertDeliveries(due);
        const wanted = new Set(ids(due));
        const batches = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? store : other).webhooks.claimDue(at(-500), at(-400), 4)));
        const claimed = batches
          .flat()
          .map((d) => d.id)
          .filter((id) => wanted.has(id));
        expect(new Set(claimed).size).toBe(claimed.length);
        for (const batch of batches) {
          const due = batch.map((d) => d.nextAttemptAt!);
          expect(due).toEqual([...due].sort());
        }
      });

      it('finishes an attempt once and knows when the next delivery is due, leases included', async () => {
        // nextDueAt looks at the whole table: this test has a backend of its own.
        const own = await makeBackend();
        const s = await own.open();
        try {
          expect(await s.webhooks.nextDueAt()).toBeNull();
          const { d1, d2 } = await scene(s);
          expect(await s.webhooks.nextDueAt()).toBe(at(0));
          await s.webhooks.claimDue(at(0), at(40), 1);
          expect(await s.webhooks.nextDueAt()).toBe(at(40));
          const attempts = [{ number: 1, at: at(1), response_status: 500, error: 'HTTP 500', duration_ms: 12, response_body: 'oops' }];
          const retried = await s.webhooks.finishAttempt(d1.id, { status: 'pending', attempts, nextAttemptAt: at(60), completedAt: null });
          expect(retried).toMatchObject({ status: 'pending', attemptCount: 1, attempts, nextAttemptAt: at(60), leaseUntil: null });
          expect(await s.webhooks.nextDueAt()).toBe(at(60));
          const done = await s.webhooks.finishAttempt(d1.id, { status: 'succeeded', attempts, nextAttemptAt: null, completedAt: at(61) });
          expect(done).toMatchObject({ status: 'succeeded', completedAt: at(61) });
          expect(await s.webhooks.finishAttempt(d1.id, { status: 'failed', attempts: [], nextAttemptAt: null, completedAt: at(62) })).toBeNull();
          expect(await s.webhooks.nextDueAt()).toBe(at(100));
          await s.webhooks.finishAttempt(d2.id, { status: 'succeeded', attempts: [], nextAttemptAt: null, completedAt: at(101) });
          // The paused webhook's delivery waits, and does not count.
          expect(await s.webhooks.nextDueAt()).toBeNull();
        } finally {
          await s.close();
          await own.destroy();
        }
      });

      it('disables a webhook at the failure limit once and fails its unleased pending deliveries', async () => {
        const { active, d1, d2 } = await scene(store);
        await store.webhooks.claim(d2.id, at(0), at(40));
        const outcomes = await Promise.all([
          store.webhooks.recordFailure(active.id, at(1), 2),
          other.webhooks.recordFailure(active.id, at(1), 2),
          store.webhooks.recordFailure(active.id, at(1), 2),
        ]);
        expect(outcomes.filter((o) => o.disabled)).toHaveLength(1);
        expect(await other.webhooks.get(active.id)).toMatchObject({ status: 'failed', consecutiveFailures: 3, disabledAt: at(1) });
        expect((await other.webhooks.getDelivery(d1.id))!.status).toBe('failed');
        expect((await other.webhooks.getDelivery(d2.id))!.status).toBe('pending');
        await store.webhooks.recordSuccess(active.id, at(4));
        expect(await other.webhooks.get(active.id)).toMatchObject({ consecutiveFailures: 0, lastSuccessAt: at(4), lastDeliveryAt: at(4) });
      });
    });

    describe('translation jobs', () => {
      const translation = (jobId: string, overrides: Partial<TranslationJobRecord> = {}): TranslationJobRecord => ({
        jobId,
        sourceLanguage: 'en',
        targetLanguages: ['am', 'ti'],
        destinationUri: 'svc://out/run',
        callbackUrl: 'https://example.com/cb',
        callbackSecret: 'a-secret-of-sixteen+',
        ...CALLBACK_NOT_SCHEDULED,
        expiresAt: at(3600),
        createdAt: at(0),
        updatedAt: at(0),
        ...overrides,
      });
      const units = (jobId: string, count: number): TranslationUnitRecord[] =>
        Array.from({ length: count }, (_, position) => ({
          jobId,
          position,
          sourceUri: `https://example.com/${Math.floor(position / 2)}.txt`,
          targetLanguage: position % 2 === 0 ? 'am' : 'ti',
          outputName: `${Math.floor(position / 2)}.${position % 2 === 0 ? 'am' : 'ti'}.txt`,
          status: 'pending',
          targetObject: null,
          error: null,
          characters: 0,
          updatedAt: at(0),
        }));
      async function created(s: Store, overrides: Partial<TranslationJobRecord> = {}, count = 4): Promise<JobRecord> {
        const j = job({ kind: 'translation', api: 'job_api', audioUrl: null, options: { target_languages: ['am', 'ti'] } });
        await s.translations.create(j, translation(j.id, overrides), units(j.id, count));
        return j;
      }

      it('creates the job, its request and its units in one transaction and reads them back unchanged', async () => {
        const j = await created(store, {}, 250);
        expect(await other.jobs.get(j.id)).toEqual({ ...j });
        expect(await other.translations.get(j.id)).toEqual(translation(j.id));
        expect(await other.translations.units(j.id)).toEqual(units(j.id, 250));
        expect(await other.translations.get(uid('tr'))).toBeNull();
        // A failing unit row rolls the whole job back.
        const broken = job({ kind: 'translation', api: 'job_api' });
        const duplicate = [...units(broken.id, 2), units(broken.id, 1)[0]!];
        await expect(store.translations.create(broken, translation(broken.id), duplicate)).rejects.toThrow();
        expect(await other.jobs.get(broken.id)).toBeNull();
      });

      it('writes a unit under the job lease only, when asked to', async () => {
        const j = await created(store);
        expect(await store.translations.updateUnit(j.id, 0, { status: 'completed', characters: 12 }, 'owner-a')).toBe(false);
        await store.jobs.claim(j.id, claimRequest('owner-a'));
        expect(await other.translations.updateUnit(j.id, 0, { status: 'failed', error: { code: 'DOWNLOAD_ERROR', message: 'x' } }, 'owner-b')).toBe(false);
        expect(await other.translations.updateUnit(j.id, 0, { status: 'completed', targetObject: 'a/b.txt', characters: 12, error: null }, 'owner-a')).toBe(
          true,
        );
        expect(await store.translations.updateUnit(j.id, 1, { status: 'failed', error: { code: 'UPLOAD_ERROR', message: 'HTTP 500' } })).toBe(true);
        const [u0, u1] = await store.translations.units(j.id);
        expect(u0).toMatchObject({ status: 'completed', targetObject: 'a/b.txt', characters: 12, error: null });
        expect(u1).toMatchObject({ status: 'failed', error: { code: 'UPLOAD_ERROR', message: 'HTTP 500' } });
      });

      it('schedules a callback once, hands concurrent claimers disjoint callbacks and records attempts under the lease', async () => {
        const own = await makeBackend();
        const [s, t] = await Promise.all([own.open(), own.open()]);
        try {
          expect(await s.translations.nextCallbackAt()).toBeNull();
          const silent = await created(s, { callbackUrl: null });
          expect(await s.translations.scheduleCallback(silent.id, '{}', at(0))).toBe(false);
          const jobs = await Promise.all(Array.from({ length: 12 }, () => created(s)));
          for (const [i, j] of jobs.entries()) expect(await s.translations.scheduleCallback(j.id, `{"n":${i}}`, at(i))).toBe(true);
          expect(await t.translations.scheduleCallback(jobs[0]!.id, '{"again":1}', at(0))).toBe(false);
          expect(await s.translations.nextCallbackAt()).toBe(at(0));
          const batches = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? s : t).translations.claimDueCallbacks(at(100), at(140), 3)));
          const claimed = batches.flat().map((c) => c.jobId);
          expect(new Set(claimed).size).toBe(claimed.length);
          expect(claimed.length).toBe(12);
          expect(await s.translations.claimDueCallbacks(at(100), at(140), 50)).toEqual([]);
          const first = batches.flat().find((c) => c.jobId === jobs[0]!.id)!;
          expect(first).toMatchObject({
            callbackStatus: 'pending',
            callbackPayload: '{"n":0}',
            callbackLeaseUntil: at(140),
            callbackSecret: 'a-secret-of-sixteen+',
          });
          expect(await t.translations.updateCallback(jobs[0]!.id, { callbackAttempts: 1, callbackNextAt: at(160), callbackLeaseUntil: null }, at(999))).toBe(
            false,
          );
          for (const j of jobs.slice(1)) {
            expect(await t.translations.updateCallback(j.id, { callbackStatus: 'succeeded', callbackAttempts: 1, callbackLeaseUntil: null }, at(140))).toBe(
              true,
            );
          }
          expect(await s.translations.nextCallbackAt()).toBe(at(140)); // jobs[0] is leased until then
          expect(
            await t.translations.updateCallback(
              jobs[0]!.id,
              { callbackAttempts: 1, callbackNextAt: at(160), callbackLeaseUntil: null, callbackLastError: 'HTTP 500' },
              at(140),
            ),
          ).toBe(true);
          expect(await s.translations.nextCallbackAt()).toBe(at(160));
          expect(await s.translations.claimDueCallbacks(at(150), at(190), 5)).toEqual([]);
          expect((await s.translations.claimDueCallbacks(at(160), at(200), 5)).map((c) => [c.jobId, c.callbackAttempts, c.callbackLastError])).toEqual([
            [jobs[0]!.id, 1, 'HTTP 500'],
          ]);
          // A holder that died: once its lease ends the callback is due again.
          expect((await t.translations.claimDueCallbacks(at(201), at(240), 5)).map((c) => c.jobId)).toEqual([jobs[0]!.id]);
        } finally {
          await s.close();
          await t.close();
          await own.destroy();
        }
      });

      it('finds final jobs past their expiry and deletes their rows with the job', async () => {
        const own = await makeBackend();
        const s = await own.open();
        try {
          const running = await created(s, { expiresAt: at(10) });
          const done = await created(s, { expiresAt: at(10) });
          const later = await created(s, { expiresAt: at(50) });
          for (const j of [done, later]) await s.jobs.update(j.id, { status: 'completed', completedAt: at(5) });
          expect(await s.translations.findExpired(at(9), 10)).toEqual([]);
          expect(await s.translations.findExpired(at(20), 10)).toEqual([done.id]);
          expect(await s.translations.findExpired(at(60), 10)).toEqual([done.id, later.id]);
          await s.jobs.delete([done.id]);
          expect(await s.translations.get(done.id)).toBeNull();
          expect(await s.translations.units(done.id)).toEqual([]);
          expect(await s.translations.findExpired(at(60), 10)).toEqual([later.id]);
          expect(await s.translations.get(running.id)).not.toBeNull();
        } finally {
          await s.close();
          await own.destroy();
        }
      });
    });
  });
}
