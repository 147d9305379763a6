// Short-lived single-use session tokens for clients that cannot set headers on a WebSocket
// upgrade (browsers): POST /v1/ws/tokens (Bearer, write scope) mints one; the upgrade
// presents it as `?token=`. A token names its key by id; on use the key is looked up again,
// so a key revoked, expired or restricted in the meantime refuses the session.
//
// Stored in the gateway cache (in-process, or Redis shared by every gateway). Single use:
// the first upgrade that reads a token deletes it; with Redis two gateways racing on the same
// token within one round trip could both accept it.
import { randomBytes } from 'node:crypto';
import type { Cache } from '../platform/cache/cache.js';

const PREFIX = 'ws-token:';

interface TokenRecord {
  readonly keyId: string;
  readonly expiresAt: number;
}

export interface MintedToken {
  readonly token: string;
  readonly expiresAt: Date;
}

export class SessionTokens {
  constructor(
    private readonly cache: Cache,
    private readonly ttlSeconds: number,
    private readonly now: () => number = Date.now,
  ) {}

  async mint(keyId: string): Promise<MintedToken> {
    const token = `wst_${randomBytes(24).toString('base64url')}`;
    const expiresAt = this.now() + this.ttlSeconds * 1000;
    await this.cache.set(PREFIX + token, { keyId, expiresAt } satisfies TokenRecord, this.ttlSeconds);
    return { token, expiresAt: new Date(expiresAt) };
  }

  /** The key id the token was minted for, or null (unknown, expired or used). Consumes it. */
  async redeem(token: string): Promise<string | null> {
    if (!/^wst_[A-Za-z0-9_-]{32}$/.test(token)) return null;
    const record = await this.cache.get<TokenRecord>(PREFIX + token);
    if (record === null) return null;
    await this.cache.delete(PREFIX + token);
    if (record.expiresAt <= this.now()) return null;
    return record.keyId;
  }
}
