/** `record`: may open WebSocket sessions with record=true (their message timeline is stored). */
export const SCOPES = ['read', 'write', 'admin', 'record'] as const;
export type Scope = (typeof SCOPES)[number];

/** Per-key overrides of the server-wide limits; absent fields use the server default. */
export interface KeyLimitOverrides {
  readonly requestsPerMinute?: number;
  readonly requestsPerHour?: number;
  readonly requestsPerDay?: number;
  readonly concurrentJobs?: number;
  readonly dailyAudioMinutes?: number;
  readonly wsConnections?: number;
}

export interface ApiKeyRecord {
  readonly id: string;
  readonly accountId: string;
  readonly name: string | null;
  /** The first characters of the key, for recognising it in listings; never enough to use it. */
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  readonly ipAllowlist: readonly string[] | null;
  readonly originAllowlist: readonly string[] | null;
  readonly limits: KeyLimitOverrides;
  readonly createdAt: string;
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly lastUsedAt: string | null;
}

/** The authenticated caller of one request. */
export interface Principal {
  readonly key: ApiKeyRecord;
  readonly accountId: string;
  hasScope(scope: Scope): boolean;
}

export function principalFor(key: ApiKeyRecord): Principal {
  const scopes = new Set(key.scopes);
  return {
    key,
    accountId: key.accountId,
    // admin implies every scope; write implies read.
    hasScope: (scope) => scopes.has('admin') || scopes.has(scope) || (scope === 'read' && scopes.has('write')),
  };
}
