import type { Registry } from 'prom-client';
import type { UrlSigner } from '../platform/auth/url-signer.js';
import type { RouteDefinition } from '../platform/http/route-types.js';
import { adminKeyRoutes } from '../api/admin-keys/admin-key-routes.js';
import { discoveryRoutes } from '../api/discovery/discovery-routes.js';
import { jobApiRoutes } from '../api/job-api/job-api-routes.js';
import { transcriptionRoutes } from '../api/transcriptions/transcription-routes.js';
import { DIARIZATION_GUIDE_SECTIONS } from '../api/diarization-guide.js';
import { captionRoutes } from '../api/transcriptions/caption-routes.js';
import { TEXT_TRANSLATION_GUIDE } from '../api/translation/text-translation-guide.js';
import { textTranslationRoutes } from '../api/translation/text-translation-routes.js';
import { usageRoutes } from '../api/usage/usage-routes.js';
import { openAiRoutes } from '../api/openai/openai-routes.js';
import type { TranslationEngine } from '../engines/translation/translation.js';
import type { JobService } from '../jobs/job-service.js';
import type { Feature } from './feature.js';
import type { MediaFeatures } from './media-features.js';
import type { Backends } from './open-backends.js';

/** What the API resources read from the gateway itself; late-bound where it exists only once listening or mounted. */
export interface GatewaySite {
  readonly version: string;
  readonly apiVersion: string;
  readonly startedAt: number;
  /** Read when a link is made: the port is known only once the gateway listens. */
  readonly baseUrl: string;
  readonly signer: UrlSigner;
  routes(): readonly RouteDefinition[];
  openApi(): Record<string, unknown>;
  llmsIndex(): string;
  llmsFull(): string;
}

/** Discovery: root listing, /health, /v1/languages, the API documents and (when enabled on this port) /metrics. */
export function discoveryFeature(b: Backends, site: GatewaySite, metrics: Registry | null): Feature {
  const { config } = b;
  const { asr, vad } = b.engines;
  return {
    name: 'discovery',
    routes: discoveryRoutes({
      version: site.version,
      apiVersion: site.apiVersion,
      baseUrl: site.baseUrl,
      defaultLanguage: config.defaultLanguage,
      startedAt: site.startedAt,
      asr,
      health: {
        device: () => asr.device(),
        vad: () => vad.available(),
        database: async () => b.store.health(),
        files: async () => ({ backend: b.storage.backend, ...(await b.storage.health()) }),
        queue: async () => ({ backend: b.queue.backend, ...(await b.queue.health()) }),
        cache: async () => ({ backend: b.cache.backend, ...(await b.cache.health()) }),
        rateLimiter: async () => ({ backend: b.limiter.backend, ...(await b.limiter.health()) }),
      },
      metrics,
      routes: () => site.routes(),
      openApi: () => site.openApi(),
      llmsIndex: () => site.llmsIndex(),
      llmsFull: () => site.llmsFull(),
    }),
  };
}

/** GET /v1/usage: the calling key's windows, live jobs and sessions, audio minutes. */
export function usageFeature(b: Backends, jobs: JobService): Feature {
  return {
    name: 'usage',
    routes: usageRoutes({
      limits: b.config.limits,
      limiter: b.limiter,
      usage: b.store.usage,
      recorder: b.usage,
      live: { activeJobs: (keyId) => jobs.activeJobs(keyId), websocketConnections: (keyId) => b.connections.count(keyId) },
    }),
  };
}

/** Key management (admin scope). */
export function adminKeysFeature(b: Backends): Feature {
  return { name: 'admin keys', routes: adminKeyRoutes(b.keys, b.store) };
}

/** The unified transcription resource (/v1/transcriptions). */
export function transcriptionsFeature(b: Backends, site: GatewaySite, jobs: JobService, media: MediaFeatures): Feature {
  const { asr } = b.engines;
  return {
    name: 'transcriptions',
    sections: DIARIZATION_GUIDE_SECTIONS,
    routes: [
      ...transcriptionRoutes({
        jobs,
        asr,
        storage: b.storage,
        signer: () => site.signer,
        guard: b.outbound,
        limits: b.config.limits,
        render: media.render,
        isGatewayReference: (url) => media.library.referencedId(url) !== null,
      }),
      ...captionRoutes(jobs),
    ],
  };
}

/** The job-based API (/transcribe, X-API-Key). */
export function jobApiFeature(b: Backends, site: GatewaySite, jobs: JobService, media: MediaFeatures): Feature {
  return {
    name: 'job api',
    routes: jobApiRoutes({
      jobs,
      asr: b.engines.asr,
      guard: b.outbound,
      limiter: b.limiter,
      signer: () => site.signer,
      limits: b.config.limits,
      isGatewayReference: (url) => media.library.referencedId(url) !== null,
    }),
  };
}

/** POST /translate/v1 on the translation engine (null: it answers 500 service_unavailable). */
export function textTranslationFeature(b: Backends): Feature {
  return { name: 'text translation', routes: textTranslationRoutes(b.translation), sections: TEXT_TRANSLATION_GUIDE };
}

/** OpenAI-compatible audio routes and model list (docs/openai-compatible.md); translations use `engine`. */
export function openAiFeature(b: Backends, site: GatewaySite, jobs: JobService, engine: () => TranslationEngine | null): Feature {
  return {
    name: 'openai-compatible',
    routes: openAiRoutes({ jobs, asr: b.engines.asr, storage: b.storage, limits: b.config.limits, translation: engine, startedAt: site.startedAt }),
  };
}
