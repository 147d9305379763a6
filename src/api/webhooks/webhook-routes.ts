import type { Limits } from '../../platform/config/config.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import {
  CreateWebhookBody,
  DeliveryIdParams,
  DeliveryListSchema,
  DeliverySchema,
  ListDeliveriesQuery,
  ListWebhooksQuery,
  UpdateWebhookBody,
  WebhookIdParams,
  WebhookListSchema,
  WebhookSchema,
} from './webhook-schemas.js';
import { listLimit, readPage, withPageSize } from '../list-paging.js';
import { deliveryView, webhookView, type WebhookService } from '../../webhooks/webhook-service.js';
import type { WebhookStore } from '../../platform/db/webhook-records.js';
import { BEARER_READ, BEARER_WRITE } from '../route-access.js';

export interface WebhookRouteDeps {
  readonly service: WebhookService;
  readonly store: WebhookStore;
  readonly limits: Limits;
}

const TAGS = ['Webhooks'];

export function webhookRoutes(deps: WebhookRouteDeps): RouteDefinition[] {
  const { service, limits } = deps;
  const retries = limits.webhookRetryScheduleSeconds.join(', ');

  return [
    defineRoute({
      method: 'POST',
      path: '/v1/webhooks',
      operationId: 'createWebhook',
      summary: 'Create a webhook',
      description:
        'The `url` must be https:// (400 invalid_field_value otherwise; a literal private address gives 400 url_not_allowed). ' +
        '`events`: job.completed, job.failed, job.progress or `*` (default). With a `secret`, every delivery carries ' +
        '`X-Webhook-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` (see "Webhook signatures" in /llms-full.txt). ' +
        `Deliveries time out after WEBHOOK_TIMEOUT_SECONDS (${limits.webhookTimeoutSeconds} s) and are retried after ${retries} seconds; ` +
        `${limits.webhookDisableAfterFailures} consecutive failed attempts disable the webhook (status failed). Webhooks belong to the account: every key of it sees them.`,
      tags: TAGS,
      ...BEARER_WRITE,
      body: { kind: 'json', schema: CreateWebhookBody },
      responses: { 201: { description: 'The webhook', schema: WebhookSchema }, 422: { description: 'validation_error' } },
      handler: async ({ body, principal, exchange }) => {
        const record = await service.create(principal!, body);
        exchange.setHeader('Location', `/v1/webhooks/${record.id}`);
        return { status: 201, body: webhookView(record) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/webhooks',
      operationId: 'listWebhooks',
      summary: "List the account's webhooks (oldest first)",
      tags: TAGS,
      ...BEARER_READ,
      query: withPageSize(ListWebhooksQuery, limits.listMaxLimit),
      responses: { 200: { description: 'The webhooks', schema: WebhookListSchema } },
      handler: async ({ query, principal }) => {
        const limit = listLimit(query.limit, limits.listMaxLimit);
        const offset = query.offset ?? 0;
        const page = await deps.store.list({ accountId: principal!.accountId, limit, offset, ...(query.status ? { status: query.status } : {}) });
        return {
          status: 200,
          body: { data: page.items.map(webhookView), has_more: offset + page.items.length < page.total, total: page.total, limit, offset },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/webhooks/{webhook_id}',
      operationId: 'getWebhook',
      summary: 'Get a webhook',
      tags: TAGS,
      ...BEARER_READ,
      params: WebhookIdParams,
      responses: { 200: { description: 'The webhook', schema: WebhookSchema }, 404: { description: 'webhook_not_found' } },
      handler: async ({ params, principal }) => ({ status: 200, body: webhookView(await service.getOwned(params.webhook_id, principal!.accountId)) }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/v1/webhooks/{webhook_id}',
      operationId: 'updateWebhook',
      summary: 'Change a webhook (url, events, secret, description, status)',
      description:
        'Partial update. `secret: null` stops signing. `status`: `paused` stops deliveries (pending retries wait), `active` resumes them ' +
        'and re-enables a webhook disabled for failures (its failure count starts again).',
      tags: TAGS,
      ...BEARER_WRITE,
      params: WebhookIdParams,
      body: { kind: 'json', schema: UpdateWebhookBody },
      responses: {
        200: { description: 'The webhook', schema: WebhookSchema },
        404: { description: 'webhook_not_found' },
        422: { description: 'validation_error' },
      },
      handler: async ({ params, body, principal }) => ({
        status: 200,
        body: webhookView(await service.update(params.webhook_id, principal!.accountId, body)),
      }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/v1/webhooks/{webhook_id}',
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook and its delivery log',
      tags: TAGS,
      ...BEARER_WRITE,
      params: WebhookIdParams,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'webhook_not_found' }, 422: { description: 'validation_error' } },
      handler: async ({ params, principal }) => {
        await service.delete(params.webhook_id, principal!.accountId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/webhooks/{webhook_id}/test',
      operationId: 'testWebhook',
      summary: 'Send a test delivery now and answer its result',
      description:
        'POSTs a `webhook.test` event (`data.message`), signed like any delivery, once and without retries, whatever the webhook status; ' +
        'it does not count toward the failure limit. The answer is the delivery: `status` succeeded or failed, and `attempts[0]` with the ' +
        'HTTP status, error, duration and the start of the answer.',
      tags: TAGS,
      ...BEARER_WRITE,
      params: WebhookIdParams,
      responses: { 200: { description: 'The delivery and its outcome', schema: DeliverySchema }, 404: { description: 'webhook_not_found' } },
      handler: async ({ params, principal }) => ({ status: 200, body: deliveryView(await service.test(params.webhook_id, principal!.accountId)) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/webhooks/{webhook_id}/deliveries',
      operationId: 'listWebhookDeliveries',
      summary: 'The delivery log of a webhook, newest first',
      description: 'Every delivery with its attempts (status, error, duration, start of the answer). Deleted with the webhook.',
      tags: TAGS,
      ...BEARER_READ,
      params: WebhookIdParams,
      query: withPageSize(ListDeliveriesQuery, limits.listMaxLimit),
      responses: { 200: { description: 'Deliveries', schema: DeliveryListSchema }, 404: { description: 'webhook_not_found' } },
      handler: async ({ params, query, principal }) => {
        const limit = listLimit(query.limit, limits.listMaxLimit);
        await service.getOwned(params.webhook_id, principal!.accountId);
        const page = await readPage(() =>
          deps.store.listDeliveries({
            webhookId: params.webhook_id,
            limit,
            ...(query.status ? { status: query.status } : {}),
            ...(query.cursor ? { cursor: query.cursor } : {}),
          }),
        );
        return { status: 200, body: { data: page.items.map(deliveryView), has_more: page.nextCursor !== null, next_cursor: page.nextCursor } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}',
      operationId: 'getWebhookDelivery',
      summary: 'One delivery with its attempts and body',
      tags: TAGS,
      ...BEARER_READ,
      params: DeliveryIdParams,
      responses: { 200: { description: 'The delivery', schema: DeliverySchema }, 404: { description: 'webhook_not_found or resource_not_found' } },
      handler: async ({ params, principal }) => ({
        status: 200,
        body: deliveryView(await service.delivery(params.webhook_id, principal!.accountId, params.delivery_id)),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver',
      operationId: 'redeliverWebhookDelivery',
      summary: "Send a delivery's event again",
      description:
        'A new delivery with the same body and event id (deduplicate on it), attempted now and, if that fails, retried on the usual schedule ' +
        'while the webhook is active. Answers the new delivery after its first attempt.',
      tags: TAGS,
      ...BEARER_WRITE,
      params: DeliveryIdParams,
      responses: { 200: { description: 'The new delivery', schema: DeliverySchema }, 404: { description: 'webhook_not_found or resource_not_found' } },
      handler: async ({ params, principal }) => ({
        status: 200,
        body: deliveryView(await service.redeliver(params.webhook_id, principal!.accountId, params.delivery_id)),
      }),
    }),
  ];
}
