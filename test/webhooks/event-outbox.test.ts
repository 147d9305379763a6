import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { principalFor } from '../../src/platform/auth/principal.js';
import { buildJob } from '../../src/jobs/new-job.js';
import { bearer, startTestGateway } from '../helpers/test-gateway.js';

const dataDir = mkdtempSync(join(tmpdir(), 'outbox-test-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('job events across a crash', () => {
  it('records the webhook delivery of a job that became final just before a crash, once', async () => {
    let gw = await startTestGateway({ DATA_DIR: dataDir });
    const created = await gw.gateway.keys.create({ account: 'outbox' });
    const hook = await fetch(`${gw.url}/v1/webhooks`, {
      method: 'POST',
      headers: bearer(created.key, { 'content-type': 'application/json' }),
      body: JSON.stringify({ url: 'https://127.0.0.1:9/hook', events: ['job.completed'] }),
    });
    expect(hook.status).toBe(201);
    const webhookId = ((await hook.json()) as { id: string }).id;
    // The state a crash leaves: the job's final write happened, its event was never recorded.
    const job = {
      ...buildJob({ principal: principalFor(created.record), kind: 'single', language: 'am', requestedModel: '' }),
      status: 'completed' as const,
      text: 'done',
      segments: [],
      completedAt: new Date().toISOString(),
      eventsPending: true,
    };
    await gw.gateway.store.jobs.insert([job]);
    await gw.gateway.close();

    const deliveries = async () => {
      const response = await fetch(`${gw.url}/v1/webhooks/${webhookId}/deliveries`, { headers: bearer(created.key) });
      return ((await response.json()) as { data: { event: string; event_id: string }[] }).data;
    };
    for (let restart = 0; restart < 2; restart++) {
      gw = await startTestGateway({ DATA_DIR: dataDir, WEBHOOK_RETRY_SCHEDULE: '3600' });
      const list = await deliveries();
      expect(list).toHaveLength(1);
      expect(list[0]!.event).toBe('job.completed');
      expect((await gw.gateway.store.jobs.get(job.id))!.eventsPending).toBe(false);
      // Now the other crash point: deliveries recorded, the flag not yet cleared.
      await gw.gateway.store.jobs.update(job.id, { eventsPending: true });
      await gw.gateway.close();
    }
  });

  it('brings a batch parent up to date with children that finished before a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'outbox-batch-'));
    try {
      let gw = await startTestGateway({ DATA_DIR: dir });
      const created = await gw.gateway.keys.create({ account: 'batch-crash' });
      const principal = principalFor(created.record);
      const parent = { ...buildJob({ principal, kind: 'batch', language: 'am', requestedModel: '' }), status: 'processing' as const };
      const child = {
        ...buildJob({ principal, kind: 'batch_child', parentId: parent.id, language: 'am', requestedModel: '' }),
        status: 'completed' as const,
        text: 'x',
        segments: [],
        completedAt: new Date().toISOString(),
      };
      await gw.gateway.store.jobs.insert([parent, child]);
      await gw.gateway.close();
      gw = await startTestGateway({ DATA_DIR: dir });
      const response = await fetch(`${gw.url}/v1/transcriptions/${parent.id}`, { headers: bearer(created.key) });
      const body = (await response.json()) as { status: string; metadata: { completed_count: number } };
      expect(body.status).toBe('completed');
      expect(body.metadata.completed_count).toBe(1);
      await gw.gateway.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
