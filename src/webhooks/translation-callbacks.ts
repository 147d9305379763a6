import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { JobRecord } from '../platform/db/job-records.js';
import type { TranslationJobRecord, TranslationStore, TranslationUnitRecord } from '../platform/db/translation-records.js';
import { isApiError } from '../platform/errors/api-error.js';
import type { OutboundGuard } from '../platform/net/outbound-guard.js';
import { isRequestTimeout, safeRequest } from '../platform/net/safe-http.js';
import type { JobOutbox } from '../jobs/job-outbox.js';
import { translationCallbackPayload } from '../jobs/translation-views.js';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature.js';

const USER_AGENT = 'speech-gateway-webhooks/1';
/** Callbacks attempted at once by this process. */
const BATCH = 8;
const MAX_SLEEP_MS = 60_000;
const LEASE_MARGIN_MS = 30_000;

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
          const leaseUntil = new Date(now + this.deps.timeoutSeconds * 1000 + LEASE_MARGIN_MS).toISOString();
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
    const unixSeconds = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': USER_AGENT,
      'x-webhook-id': `evt_${createHash('sha256').update(`${t.jobId}:callback`).digest('hex').slice(0, 24)}`,
      'x-webhook-event': 'translation.finished',
      'x-webhook-attempt': String(number),
      'x-webhook-timestamp': String(unixSeconds),
    };
    if (t.callbackSecret !== null) headers[SIGNATURE_HEADER.toLowerCase()] = signatureHeader(t.callbackSecret, body, unixSeconds);
    const error = await this.post(t.callbackUrl ?? '', body, headers);
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

  /** null on a 2xx answer, else why it failed. */
  private async post(url: string, body: string, headers: Record<string, string>): Promise<string | null> {
    const timeoutMs = this.deps.timeoutSeconds * 1000;
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      const response = await safeRequest(url, this.deps.guard, {
        method: 'POST',
        headers,
        body,
        timeoutMs,
        allowedProtocols: ['https:'],
        followRedirects: false,
        signal: deadline,
      });
      response.body.resume();
      return response.status >= 200 && response.status < 300 ? null : `HTTP ${response.status}`;
    } catch (error) {
      if (deadline.aborted || isRequestTimeout(error)) return `No answer within ${Math.round(timeoutMs / 1000)} s.`;
      return isApiError(error) ? error.message : (error as Error).message;
    }
  }
}
