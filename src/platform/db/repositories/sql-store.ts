import type { IdempotencyStore } from '../idempotency-records.js';
import type { JobStore } from '../job-records.js';
import type { MediaStore } from '../media-records.js';
import type { SqlDatabase } from '../sql/executor.js';
import type { AccountStore, ApiKeyStore, Store, StoreHealth, UsageStore } from '../store-types.js';
import type { TranslationStore } from '../translation-records.js';
import type { WebhookStore } from '../webhook-records.js';
import { AccountRepository } from './account-repository.js';
import { IdempotencyRepository } from './idempotency-repository.js';
import { JobRepository } from './job-repository.js';
import { KeyRepository } from './key-repository.js';
import { MediaRepository } from './media-repository.js';
import { TranslationRepository } from './translation-repository.js';
import { UsageRepository } from './usage-repository.js';
import { WebhookRepository } from './webhook-repository.js';

/** Every repository, written once over one backend's executor; backends add opening, health and closing. */
export abstract class SqlStore<Executor extends SqlDatabase = SqlDatabase> implements Store {
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly usage: UsageStore;
  readonly jobs: JobStore;
  readonly media: MediaStore;
  readonly webhooks: WebhookStore;
  readonly translations: TranslationStore;
  readonly idempotency: IdempotencyStore;

  constructor(protected readonly sql: Executor) {
    this.accounts = new AccountRepository(sql);
    this.apiKeys = new KeyRepository(sql);
    this.usage = new UsageRepository(sql);
    this.jobs = new JobRepository(sql);
    this.media = new MediaRepository(sql);
    this.webhooks = new WebhookRepository(sql);
    this.translations = new TranslationRepository(sql);
    this.idempotency = new IdempotencyRepository(sql);
  }

  abstract health(): Promise<StoreHealth>;
  abstract close(): Promise<void>;
}
