import { Type } from '@sinclair/typebox';
import { DELIVERY_STATUSES, WEBHOOK_EVENTS, WEBHOOK_STATUSES } from '../../platform/db/webhook-records.js';
import { named, Nullable } from '../../platform/http/named-schema.js';

const EventName = Type.Union([...WEBHOOK_EVENTS.map((e) => Type.Literal(e)), Type.Literal('*')], {
  description: 'job.completed, job.failed, job.progress, or * for all',
});
const UrlField = Type.String({ minLength: 1, maxLength: 2048, description: 'https:// URL that receives the POSTs' });
const SecretField = Type.String({
  minLength: 16,
  maxLength: 256,
  description: 'Signing secret (at least 16 characters; e.g. 32 random bytes in hex). Deliveries then carry X-Webhook-Signature. Never shown again.',
});
const DescriptionField = Type.String({ maxLength: 500 });

export const WebhookSchema = named(
  'Webhook',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('webhook'),
    url: Type.String(),
    events: Type.Array(Type.String()),
    status: Type.Union(
      WEBHOOK_STATUSES.map((s) => Type.Literal(s)),
      {
        description:
          'active; paused (by you: nothing is sent, pending retries wait); failed (disabled after WEBHOOK_DISABLE_AFTER_FAILURES consecutive failed attempts)',
      },
    ),
    description: Type.String(),
    has_secret: Type.Boolean({ description: 'Deliveries are signed (X-Webhook-Signature)' }),
    consecutive_failures: Type.Integer({ description: 'Failed attempts since the last success' }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
    last_delivery_at: Nullable(Type.String({ format: 'date-time' })),
    last_success_at: Nullable(Type.String({ format: 'date-time' })),
    last_failure_at: Nullable(Type.String({ format: 'date-time' })),
    disabled_at: Nullable(Type.String({ format: 'date-time', description: 'When it was disabled for failures' })),
  }),
);

export const WebhookListSchema = named(
  'WebhookList',
  Type.Object({
    data: Type.Array(WebhookSchema),
    has_more: Type.Boolean(),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  }),
);

export const CreateWebhookBody = Type.Object({
  url: UrlField,
  events: Type.Optional(Type.Array(EventName, { minItems: 1, uniqueItems: true, default: ['*'], description: 'Default ["*"]' })),
  secret: Type.Optional(SecretField),
  description: Type.Optional(DescriptionField),
});

export const UpdateWebhookBody = Type.Object({
  url: Type.Optional(UrlField),
  events: Type.Optional(Type.Array(EventName, { minItems: 1, uniqueItems: true })),
  secret: Type.Optional(Nullable(SecretField)),
  description: Type.Optional(DescriptionField),
  status: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('paused')], {
      description: 'paused stops deliveries; active resumes them (and re-enables a failed webhook, resetting its failure count)',
    }),
  ),
});

export const ListWebhooksQuery = Type.Object({
  status: Type.Optional(Type.Union(WEBHOOK_STATUSES.map((s) => Type.Literal(s)))),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: 50, description: 'At most LIST_MAX_LIMIT' })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

export const WebhookIdParams = Type.Object({ webhook_id: Type.String() });
export const DeliveryIdParams = Type.Object({ webhook_id: Type.String(), delivery_id: Type.String() });

export const DeliveryAttemptSchema = named(
  'WebhookDeliveryAttempt',
  Type.Object({
    number: Type.Integer(),
    at: Type.String({ format: 'date-time' }),
    response_status: Nullable(Type.Integer({ description: 'HTTP status of the answer; null when none came' })),
    error: Nullable(Type.String()),
    duration_ms: Type.Integer(),
    response_body: Nullable(Type.String({ description: 'The first 1 KB of the answer' })),
  }),
);

export const DeliverySchema = named(
  'WebhookDelivery',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('webhook_delivery'),
    webhook_id: Type.String(),
    event_id: Type.String({ description: 'The event id (body field `id`, header X-Webhook-Id): the same on every retry and redelivery' }),
    event: Type.String(),
    status: Type.Union(
      DELIVERY_STATUSES.map((s) => Type.Literal(s)),
      {
        description: 'pending (waiting for its next attempt), succeeded (a 2xx came back), failed (out of attempts)',
      },
    ),
    attempt_count: Type.Integer(),
    max_attempts: Type.Integer(),
    next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
    redelivery_of: Nullable(Type.String({ description: 'The delivery this one resends' })),
    attempts: Type.Array(DeliveryAttemptSchema),
    payload: Type.Object({}, { additionalProperties: true, description: 'The JSON body sent' }),
  }),
);

export const DeliveryListSchema = named(
  'WebhookDeliveryList',
  Type.Object({ data: Type.Array(DeliverySchema), has_more: Type.Boolean(), next_cursor: Nullable(Type.String()) }),
);

export const ListDeliveriesQuery = Type.Object({
  status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
  cursor: Type.Optional(Type.String()),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: 50, description: 'At most LIST_MAX_LIMIT' })),
});
