import { Type } from '@sinclair/typebox';
import { named } from '../../platform/http/named-schema.js';

const ComponentStatus = Type.Object({
  backend: Type.String(),
  ok: Type.Boolean(),
  detail: Type.Optional(Type.String()),
});

export const ModelSummarySchema = named(
  'ModelSummary',
  Type.Object({
    name: Type.String(),
    language: Type.String(),
    default: Type.Boolean({ description: 'Whether this is the default model of its language' }),
    loaded: Type.Boolean(),
    description: Type.Optional(Type.String()),
  }),
);

export const HealthSchema = named(
  'Health',
  Type.Object({
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    version: Type.String(),
    api_version: Type.String(),
    uptime_seconds: Type.Number(),
    languages: Type.Array(Type.String(), { description: 'Available language codes, including auto when detection is available' }),
    default_language: Type.String(),
    models: Type.Array(ModelSummarySchema),
    device: Type.Object({
      requested: Type.String({ description: 'cpu or cuda, as configured' }),
      active: Type.String({ description: 'The execution provider actually in use' }),
      workers: Type.Integer(),
    }),
    vad: Type.Object({ energy: Type.Boolean(), silero: Type.Boolean() }),
    storage: Type.Object({ database: ComponentStatus, files: ComponentStatus }),
    queue: ComponentStatus,
    cache: ComponentStatus,
    rate_limiter: ComponentStatus,
  }),
);

export const LanguagesSchema = named(
  'Languages',
  Type.Object({
    object: Type.Literal('list'),
    languages: Type.Array(Type.String(), { description: 'Available language codes, including auto' }),
    default_language: Type.String(),
    loaded_models: Type.Array(Type.String()),
    data: Type.Array(
      Type.Object({
        code: Type.String(),
        name: Type.String(),
        default_model: Type.Union([Type.String(), Type.Null()]),
        models: Type.Array(ModelSummarySchema),
      }),
    ),
  }),
);

export const RootSchema = named(
  'Root',
  Type.Object({
    name: Type.String(),
    version: Type.String(),
    api_version: Type.String(),
    documentation: Type.Object({ openapi: Type.String(), llms: Type.String(), llms_full: Type.String() }),
    endpoints: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), summary: Type.String(), auth: Type.String() })),
  }),
);

const UsageWindow = Type.Object({
  used: Type.Integer(),
  limit: Type.Union([Type.Integer(), Type.Null()], { description: 'null when this window is not limited' }),
  reset: Type.String({ format: 'date-time' }),
});

export const UsageSchema = named(
  'Usage',
  Type.Object({
    object: Type.Literal('usage'),
    requests_used: Type.Integer({ description: 'Requests counted in the current minute' }),
    requests_limit: Type.Integer(),
    requests_reset: Type.String({ format: 'date-time' }),
    concurrent_jobs: Type.Integer(),
    concurrent_jobs_limit: Type.Integer(),
    daily_minutes_used: Type.Number(),
    daily_minutes_limit: Type.Number(),
    requests: Type.Object({ minute: UsageWindow, hour: UsageWindow, day: UsageWindow }),
    websocket_connections: Type.Integer(),
    websocket_connections_limit: Type.Integer(),
    history: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date' }),
        requests: Type.Integer(),
        audio_minutes: Type.Number(),
        jobs: Type.Integer(),
      }),
      { description: 'Daily statistics, oldest first (UTC days)' },
    ),
  }),
);
