import type { JobService } from '../jobs/job-service.js';
import { WsEndpoint } from '../streaming/ws-endpoint.js';
import { WS_GUIDE_SECTIONS } from '../streaming/ws-guide.js';
import { wsRoutes } from '../streaming/ws-routes.js';
import { SessionRecords } from '../streaming/ws-session-record.js';
import { SessionTokens } from '../streaming/ws-session-tokens.js';
import type { Feature } from './feature.js';
import type { Backends } from './open-backends.js';

export interface StreamingFeature extends Feature {
  readonly endpoint: WsEndpoint;
}

/**
 * The WebSocket endpoint (GET /v1/ws/transcribe) and its session tokens. It mounts on the raw
 * app ahead of the router so that upgrades reach it; at shutdown (`drain`), open sessions finish
 * their last pieces and record their jobs before the engines and the store close; `close` stops
 * renewing the leases of session records still open, which the job sweep then ends.
 */
export function streamingFeature(b: Backends, jobs: JobService): StreamingFeature {
  const { config, logger } = b;
  const tokens = new SessionTokens(b.cache, config.streaming.tokenTtlSeconds);
  const records = new SessionRecords(b.store.jobs, b.usage, logger, { owner: b.owner, leaseMs: b.leaseMs });
  const endpoint = new WsEndpoint({
    config,
    logger,
    authenticator: b.authenticator,
    keys: b.store.apiKeys,
    tokens,
    asr: b.engines.asr,
    vad: b.engines.vad,
    records,
    storage: b.storage,
    admitQuota: (principal) => jobs.admitQuota(principal),
    connections: b.connections,
    metrics: b.metrics,
    workers: b.engines.asr.device().workers,
  });
  return {
    name: 'streaming',
    endpoint,
    routes: wsRoutes({ tokens, streaming: config.streaming }),
    sections: WS_GUIDE_SECTIONS,
    mount: (app) => endpoint.mount(app),
    // Shutdown: sockets close (1001) and sessions record their jobs by the deadline.
    drain: (deadline) => endpoint.close(Math.max(0, deadline - Date.now())),
    close: async () => records.close(),
  };
}
