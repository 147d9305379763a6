import type { ApiKeyRecord } from '../auth/principal.js';
import type { IdempotencyStore } from './idempotency-records.js';
import type { JobStore } from './job-records.js';
import type { MediaStore } from './media-records.js';
import type { TranslationStore } from './translation-records.js';
import type { WebhookStore } from './webhook-records.js';

export interface Account {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
}

/** A key to store: its record's fields the caller chooses, and the hash it is found by. */
export interface NewApiKey extends Pick<ApiKeyRecord, 'accountId' | 'name' | 'prefix' | 'scopes' | 'ipAllowlist' | 'originAllowlist' | 'limits' | 'expiresAt'> {
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  readonly hash: string;
}

export interface AccountStore {
  /** Returns the account with this name, creating it if absent. */
  ensure(name: string): Promise<Account>;
  get(id: string): Promise<Account | null>;
  findByName(name: string): Promise<Account | null>;
  list(): Promise<Account[]>;
}

export interface ApiKeyStore {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByHash(hash: string): Promise<ApiKeyRecord | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  list(filter: { accountId?: string; includeRevoked?: boolean }): Promise<ApiKeyRecord[]>;
  /** Sets revoked_at once; returns the key (already revoked keys keep their first date). */
  revoke(id: string, at: string): Promise<ApiKeyRecord | null>;
  touch(id: string, at: string): Promise<void>;
}

export interface UsageDay {
  readonly date: string;
  readonly requests: number;
  readonly audioSeconds: number;
  readonly jobs: number;
}

/** Per key and UTC day: requests served, audio seconds transcribed, jobs run. */
export interface UsageStore {
  add(keyId: string, date: string, delta: { requests?: number; audioSeconds?: number; jobs?: number }): Promise<void>;
  day(keyId: string, date: string): Promise<UsageDay>;
  /** The most recent `days` days up to and including `untilDate`, oldest first, zero-filled. */
  history(keyId: string, untilDate: string, days: number): Promise<UsageDay[]>;
}

export interface StoreHealth {
  readonly backend: 'sqlite' | 'postgres';
  readonly ok: boolean;
  readonly detail?: string;
}

/** The gateway's persistent state. Each area is a small interface; backends implement all. */
export interface Store {
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly usage: UsageStore;
  readonly jobs: JobStore;
  readonly media: MediaStore;
  readonly webhooks: WebhookStore;
  readonly translations: TranslationStore;
  readonly idempotency: IdempotencyStore;
  health(): Promise<StoreHealth>;
  close(): Promise<void>;
}
