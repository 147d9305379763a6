import type { Limits } from '../../platform/config/config.js';
import { requestWindows, rateBucket } from '../request-guard.js';
import { defineRoute, type RouteDefinition } from '../../platform/http/route-types.js';
import type { RateLimiter } from '../../platform/limits/rate-limiter.js';
import type { UsageRecorder } from '../../platform/limits/usage-recorder.js';
import { UsageSchema } from '../discovery/discovery-schemas.js';
import { utcDate } from '../../platform/db/dates.js';
import type { UsageStore } from '../../platform/db/store-types.js';
import { BEARER_READ } from '../route-access.js';

/** Live counts owned by other modules (jobs, streaming sessions). */
export interface LiveUsage {
  activeJobs(keyId: string): Promise<number>;
  websocketConnections(keyId: string): Promise<number>;
}

export interface UsageDeps {
  readonly limits: Limits;
  readonly limiter: RateLimiter;
  readonly usage: UsageStore;
  readonly recorder: UsageRecorder;
  readonly live: LiveUsage;
  readonly historyDays?: number;
}

export function usageRoutes(deps: UsageDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/v1/usage',
      operationId: 'getUsage',
      summary: 'Rate-limit usage, concurrent jobs, audio minutes and daily history of the calling key',
      description:
        'The requests counted include this one. `requests_*` describe the per-minute window; `requests.hour` and `requests.day` ' +
        'carry the longer windows (limit null when not limited). `history` lists the last 30 UTC days.',
      tags: ['Usage'],
      ...BEARER_READ,
      responses: { 200: { description: 'Usage record', schema: UsageSchema } },
      handler: async ({ principal, exchange }) => {
        const key = principal!.key;
        const now = Date.now();
        const today = utcDate(now);
        const windows = requestWindows(deps.limits, principal);
        const counts = await deps.limiter.peek(rateBucket(principal, exchange.remoteAddress), windows, now);
        const history = await deps.usage.history(key.id, today, deps.historyDays ?? 30);
        const pending = deps.recorder.unflushed(key.id, today);
        const todayRow = history[history.length - 1]!;
        history[history.length - 1] = {
          ...todayRow,
          requests: todayRow.requests + pending.requests,
          audioSeconds: todayRow.audioSeconds + pending.audioSeconds,
          jobs: todayRow.jobs + pending.jobs,
        };
        const window = (i: number) => ({
          used: counts[i]!.count,
          limit: counts[i]!.limit > 0 ? counts[i]!.limit : null,
          reset: new Date(counts[i]!.resetAt).toISOString(),
        });
        const minutesToday = history[history.length - 1]!.audioSeconds / 60;
        return {
          status: 200,
          body: {
            object: 'usage',
            requests_used: counts[0]!.count,
            requests_limit: counts[0]!.limit,
            requests_reset: new Date(counts[0]!.resetAt).toISOString(),
            concurrent_jobs: await deps.live.activeJobs(key.id),
            concurrent_jobs_limit: key.limits.concurrentJobs ?? deps.limits.concurrentJobs,
            daily_minutes_used: Math.round(minutesToday * 1000) / 1000,
            daily_minutes_limit: key.limits.dailyAudioMinutes ?? deps.limits.dailyAudioMinutes,
            requests: { minute: window(0), hour: window(1), day: window(2) },
            websocket_connections: await deps.live.websocketConnections(key.id),
            websocket_connections_limit: key.limits.wsConnections ?? deps.limits.wsConnectionsPerKey,
            history: history.map((d) => ({
              date: d.date,
              requests: d.requests,
              audio_minutes: Math.round((d.audioSeconds / 60) * 1000) / 1000,
              jobs: d.jobs,
            })),
          },
        };
      },
    }),
  ];
}
