import type { Authenticator } from '../platform/auth/authenticator.js';
import type { Principal, Scope } from '../platform/auth/principal.js';
import type { Limits } from '../platform/config/config.js';
import { ApiError } from '../platform/errors/api-error.js';
import type { RateLimiter, WindowCount, WindowLimit } from '../platform/limits/rate-limiter.js';
import type { UsageRecorder } from '../platform/limits/usage-recorder.js';
import type { HttpExchange } from '../platform/http/http-exchange.js';
import type { RequestGuard } from './router.js';
import type { RouteDefinition } from '../platform/http/route-types.js';

/** The scope a route needs when it names none: reads need `read`, everything else `write`. */
export function requiredScope(route: RouteDefinition): Scope {
  return route.scope ?? (route.method === 'GET' ? 'read' : 'write');
}

/** The request windows for a key: its overrides, else the server's limits. */
export function requestWindows(limits: Limits, principal: Principal | null): WindowLimit[] {
  const overrides = principal?.key.limits ?? {};
  return [
    { window: 'minute', limit: overrides.requestsPerMinute ?? limits.requestsPerMinute },
    { window: 'hour', limit: overrides.requestsPerHour ?? limits.requestsPerHour },
    { window: 'day', limit: overrides.requestsPerDay ?? limits.requestsPerDay },
  ];
}

export function rateBucket(principal: Principal | null, remoteAddress: string): string {
  return principal !== null ? `key:${principal.key.id}` : `ip:${remoteAddress}`;
}

/** Extracts the key each surface carries and applies the key's limits. */
export class GatewayRequestGuard implements RequestGuard {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly limiter: RateLimiter,
    private readonly usage: UsageRecorder,
    private readonly limits: Limits,
  ) {}

  async authenticate(route: RouteDefinition, exchange: HttpExchange, formKey: string | undefined): Promise<Principal | null> {
    let presented: string | undefined;
    switch (route.auth) {
      case 'none':
      case 'signed':
        return null;
      case 'bearer': {
        const header = exchange.header('authorization');
        if (header === undefined || header.trim() === '') break;
        const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
        if (match === null) {
          throw new ApiError('invalid_api_key', { message: 'The Authorization header must be "Bearer <API_KEY>".' });
        }
        presented = match[1];
        break;
      }
      case 'x-api-key':
        presented = exchange.header('x-api-key');
        break;
      case 'form-key':
        if (formKey === undefined || formKey === '') {
          throw new ApiError('missing_required_field', { message: "Missing required field 'key' (the API key).", param: 'key' });
        }
        presented = formKey;
        break;
    }
    return this.authenticator.authenticate(presented, { remoteAddress: exchange.remoteAddress, origin: exchange.header('origin') }, requiredScope(route));
  }

  async limit(route: RouteDefinition, exchange: HttpExchange, principal: Principal | null): Promise<void> {
    // Signed links are never counted (they carry their own authorization) but report too.
    const limited = route.rateLimited ?? (route.auth === 'signed' ? 'report' : true);
    if (!limited) return;
    const windows = requestWindows(this.limits, principal);
    const bucket = rateBucket(principal, exchange.remoteAddress);
    if (limited === 'report') {
      const [current] = await this.limiter.peek(bucket, windows);
      if (current !== undefined) setRateHeaders(exchange, current);
      return;
    }
    const decision = await this.limiter.consume(bucket, windows);
    const { reported } = decision;
    setRateHeaders(exchange, reported);
    if (!decision.allowed) {
      throw new ApiError('rate_limit_exceeded', {
        message: `Rate limit exceeded: ${reported.limit} requests per ${reported.window}. Retry after ${decision.retryAfter} seconds.`,
        retryAfter: decision.retryAfter,
        detail: `Rate limit exceeded: ${reported.limit} requests/${reported.window}`,
      });
    }
    if (principal !== null) this.usage.record(principal.key.id, { requests: 1 });
  }
}

function setRateHeaders(exchange: HttpExchange, window: WindowCount): void {
  exchange.setHeader('X-RateLimit-Limit', String(window.limit));
  exchange.setHeader('X-RateLimit-Remaining', String(Math.max(0, window.limit - window.count)));
  exchange.setHeader('X-RateLimit-Reset', String(Math.ceil(window.resetAt / 1000)));
}
