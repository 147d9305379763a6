import { Type } from '@sinclair/typebox';
import type { Registry } from 'prom-client';
import type { DocumentSection } from '../../platform/http/llms-text.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import { HealthSchema, LanguagesSchema, RootSchema } from './discovery-schemas.js';

import type { ModelInfo, Asr } from '../../engines/asr/asr.js';
import { BEARER_ADMIN, BEARER_READ, PUBLIC } from '../route-access.js';

export interface ComponentStatus {
  readonly backend: string;
  readonly ok: boolean;
  readonly detail?: string;
}

export interface HealthSources {
  device(): { requested: string; active: string; workers: number };
  vad(): { energy: boolean; silero: boolean };
  database(): Promise<ComponentStatus>;
  files(): Promise<ComponentStatus>;
  queue(): Promise<ComponentStatus>;
  cache(): Promise<ComponentStatus>;
  rateLimiter(): Promise<ComponentStatus>;
}

export interface DiscoveryDeps {
  readonly version: string;
  readonly apiVersion: string;
  readonly baseUrl: string;
  readonly defaultLanguage: string;
  readonly startedAt: number;
  /** What the gateway can transcribe right now. */
  readonly asr: Pick<Asr, 'languages' | 'models' | 'autoDetect'>;
  readonly health: HealthSources;
  /** Served at GET /metrics to bearer keys with the admin scope; null: no such route on this port. */
  readonly metrics: Registry | null;
  /** Late-bound: the documents describe every route, including those added after these. */
  readonly routes: () => readonly RouteDefinition[];
  readonly openApi: () => Record<string, unknown>;
  readonly llmsIndex: () => string;
  readonly llmsFull: () => string;
  readonly sections?: readonly DocumentSection[];
}

const TAG = ['Discovery'];

export function languageListing(speech: Pick<Asr, 'languages' | 'models' | 'autoDetect'>, defaultLanguage: string) {
  const models = speech.models();
  const languages = speech.languages().filter((l) => models.some((m) => m.language === l.code));
  const codes = languages.map((l) => l.code);
  if (speech.autoDetect() && codes.length > 0) codes.push('auto');
  return {
    object: 'list' as const,
    languages: codes,
    default_language: defaultLanguage,
    loaded_models: models.filter((m) => m.loaded).map((m) => m.name),
    data: languages.map((l) => ({
      code: l.code,
      name: l.name,
      default_model: l.defaultModel,
      models: models.filter((m) => m.language === l.code).map(modelView),
    })),
  };
}

function modelView(m: ModelInfo) {
  return {
    name: m.name,
    language: m.language,
    default: m.isDefault,
    loaded: m.loaded,
    ...(m.description !== undefined ? { description: m.description } : {}),
  };
}

export function discoveryRoutes(deps: DiscoveryDeps): RouteDefinition[] {
  const routes: RouteDefinition[] = [
    defineRoute({
      method: 'GET',
      path: '/',
      operationId: 'getRoot',
      summary: 'List the available endpoints',
      tags: TAG,
      ...PUBLIC,
      responses: { 200: { description: 'Root listing', schema: RootSchema } },
      handler: async () => ({
        status: 200,
        body: {
          name: 'Speech gateway (Amharic, Oromo, Tigrinya)',
          version: deps.version,
          api_version: deps.apiVersion,
          documentation: { openapi: '/openapi.json', llms: '/llms.txt', llms_full: '/llms-full.txt' },
          endpoints: deps
            .routes()
            .filter((r) => !r.hidden)
            .map((r) => ({ method: r.method, path: r.path, summary: r.summary, auth: r.auth })),
        },
      }),
    }),
    defineRoute({
      method: 'GET',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Server status, models, languages, device, VAD, storage and queue connectivity',
      description: 'Needs no credential. `status` is `degraded` when a component is unreachable or no model is loaded.',
      tags: TAG,
      ...PUBLIC,
      // Health checks are never refused; the headers report the caller address's window.
      rateLimited: 'report',
      responses: { 200: { description: 'Status listing', schema: HealthSchema } },
      handler: async () => {
        const h = deps.health;
        const [database, files, queue, cache, rateLimiter] = await Promise.all([h.database(), h.files(), h.queue(), h.cache(), h.rateLimiter()]);
        const listing = languageListing(deps.asr, deps.defaultLanguage);
        const models = deps.asr.models();
        const ok = [database, files, queue, cache, rateLimiter].every((c) => c.ok) && models.some((m) => m.loaded);
        return {
          status: 200,
          body: {
            status: ok ? 'ok' : 'degraded',
            version: deps.version,
            api_version: deps.apiVersion,
            uptime_seconds: Math.round((Date.now() - deps.startedAt) / 100) / 10,
            languages: listing.languages,
            default_language: deps.defaultLanguage,
            models: models.map(modelView),
            device: h.device(),
            vad: h.vad(),
            storage: { database, files },
            queue,
            cache,
            rate_limiter: rateLimiter,
          },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/v1/languages',
      operationId: 'listLanguages',
      summary: 'Available language codes, loaded models and the default language',
      tags: TAG,
      ...BEARER_READ,
      responses: { 200: { description: 'Languages listing', schema: LanguagesSchema } },
      handler: async () => ({ status: 200, body: languageListing(deps.asr, deps.defaultLanguage) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'getOpenApi',
      summary: 'This API as an OpenAPI 3.1 document',
      tags: TAG,
      ...PUBLIC,
      responses: { 200: { description: 'OpenAPI document', schema: Type.Object({}, { additionalProperties: true }) } },
      handler: async () => ({ status: 200, body: deps.openApi() }),
    }),
    // The two Markdown views of this API for language-model tooling, served alike.
    ...[
      {
        path: '/llms.txt',
        operationId: 'getLlmsIndex',
        summary: 'An index of this API for language-model tooling',
        description: 'Markdown index',
        text: deps.llmsIndex,
      },
      {
        path: '/llms-full.txt',
        operationId: 'getLlmsFull',
        summary: 'The full reference of this API as text',
        description: 'Markdown reference',
        text: deps.llmsFull,
      },
    ].map((view) =>
      defineRoute({
        method: 'GET',
        path: view.path,
        operationId: view.operationId,
        summary: view.summary,
        tags: TAG,
        ...PUBLIC,
        responses: { 200: { description: view.description, contentType: 'text/markdown; charset=utf-8' } },
        handler: async () => ({ status: 200, body: view.text() }),
      }),
    ),
  ];
  if (deps.metrics !== null) {
    const registry = deps.metrics;
    routes.push(
      defineRoute({
        method: 'GET',
        path: '/metrics',
        operationId: 'getMetrics',
        summary: 'Prometheus metrics (admin keys; the metrics listener serves them without a key)',
        tags: ['Operations'],
        ...BEARER_ADMIN,
        rateLimited: false,
        responses: { 200: { description: 'Prometheus text format', contentType: registry.contentType } },
        handler: async () => ({ status: 200, body: await registry.metrics() }),
      }),
    );
  }
  return routes;
}
