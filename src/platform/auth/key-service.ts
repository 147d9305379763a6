import { ApiError } from '../errors/api-error.js';
import type { Account, Store } from '../db/store-types.js';
import { generateApiKey } from './api-key-secrets.js';
import { cidrProblem } from '../net/ip-allowlist.js';
import { originProblem } from './origin-allowlist.js';
import { SCOPES, type ApiKeyRecord, type KeyLimitOverrides, type Scope } from './principal.js';

export interface CreateKeyInput {
  /** Account name; created when it does not exist yet. */
  readonly account: string;
  readonly name?: string | null;
  readonly scopes?: readonly string[];
  /** ISO 8601 instant, or a duration from now such as `30d`, `12h`, `90m`. */
  readonly expires?: string | null;
  readonly ipAllowlist?: readonly string[];
  readonly originAllowlist?: readonly string[];
  readonly limits?: KeyLimitOverrides;
}

export interface CreatedKey {
  /** The only time the key itself exists outside the caller's hands. */
  readonly key: string;
  readonly record: ApiKeyRecord;
  readonly account: Account;
}

const LIMIT_FIELDS: readonly (keyof KeyLimitOverrides)[] = [
  'requestsPerMinute',
  'requestsPerHour',
  'requestsPerDay',
  'concurrentJobs',
  'dailyAudioMinutes',
  'wsConnections',
];

export function parseExpiry(value: string, now: number): string {
  const duration = /^(\d+)\s*(s|m|h|d|w)$/i.exec(value.trim());
  if (duration) {
    const unit: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };
    return new Date(now + Number(duration[1]) * unit[duration[2]!.toLowerCase()]! * 1000).toISOString();
  }
  const at = Date.parse(value);
  if (Number.isNaN(at)) {
    throw new ApiError('invalid_field_value', {
      message: `expires must be an ISO 8601 date or a duration such as 30d, got "${value}".`,
      param: 'expires',
    });
  }
  return new Date(at).toISOString();
}

/** Issues, lists and revokes keys. Shared by the admin CLI and the admin endpoints. */
export class KeyService {
  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
    /** Called after a key changes, so that caches of key records drop it. */
    private readonly onChange: () => void = () => undefined,
  ) {}

  async create(input: CreateKeyInput): Promise<CreatedKey> {
    const accountName = input.account.trim();
    if (accountName === '') throw new ApiError('missing_required_field', { message: 'account is required.', param: 'account' });
    const scopes = [...new Set(input.scopes ?? ['read', 'write'])];
    for (const scope of scopes) {
      if (!(SCOPES as readonly string[]).includes(scope)) {
        throw new ApiError('invalid_field_value', {
          message: `Unknown scope "${scope}"; scopes are ${SCOPES.join(', ')}.`,
          param: 'scopes',
        });
      }
    }
    for (const cidr of input.ipAllowlist ?? []) {
      const problem = cidrProblem(cidr);
      if (problem) throw new ApiError('invalid_field_value', { message: problem, param: 'ip_allowlist' });
    }
    for (const origin of input.originAllowlist ?? []) {
      const problem = originProblem(origin);
      if (problem) throw new ApiError('invalid_field_value', { message: problem, param: 'origin_allowlist' });
    }
    const limits: Record<string, number> = {};
    for (const field of LIMIT_FIELDS) {
      const value = input.limits?.[field];
      if (value === undefined) continue;
      if (!Number.isFinite(value) || value <= 0) {
        throw new ApiError('invalid_field_value', { message: `${field} must be a positive number.`, param: field });
      }
      limits[field] = value;
    }
    const expiresAt = input.expires ? parseExpiry(input.expires, this.now()) : null;
    if (expiresAt !== null && Date.parse(expiresAt) <= this.now()) {
      throw new ApiError('invalid_field_value', { message: 'expires must be in the future.', param: 'expires' });
    }
    const account = await this.store.accounts.ensure(accountName);
    const secret = generateApiKey();
    const record = await this.store.apiKeys.create({
      accountId: account.id,
      name: input.name ?? null,
      prefix: secret.prefix,
      hash: secret.hash,
      scopes: scopes as Scope[],
      ipAllowlist: input.ipAllowlist && input.ipAllowlist.length > 0 ? [...input.ipAllowlist] : null,
      originAllowlist: input.originAllowlist && input.originAllowlist.length > 0 ? [...input.originAllowlist] : null,
      limits,
      expiresAt,
    });
    return { key: secret.key, record, account };
  }

  async list(filter: { account?: string; includeRevoked?: boolean }): Promise<ApiKeyRecord[]> {
    let accountId: string | undefined;
    if (filter.account !== undefined) {
      const account = await this.store.accounts.findByName(filter.account);
      if (account === null) return [];
      accountId = account.id;
    }
    return this.store.apiKeys.list({ ...(accountId !== undefined ? { accountId } : {}), includeRevoked: filter.includeRevoked ?? false });
  }

  /** Revokes by key id (`key_...`) or by the displayed prefix (`sk_XXXXXXXX`) when it is unique. */
  async revoke(idOrPrefix: string): Promise<ApiKeyRecord> {
    let record = await this.store.apiKeys.get(idOrPrefix);
    if (record === null && idOrPrefix.startsWith('sk_')) {
      const matches = (await this.store.apiKeys.list({ includeRevoked: true })).filter((k) => k.prefix === idOrPrefix);
      if (matches.length > 1) {
        throw new ApiError('invalid_field_value', { message: `Prefix ${idOrPrefix} matches several keys; use the key id.` });
      }
      record = matches[0] ?? null;
    }
    if (record === null) throw new ApiError('resource_not_found', { message: `No API key ${idOrPrefix}.` });
    const revoked = (await this.store.apiKeys.revoke(record.id, new Date(this.now()).toISOString()))!;
    this.onChange();
    return revoked;
  }
}

/** The public view of a key record (never includes the hash). */
export function keyView(record: ApiKeyRecord, accountName?: string): Record<string, unknown> {
  return {
    id: record.id,
    object: 'api_key',
    account_id: record.accountId,
    ...(accountName !== undefined ? { account: accountName } : {}),
    name: record.name,
    prefix: record.prefix,
    scopes: record.scopes,
    ip_allowlist: record.ipAllowlist,
    origin_allowlist: record.originAllowlist,
    limits: limitsView(record.limits),
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
    last_used_at: record.lastUsedAt,
    status: record.revokedAt !== null ? 'revoked' : record.expiresAt !== null && Date.parse(record.expiresAt) <= Date.now() ? 'expired' : 'active',
  };
}

const LIMIT_NAMES: Record<keyof KeyLimitOverrides, string> = {
  requestsPerMinute: 'requests_per_minute',
  requestsPerHour: 'requests_per_hour',
  requestsPerDay: 'requests_per_day',
  concurrentJobs: 'concurrent_jobs',
  dailyAudioMinutes: 'daily_audio_minutes',
  wsConnections: 'websocket_connections',
};

function limitsView(limits: KeyLimitOverrides): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [field, name] of Object.entries(LIMIT_NAMES)) {
    const value = limits[field as keyof KeyLimitOverrides];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
