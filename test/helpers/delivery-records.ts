// Webhook delivery records for the store tests: every field set, overrides last.
import type { DeliveryRecord } from '../../src/platform/db/webhook-records.js';

/** A pending job.completed delivery (event `evt_<id>`, 3 attempts allowed) due at `dueAt`, created and updated at `createdAt`. */
export function deliveryRecord(id: string, webhookId: string, dueAt: string, createdAt: string, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    id,
    webhookId,
    eventId: `evt_${id}`,
    event: 'job.completed',
    payload: '{}',
    status: 'pending',
    maxAttempts: 3,
    attemptCount: 0,
    attempts: [],
    nextAttemptAt: dueAt,
    leaseUntil: null,
    redeliveryOf: null,
    createdAt,
    updatedAt: createdAt,
    completedAt: null,
    ...overrides,
  };
}
