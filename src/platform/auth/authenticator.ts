import { ApiError } from '../errors/api-error.js';
import type { ApiKeyStore } from '../db/store-types.js';
import { hashApiKey } from './api-key-secrets.js';
import { addressAllowed } from '../net/ip-allowlist.js';
import { originAllowed } from './origin-allowlist.js';
import { principalFor, type ApiKeyRecord, type Principal, type Scope } from './principal.js';

export interface CallerContext {
  readonly remoteAddress: string;
  readonly origin: string | undefined;
}

const TOUCH_INTERVAL_MS = 60_000;
const KEY_CACHE_MAX = 10_000;

/**
 * Turns a presented key into a Principal, or an ApiError naming exactly what is wrong:
 * missing, invalid, expired, revoked, IP or origin not allowed, or lacking a scope.
 */
export class Authenticator {
  private readonly lastTouched = new Map<string, number>();
  private readonly cache = new Map<string, { record: ApiKeyRecord | null; until: number }>();

  /**
   * @param cacheMs how long a key record is reused after a lookup. A revocation through this
   *   process takes effect at once (it evicts); one made elsewhere (the CLI, another gateway)
   *   takes effect within this time.
   */
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly cacheMs = 2_000,
    private readonly now: () => number = Date.now,
  ) {}

  async authenticate(presented: string | undefined, caller: CallerContext, requiredScope: Scope | undefined): Promise<Principal> {
    if (presented === undefined || presented.trim() === '') throw new ApiError('missing_api_key');
    const record = await this.lookup(hashApiKey(presented.trim()));
    if (record === null) throw new ApiError('invalid_api_key');
    return this.authorize(record, caller, requiredScope);
  }

  /**
   * The checks made after a key is found (revoked, expired, IP, origin, scope), for callers
   * that identify the key another way (a WebSocket session token names its key by id).
   */
  authorize(record: ApiKeyRecord, caller: CallerContext, requiredScope: Scope | undefined): Principal {
    if (record.revokedAt !== null) throw new ApiError('revoked_api_key');
    const now = this.now();
    if (record.expiresAt !== null && Date.parse(record.expiresAt) <= now) throw new ApiError('expired_api_key');
    if (record.ipAllowlist !== null && record.ipAllowlist.length > 0 && !addressAllowed(caller.remoteAddress, record.ipAllowlist)) {
      throw new ApiError('ip_not_allowed', { message: `Requests from ${caller.remoteAddress} are not allowed for this API key.` });
    }
    // Browsers always send Origin; requests without one (servers, CLIs) are not origin-bound.
    if (
      caller.origin !== undefined &&
      record.originAllowlist !== null &&
      record.originAllowlist.length > 0 &&
      !originAllowed(caller.origin, record.originAllowlist)
    ) {
      throw new ApiError('origin_not_allowed', { message: `Requests from origin ${caller.origin} are not allowed for this API key.` });
    }
    const principal = principalFor(record);
    if (requiredScope !== undefined && !principal.hasScope(requiredScope)) {
      if (requiredScope === 'admin') throw new ApiError('admin_required');
      throw new ApiError('insufficient_scope', {
        message: `This endpoint requires the '${requiredScope}' scope; the key has: ${record.scopes.join(', ') || 'none'}.`,
      });
    }
    this.touch(record.id, now);
    return principal;
  }

  private async lookup(hash: string): Promise<ApiKeyRecord | null> {
    const now = this.now();
    const cached = this.cache.get(hash);
    if (cached !== undefined && cached.until > now) return cached.record;
    if (this.cacheMs <= 0) return this.keys.findByHash(hash);
    const record = await this.keys.findByHash(hash);
    if (this.cache.size >= KEY_CACHE_MAX) this.cache.clear();
    this.cache.set(hash, { record, until: now + this.cacheMs });
    return record;
  }

  /** Drops cached records (after a revocation or a change of a key's settings). */
  invalidate(): void {
    this.cache.clear();
  }

  /** Records last use at most once a minute per key, off the request's critical path. */
  private touch(keyId: string, now: number): void {
    const last = this.lastTouched.get(keyId) ?? 0;
    if (now - last < TOUCH_INTERVAL_MS) return;
    this.lastTouched.set(keyId, now);
    void this.keys.touch(keyId, new Date(now).toISOString()).catch(() => undefined);
  }
}
