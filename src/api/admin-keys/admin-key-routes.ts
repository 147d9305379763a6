import { Type } from '@sinclair/typebox';
import { keyView, type KeyService } from '../../platform/auth/key-service.js';
import type { ApiKeyRecord } from '../../platform/auth/principal.js';
import { ApiError } from '../../platform/errors/api-error.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import { named } from '../../platform/http/named-schema.js';
import type { Store } from '../../platform/db/store-types.js';
import { BEARER_ADMIN } from '../route-access.js';

const KeyViewSchema = named(
  'ApiKey',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('api_key'),
    account_id: Type.String(),
    account: Type.Optional(Type.String()),
    name: Type.Union([Type.String(), Type.Null()]),
    prefix: Type.String(),
    scopes: Type.Array(Type.String()),
    ip_allowlist: Type.Union([Type.Array(Type.String()), Type.Null()]),
    origin_allowlist: Type.Union([Type.Array(Type.String()), Type.Null()]),
    limits: Type.Record(Type.String(), Type.Number()),
    created_at: Type.String(),
    expires_at: Type.Union([Type.String(), Type.Null()]),
    revoked_at: Type.Union([Type.String(), Type.Null()]),
    last_used_at: Type.Union([Type.String(), Type.Null()]),
    status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  }),
);

const CreateKeyBody = Type.Object({
  account: Type.String({ minLength: 1, maxLength: 200, description: 'Account name; created when new' }),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  scopes: Type.Optional(Type.Array(Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('admin'), Type.Literal('record')]), { minItems: 1 })),
  expires: Type.Optional(Type.String({ description: 'ISO 8601 instant or a duration such as 30d' })),
  ip_allowlist: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  origin_allowlist: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
  limits: Type.Optional(
    Type.Object(
      {
        requests_per_minute: Type.Optional(Type.Integer({ minimum: 1 })),
        requests_per_hour: Type.Optional(Type.Integer({ minimum: 1 })),
        requests_per_day: Type.Optional(Type.Integer({ minimum: 1 })),
        concurrent_jobs: Type.Optional(Type.Integer({ minimum: 1 })),
        daily_audio_minutes: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
        websocket_connections: Type.Optional(Type.Integer({ minimum: 1 })),
      },
      { additionalProperties: false },
    ),
  ),
});

const KeyIdParams = Type.Object({ key_id: Type.String() });
/** What every route here shares: the admin scope on a bearer key, hidden from /openapi.json and the root listing. */
const ADMIN_ONLY = { tags: ['Administration'], ...BEARER_ADMIN } as const;

/** Key management (admin scope). Hidden from /openapi.json and the root listing. */
export function adminKeyRoutes(keys: KeyService, store: Store): RouteDefinition[] {
  /** A key as the routes answer it: its view, with its account's name. */
  const render = async (record: ApiKeyRecord) => keyView(record, (await store.accounts.get(record.accountId))?.name);
  return [
    defineRoute({
      method: 'POST',
      path: '/v1/admin/keys',
      operationId: 'createApiKey',
      summary: 'Create an API key (the key is in the response, once)',
      ...ADMIN_ONLY,
      body: { kind: 'json', schema: CreateKeyBody },
      responses: { 201: { description: 'Created', schema: Type.Intersect([KeyViewSchema, Type.Object({ key: Type.String() })]) } },
      handler: async ({ body }) => {
        const l = body.limits ?? {};
        const created = await keys.create({
          account: body.account,
          name: body.name ?? null,
          ...(body.scopes ? { scopes: body.scopes } : {}),
          expires: body.expires ?? null,
          ipAllowlist: body.ip_allowlist ?? [],
          originAllowlist: body.origin_allowlist ?? [],
          limits: {
            ...(l.requests_per_minute !== undefined ? { requestsPerMinute: l.requests_per_minute } : {}),
            ...(l.requests_per_hour !== undefined ? { requestsPerHour: l.requests_per_hour } : {}),
            ...(l.requests_per_day !== undefined ? { requestsPerDay: l.requests_per_day } : {}),
            ...(l.concurrent_jobs !== undefined ? { concurrentJobs: l.concurrent_jobs } : {}),
            ...(l.daily_audio_minutes !== undefined ? { dailyAudioMinutes: l.daily_audio_minutes } : {}),
            ...(l.websocket_connections !== undefined ? { wsConnections: l.websocket_connections } : {}),
          },
        });
        return { status: 201, body: { ...keyView(created.record, created.account.name), key: created.key } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/admin/keys',
      operationId: 'listApiKeys',
      summary: 'List API keys',
      ...ADMIN_ONLY,
      query: Type.Object({
        account: Type.Optional(Type.String()),
        include_revoked: Type.Optional(Type.Boolean({ default: false })),
      }),
      responses: { 200: { description: 'Keys', schema: Type.Object({ object: Type.Literal('list'), data: Type.Array(KeyViewSchema) }) } },
      handler: async ({ query }) => {
        const list = await keys.list({ ...(query.account !== undefined ? { account: query.account } : {}), includeRevoked: query.include_revoked ?? false });
        const data = await Promise.all(list.map(render));
        return { status: 200, body: { object: 'list', data } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/admin/keys/{key_id}',
      operationId: 'getApiKey',
      summary: 'Get an API key record',
      ...ADMIN_ONLY,
      params: KeyIdParams,
      responses: { 200: { description: 'Key', schema: KeyViewSchema } },
      handler: async ({ params }) => {
        const record = await store.apiKeys.get(params.key_id);
        if (record === null) throw new ApiError('resource_not_found', { message: `No API key ${params.key_id}.` });
        return { status: 200, body: await render(record) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/v1/admin/keys/{key_id}/revoke',
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      ...ADMIN_ONLY,
      params: KeyIdParams,
      responses: { 200: { description: 'Revoked key', schema: KeyViewSchema } },
      handler: async ({ params }) => ({ status: 200, body: await render(await keys.revoke(params.key_id)) }),
    }),
  ];
}
