import { describe, expect, it } from 'vitest';
import type { DeliveryRecord, WebhookRecord } from '../webhook-records.js';
import { SQLITE_MIGRATIONS } from './migrations/index.js';
import { openSqlite } from './sqlite-database.js';
import { WebhookRepository } from '../repositories/webhook-repository.js';
import { SqliteExecutor } from './sqlite-executor.js';
import { deliveryRecord } from '../../../../test/helpers/delivery-records.js';

const T0 = '2026-01-01T00:00:00.000Z';
const at = (seconds: number): string => new Date(Date.parse(T0) + seconds * 1000).toISOString();

function webhook(id: string, status: WebhookRecord['status'] = 'active'): WebhookRecord {
  return {
    id,
    accountId: 'acct',
    keyId: 'key',
    url: 'https://example.com/h',
    events: ['*'],
    secret: null,
    description: '',
    status,
    consecutiveFailures: 0,
    createdAt: T0,
    updatedAt: T0,
    lastDeliveryAt: null,
    lastSuccessAt: null,
    lastFailureAt: null,
    disabledAt: null,
  };
}

const delivery = (id: string, webhookId: string, dueAt: string): DeliveryRecord => deliveryRecord(id, webhookId, dueAt, T0);

async function store(): Promise<WebhookRepository> {
  const s = new WebhookRepository(new SqliteExecutor(openSqlite(':memory:', SQLITE_MIGRATIONS)));
  await s.insert(webhook('wh_a'));
  await s.insert(webhook('wh_paused', 'paused'));
  await s.insertDeliveries([delivery('d1', 'wh_a', at(0)), delivery('d2', 'wh_a', at(100)), delivery('d3', 'wh_paused', at(0))]);
  return s;
}

describe('webhook scheduling on SQLite', () => {
  it('leases due deliveries of active webhooks once, until the lease ends', async () => {
    const s = await store();
    const first = await s.claimDue(at(1), at(41), 10);
    expect(first.map((d) => d.id)).toEqual(['d1']);
    expect(await s.claimDue(at(2), at(42), 10)).toEqual([]);
    expect(await s.claim('d1', at(2), at(42))).toBeNull();
    // The holder died: after its lease the delivery is due again.
    expect((await s.claimDue(at(41), at(81), 10)).map((d) => d.id)).toEqual(['d1']);
    expect((await s.claimDue(at(121), at(161), 10)).map((d) => d.id).sort()).toEqual(['d1', 'd2']);
  });

  it('knows when the next delivery is due, leases included, paused webhooks excluded', async () => {
    const s = await store();
    expect(await s.nextDueAt()).toBe(at(0));
    await s.claimDue(at(0), at(40), 1);
    expect(await s.nextDueAt()).toBe(at(40));
    await s.finishAttempt('d1', { status: 'pending', attempts: [], nextAttemptAt: at(60), completedAt: null });
    expect(await s.nextDueAt()).toBe(at(60));
    await s.finishAttempt('d1', { status: 'succeeded', attempts: [], nextAttemptAt: null, completedAt: at(1) });
    await s.finishAttempt('d2', { status: 'succeeded', attempts: [], nextAttemptAt: null, completedAt: at(1) });
    expect(await s.nextDueAt()).toBeNull();
  });

  it('disables a webhook at the failure limit and fails its pending deliveries, not leased ones', async () => {
    const s = await store();
    await s.claim('d2', at(0), at(40));
    expect((await s.recordFailure('wh_a', at(1), 2)).disabled).toBe(false);
    expect((await s.recordFailure('wh_a', at(2), 2)).disabled).toBe(true);
    expect((await s.recordFailure('wh_a', at(3), 2)).disabled).toBe(false);
    expect(await s.get('wh_a')).toMatchObject({ status: 'failed', consecutiveFailures: 3, disabledAt: at(2) });
    expect((await s.getDelivery('d1'))!.status).toBe('failed');
    expect((await s.getDelivery('d2'))!.status).toBe('pending');
    await s.recordSuccess('wh_a', at(4));
    expect(await s.get('wh_a')).toMatchObject({ consecutiveFailures: 0, lastSuccessAt: at(4) });
  });

  it('finds subscribed active webhooks by event name or *', async () => {
    const s = await store();
    await s.insert({ ...webhook('wh_failed_only'), events: ['job.failed'] });
    expect((await s.subscribed('acct', 'job.completed')).map((w) => w.id)).toEqual(['wh_a']);
    expect((await s.subscribed('acct', 'job.failed')).map((w) => w.id).sort()).toEqual(['wh_a', 'wh_failed_only']);
    expect(await s.subscribed('other', 'job.failed')).toEqual([]);
  });
});
