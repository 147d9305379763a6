import type { Logger } from 'pino';
import type { JobRecord } from '../platform/db/job-records.js';
import type { TranslationJobRecord, TranslationStore, TranslationUnitRecord } from '../platform/db/translation-records.js';
import type { OutboundGuard } from '../platform/net/outbound-guard.js';
import type { JobOutbox } from '../jobs/job-outbox.js';
import { translationCallbackPayload } from '../jobs/translation-views.js';
import { attemptLeaseUntil, MAX_SLEEP_MS, postToEndpoint } from './endpoint-post.js';
import { fixedEventId } from './webhook-dispatcher.js';

/** Callbacks attempted at once by this process. */
const BATCH = 8;

export interface TranslationCallbackDeps {
  readonly translations: TranslationStore;
  readonly outbox: JobOutbox;
  readonly guard: OutboundGuard;
  /** Seconds from a failed attempt to the next (WEBHOOK_RETRY_SCHEDULE): one retry per entry. */
  readonly retryScheduleSeconds: readonly number[];
  readonly timeoutSeconds: number;
  /** A unit's signed output URL (for the payload's outputs). */
  readonly signOutput: (job: JobRecord, unit: TranslationUnitRecord) => string;
  readonly logger: Logger;
}

/**
 * `callback_url` of file translation jobs, delivered like a webhook: once the job leaves
 * PROCESSING the outbox hands it here and the callback is stored as pending with its exact body
 * (the job status and results); it is POSTed over HTTPS through the outbound guard, without
 * following redirects, signed with `X-Webhook-Signature` when the job gave a `callback_secret`,
 * and retried on the webhook schedule until a 2xx answers. The state lives in the store, so a
 * restart resumes the schedule; claims are leased so several processes never send one twice at once.
 */
export class TranslationCallbacks {
  private timer: NodeJS.Timeout | null = null;
  private pumping: Promise<void> | null = null;
  private again = false;
  private closed = false;

  constructor(private readonly deps: TranslationCallbackDeps) {
    deps.outbox.register((job) => this.onFinished(job));
  }

  start(): void {
    this.closed = false;
    this.kick();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.pumping;
  }

  private async onFinished(job: JobRecord): Promise<void> {
    if (job.kind !== 'translation') return;
    const translation = await this.deps.translations.get(job.id);
    if (translation === null || translation.callbackUrl === null || translation.callbackStatus !== null) return;
    const units = await this.deps.translations.units(job.id);
    const payload = JSON.stringify(translationCallbackPayload(job, translation, units, (unit) => this.deps.signOutput(job, unit)));
    if (await this.deps.translations.scheduleCallback(job.id, payload, new Date().toISOString())) this.kick();
  }

  /** Sends what is due now, then sleeps until the next due callback (or a minute). */
  private kick(): void {
    if (this.closed) return;
    if (this.pumping !== null) {
      this.again = true;
      return;
    }
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.pumping = (async () => {
      try {
        do {
          this.again = false;
          const now = Date.now();
          const leaseUntil = attemptLeaseUntil(this.deps.timeoutSeconds, now);
          const due = await this.deps.translations.claimDueCallbacks(new Date(now).toISOString(), leaseUntil, BATCH);
          await Promise.all(due.map((t) => this.attempt(t, leaseUntil)));
          if (due.length === BATCH) this.again = true;
        } while (this.again && !this.closed);
        if (this.closed) return;
        const next = await this.deps.translations.nextCallbackAt();
        const wait = next === null ? MAX_SLEEP_MS : Math.min(MAX_SLEEP_MS, Math.max(20, Date.parse(next) - Date.now()));
        this.timer = setTimeout(() => this.kick(), wait);
        this.timer.unref();
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'translation callbacks: pump failed; retrying shortly');
        if (!this.closed) {
          this.timer = setTimeout(() => this.kick(), 1_000);
          this.timer.unref();
        }
      } finally {
        this.pumping = null;
      }
    })();
  }

  private async attempt(t: TranslationJobRecord, leaseUntil: string): Promise<void> {
    const { retryScheduleSeconds, logger } = this.deps;
    const body = t.callbackPayload ?? '{}';
    const number = t.callbackAttempts + 1;
    const posted = await postToEndpoint(
      this.deps.guard,
      {
        url: t.callbackUrl ?? '',
        body,
        eventId: fixedEventId(`${t.jobId}:callback`),
        event: 'translation.finished',
        number,
        secret: t.callbackSecret,
        timeoutMs: this.deps.timeoutSeconds * 1000,
      },
      async (response) => {
        response.body.resume();
        return response.status;
      },
    );
    // null on a 2xx answer, else why it failed.
    const error = 'error' in posted ? posted.error : posted.answer >= 200 && posted.answer < 300 ? null : `HTTP ${posted.answer}`;
    const retryIn = retryScheduleSeconds[number - 1];
    const patch =
      error === null
        ? { callbackStatus: 'succeeded' as const, callbackAttempts: number, callbackNextAt: null, callbackLeaseUntil: null, callbackLastError: null }
        : retryIn === undefined
          ? { callbackStatus: 'failed' as const, callbackAttempts: number, callbackNextAt: null, callbackLeaseUntil: null, callbackLastError: error }
          : {
              callbackAttempts: number,
              callbackNextAt: new Date(Date.now() + retryIn * 1000).toISOString(),
              callbackLeaseUntil: null,
              callbackLastError: error,
            };
    if (!(await this.deps.translations.updateCallback(t.jobId, patch, leaseUntil))) return;
    if (error !== null) logger.info({ jobId: t.jobId, attempt: number, error, retryInSeconds: retryIn ?? null }, 'translation callback failed');
  }
}
