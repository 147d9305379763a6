import { randomBytes } from 'node:crypto';
import type { Principal } from '../platform/auth/principal.js';
import { ApiError } from '../platform/errors/api-error.js';
import type { OutboundGuard } from '../platform/net/outbound-guard.js';
import { tryUrl } from '../platform/net/try-url.js';
import { newEventId, type WebhookDispatcher } from './webhook-dispatcher.js';
import { TEST_EVENT, type DeliveryRecord, type WebhookPatch, type WebhookRecord, type WebhookStore } from '../platform/db/webhook-records.js';

export const newWebhookId = (): string => `wh_${randomBytes(12).toString('hex')}`;

export interface WebhookInput {
  readonly url?: string;
  readonly events?: readonly string[];
  readonly secret?: string | null;
  readonly description?: string;
  readonly status?: 'active' | 'paused';
}

/** Creating, changing and inspecting webhooks; the dispatcher sends. Webhooks belong to the account. */
export class WebhookService {
  constructor(private readonly deps: { store: WebhookStore; dispatcher: WebhookDispatcher; guard: OutboundGuard }) {}

  /** HTTPS only, and no literal private address (names are checked at every delivery). */
  private checkUrl(raw: string): string {
    const url = tryUrl(raw);
    if (url === null) throw new ApiError('invalid_field_value', { message: "'url' is not a valid URL.", param: 'url' });
    if (url.protocol !== 'https:') throw new ApiError('invalid_field_value', { message: "'url' must be an https:// URL.", param: 'url' });
    if (url.username !== '' || url.password !== '') throw new ApiError('invalid_field_value', { message: "'url' must not carry credentials.", param: 'url' });
    this.deps.guard.assertHostAllowed(url);
    return url.href;
  }

  async create(principal: Principal, input: WebhookInput & { url: string }): Promise<WebhookRecord> {
    const now = new Date().toISOString();
    const record: WebhookRecord = {
      id: newWebhookId(),
      accountId: principal.accountId,
      keyId: principal.key.id,
      url: this.checkUrl(input.url),
      events: [...new Set(input.events ?? ['*'])],
      secret: input.secret ?? null,
      description: input.description ?? '',
      status: 'active',
      consecutiveFailures: 0,
      createdAt: now,
      updatedAt: now,
      lastDeliveryAt: null,
      lastSuccessAt: null,
      lastFailureAt: null,
      disabledAt: null,
    };
    await this.deps.store.insert(record);
    return record;
  }

  async getOwned(id: string, accountId: string): Promise<WebhookRecord> {
    const record = await this.deps.store.get(id);
    if (record === null || record.accountId !== accountId) throw new ApiError('webhook_not_found', { message: `No webhook ${id}.` });
    return record;
  }

  async update(id: string, accountId: string, input: WebhookInput): Promise<WebhookRecord> {
    const current = await this.getOwned(id, accountId);
    const patch: { -readonly [K in keyof WebhookPatch]: WebhookPatch[K] } = {};
    if (input.url !== undefined) patch.url = this.checkUrl(input.url);
    if (input.events !== undefined) patch.events = [...new Set(input.events)];
    if (input.secret !== undefined) patch.secret = input.secret;
    if (input.description !== undefined) patch.description = input.description;
    if (input.status !== undefined && input.status !== current.status) {
      patch.status = input.status;
      if (input.status === 'active') {
        // Re-enabling starts the failure count afresh.
        patch.consecutiveFailures = 0;
        patch.disabledAt = null;
      }
    }
    const updated = (await this.deps.store.update(id, patch)) ?? current;
    if (updated.status === 'active') this.deps.dispatcher.kick();
    return updated;
  }

  async delete(id: string, accountId: string): Promise<void> {
    await this.getOwned(id, accountId);
    await this.deps.store.delete(id);
  }

  /** Sends a `webhook.test` event once, now, whatever the webhook's status; answers its outcome. */
  async test(id: string, accountId: string): Promise<DeliveryRecord> {
    const webhook = await this.getOwned(id, accountId);
    const eventId = newEventId();
    const payload = JSON.stringify({
      id: eventId,
      event: TEST_EVENT,
      webhook_id: webhook.id,
      timestamp: new Date().toISOString(),
      data: { message: 'A test delivery from the speech gateway. Answer with any 2xx status.' },
    });
    const delivery = this.deps.dispatcher.newDelivery(webhook, eventId, TEST_EVENT, payload, 1, null);
    await this.deps.store.insertDeliveries([delivery]);
    return (await this.deps.dispatcher.attemptNow(delivery.id)) ?? delivery;
  }

  async delivery(webhookId: string, accountId: string, deliveryId: string): Promise<DeliveryRecord> {
    await this.getOwned(webhookId, accountId);
    const delivery = await this.deps.store.getDelivery(deliveryId);
    if (delivery === null || delivery.webhookId !== webhookId) {
      throw new ApiError('resource_not_found', { message: `Webhook ${webhookId} has no delivery ${deliveryId}.` });
    }
    return delivery;
  }

  /**
   * Sends an earlier delivery's event again, as a new delivery with the same body and event id
   * (receivers deduplicate on it), attempted now and retried on the usual schedule.
   */
  async redeliver(webhookId: string, accountId: string, deliveryId: string): Promise<DeliveryRecord> {
    const original = await this.delivery(webhookId, accountId, deliveryId);
    const webhook = await this.getOwned(webhookId, accountId);
    const maxAttempts = original.event === TEST_EVENT || original.event === 'job.progress' ? 1 : this.deps.dispatcher.maxAttempts;
    const copy = this.deps.dispatcher.newDelivery(webhook, original.eventId, original.event, original.payload, maxAttempts, original.id);
    await this.deps.store.insertDeliveries([copy]);
    return (await this.deps.dispatcher.attemptNow(copy.id)) ?? copy;
  }
}

export function webhookView(record: WebhookRecord): Record<string, unknown> {
  return {
    id: record.id,
    object: 'webhook',
    url: record.url,
    events: record.events,
    status: record.status,
    description: record.description,
    has_secret: record.secret !== null,
    consecutive_failures: record.consecutiveFailures,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    last_delivery_at: record.lastDeliveryAt,
    last_success_at: record.lastSuccessAt,
    last_failure_at: record.lastFailureAt,
    disabled_at: record.disabledAt,
  };
}

export function deliveryView(record: DeliveryRecord): Record<string, unknown> {
  return {
    id: record.id,
    object: 'webhook_delivery',
    webhook_id: record.webhookId,
    event_id: record.eventId,
    event: record.event,
    status: record.status,
    attempt_count: record.attemptCount,
    max_attempts: record.maxAttempts,
    next_attempt_at: record.nextAttemptAt,
    created_at: record.createdAt,
    completed_at: record.completedAt,
    redelivery_of: record.redeliveryOf,
    attempts: record.attempts,
    payload: JSON.parse(record.payload) as unknown,
  };
}
