export const WEBHOOK_EVENTS = ['job.completed', 'job.failed', 'job.progress'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
/** The event a test delivery carries (never subscribed to). */
export const TEST_EVENT = 'webhook.test';

export const WEBHOOK_STATUSES = ['active', 'paused', 'failed'] as const;
/**
 * - `active`: events are delivered
 * - `paused`: set by the owner; no new deliveries, pending retries wait until it is active again
 * - `failed`: disabled after WEBHOOK_DISABLE_AFTER_FAILURES consecutive failed attempts; the owner
 *   re-enables it by setting `active`
 */
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export interface WebhookRecord {
  readonly id: string;
  /** Webhooks belong to the account: every key of the account sees and manages them. */
  readonly accountId: string;
  readonly keyId: string;
  readonly url: string;
  /** Event names, or `*` for all. */
  readonly events: readonly string[];
  /** HMAC key of X-Webhook-Signature; null sends unsigned deliveries. Never shown. */
  readonly secret: string | null;
  readonly description: string;
  readonly status: WebhookStatus;
  readonly consecutiveFailures: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly lastDeliveryAt: string | null;
  readonly lastSuccessAt: string | null;
  readonly lastFailureAt: string | null;
  readonly disabledAt: string | null;
}

export type WebhookPatch = Partial<Pick<WebhookRecord, 'url' | 'events' | 'secret' | 'description' | 'status' | 'consecutiveFailures' | 'disabledAt'>>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
/** pending: waiting for its next attempt; succeeded: a 2xx came back; failed: out of attempts. */
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface DeliveryAttempt {
  readonly number: number;
  readonly at: string;
  /** HTTP status the endpoint answered, or null when no answer came (refused, timeout, TLS). */
  readonly response_status: number | null;
  readonly error: string | null;
  readonly duration_ms: number;
  /** The first bytes of the endpoint's answer, for debugging. */
  readonly response_body: string | null;
}

export interface DeliveryRecord {
  readonly id: string;
  readonly webhookId: string;
  /** The event's id (also in the body as `id`): the same on every retry and redelivery. */
  readonly eventId: string;
  readonly event: string;
  /** The exact JSON body sent on every attempt. */
  readonly payload: string;
  readonly status: DeliveryStatus;
  readonly maxAttempts: number;
  readonly attemptCount: number;
  readonly attempts: readonly DeliveryAttempt[];
  readonly nextAttemptAt: string | null;
  readonly leaseUntil: string | null;
  readonly redeliveryOf: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly completedAt: string | null;
}

export interface DeliveryPage {
  readonly items: DeliveryRecord[];
  readonly nextCursor: string | null;
}

/** Webhooks and their deliveries. Claims are conditional, so several processes may share the table. */
export interface WebhookStore {
  insert(webhook: WebhookRecord): Promise<void>;
  get(id: string): Promise<WebhookRecord | null>;
  update(id: string, patch: WebhookPatch): Promise<WebhookRecord | null>;
  /** Removes the webhook and its deliveries; true when it existed. */
  delete(id: string): Promise<boolean>;
  list(filter: { accountId: string; status?: WebhookStatus; limit: number; offset: number }): Promise<{ items: WebhookRecord[]; total: number }>;
  /** Active webhooks of the account subscribed to `event` (by name or `*`). */
  subscribed(accountId: string, event: string): Promise<WebhookRecord[]>;
  /** A 2xx: resets the failure count. */
  recordSuccess(id: string, at: string): Promise<void>;
  /**
   * A failed attempt: counts it, and disables an active webhook that reached `disableAfter`
   * consecutive failures (its pending deliveries fail too). Returns whether this call disabled it.
   */
  recordFailure(id: string, at: string, disableAfter: number): Promise<{ disabled: boolean }>;

  insertDeliveries(deliveries: readonly DeliveryRecord[]): Promise<void>;
  getDelivery(id: string): Promise<DeliveryRecord | null>;
  /** Newest first. */
  listDeliveries(filter: { webhookId: string; status?: DeliveryStatus; cursor?: string; limit: number }): Promise<DeliveryPage>;
  /** Leases up to `limit` pending deliveries of active webhooks that are due at `now`. */
  claimDue(now: string, leaseUntil: string, limit: number): Promise<DeliveryRecord[]>;
  /** Leases one pending delivery regardless of its due time (immediate attempts); null if taken. */
  claim(id: string, now: string, leaseUntil: string): Promise<DeliveryRecord | null>;
  /** Records an attempt's outcome and releases the lease. */
  finishAttempt(
    id: string,
    outcome: { status: DeliveryStatus; attempts: readonly DeliveryAttempt[]; nextAttemptAt: string | null; completedAt: string | null },
  ): Promise<DeliveryRecord | null>;
  /** When the next pending delivery of an active webhook is due (or its lease ends); null if none. */
  nextDueAt(): Promise<string | null>;
}
