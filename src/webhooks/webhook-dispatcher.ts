import { createHash, randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Limits } from '../platform/config/config.js';
import { countChildren } from '../jobs/batch-aggregator.js';
import type { JobEvents } from '../jobs/job-events.js';
import type { JobOutbox } from '../jobs/job-outbox.js';
import type { JobRecord, JobStore } from '../platform/db/job-records.js';
import { jobPath } from '../jobs/job-views.js';
import type { OutboundGuard } from '../platform/net/outbound-guard.js';
import { attemptLeaseUntil, MAX_SLEEP_MS, postToEndpoint, type EndpointAttempt } from './endpoint-post.js';
import type { WebhookMetrics } from './webhook-metrics.js';
import type { DeliveryAttempt, DeliveryRecord, WebhookEvent, WebhookRecord, WebhookStore } from '../platform/db/webhook-records.js';

export const newEventId = (): string => `evt_${randomBytes(12).toString('hex')}`;
export const newDeliveryId = (): string => `dlv_${randomBytes(12).toString('hex')}`;
/** An event id that is the same whenever the event is made again from `seed` (a replay after a crash). */
export const fixedEventId = (seed: string): string => `evt_${createHash('sha256').update(seed).digest('hex').slice(0, 24)}`;
/** A job's final event has a fixed id, so that replaying it after a crash records no second delivery. */
export const finishedEventId = (job: Pick<JobRecord, 'id' | 'status'>): string => fixedEventId(`${job.id}:${job.status}`);

/** Deliveries attempted at once by this process. */
const MAX_IN_FLIGHT = 8;
/** job.progress events per job at most this often. */
export const PROGRESS_INTERVAL_MS = 5_000;

export interface DispatcherDeps {
  readonly store: WebhookStore;
  readonly jobs: JobStore;
  readonly events: JobEvents;
  /** Final job events arrive through the outbox (durable); progress through `events`. */
  readonly outbox: JobOutbox;
  readonly guard: OutboundGuard;
  readonly limits: Limits;
  readonly logger: Logger;
  readonly metrics?: WebhookMetrics | null;
}

/**
 * Turns job events into persisted deliveries and sends them: HTTPS POST, signed when the
 * webhook has a secret, WEBHOOK_TIMEOUT_SECONDS per attempt, retries after each
 * WEBHOOK_RETRY_SCHEDULE step, never following redirects, every connection through the
 * outbound guard. The schedule lives in the store (next_attempt_at), so a restart picks up
 * where the last process stopped; a timer wakes up when the next delivery is due.
 */
export class WebhookDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly lastProgress = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private pumping = false;
  private pumpAgain = false;
  private closed = false;
  private readonly progressListener: (job: JobRecord) => void;

  constructor(private readonly deps: DispatcherDeps) {
    this.progressListener = (job) =>
      void this.onJob(job, 'progress').catch((error: unknown) => this.deps.logger.error({ err: error, jobId: job.id }, 'webhook event failed'));
    // Registered at construction, before the outbox replays events left by a crash.
    deps.outbox.register((job) => this.onJob(job, 'finished'));
  }

  /** Attempts per event: the first one and one per schedule step. */
  get maxAttempts(): number {
    return 1 + this.deps.limits.webhookRetryScheduleSeconds.length;
  }

  start(): void {
    this.deps.events.on('progress', this.progressListener);
    this.kick();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.deps.events.off('progress', this.progressListener);
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Single jobs and batch parents of the unified API raise events; batch children show in their parent. */
  private async onJob(job: JobRecord, kind: 'finished' | 'progress'): Promise<void> {
    if (job.api !== 'unified' || (job.kind !== 'single' && job.kind !== 'batch')) return;
    let event: WebhookEvent;
    if (kind === 'finished') {
      this.lastProgress.delete(job.id);
      if (job.status === 'completed') event = 'job.completed';
      else if (job.status === 'failed') event = 'job.failed';
      else return;
    } else {
      const now = Date.now();
      if (now - (this.lastProgress.get(job.id) ?? 0) < PROGRESS_INTERVAL_MS) return;
      this.lastProgress.set(job.id, now);
      if (this.lastProgress.size > 10_000) this.lastProgress.clear();
      event = 'job.progress';
    }
    await this.publish(job.accountId, event, await this.eventData(job, event), kind === 'finished' ? finishedEventId(job) : undefined);
  }

  private async eventData(job: JobRecord, event: WebhookEvent): Promise<Record<string, unknown>> {
    const data: Record<string, unknown> = { id: job.id, object: 'transcription', status: job.status, url: jobPath(job.id) };
    if (event === 'job.failed' && job.error !== null) data['error'] = { type: job.error.type, code: job.error.code, message: job.error.message };
    if (event === 'job.progress' && job.progress !== null) data['progress'] = job.progress;
    if (job.kind === 'batch') {
      const counts = countChildren(await this.deps.jobs.children(job.id));
      data['batch'] = { total_count: counts.total, completed_count: counts.completed, failed_count: counts.failed + counts.cancelled };
    }
    return data;
  }

  /** Records one delivery per subscribed active webhook of the account, then sends them. */
  async publish(accountId: string, event: WebhookEvent, data: Record<string, unknown>, eventId = newEventId()): Promise<DeliveryRecord[]> {
    const webhooks = await this.deps.store.subscribed(accountId, event);
    if (webhooks.length === 0) return [];
    const timestamp = new Date().toISOString();
    const maxAttempts = event === 'job.progress' ? 1 : this.maxAttempts;
    const deliveries = webhooks.map((webhook) =>
      this.newDelivery(webhook, eventId, event, JSON.stringify({ id: eventId, event, webhook_id: webhook.id, timestamp, data }), maxAttempts, null),
    );
    await this.deps.store.insertDeliveries(deliveries);
    this.kick();
    return deliveries;
  }

  newDelivery(webhook: WebhookRecord, eventId: string, event: string, payload: string, maxAttempts: number, redeliveryOf: string | null): DeliveryRecord {
    const now = new Date().toISOString();
    return {
      id: newDeliveryId(),
      webhookId: webhook.id,
      eventId,
      event,
      payload,
      status: 'pending',
      maxAttempts,
      attemptCount: 0,
      attempts: [],
      nextAttemptAt: now,
      leaseUntil: null,
      redeliveryOf,
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
  }

  /** Claims and attempts one delivery now (test deliveries, redeliveries); its retries follow the schedule. */
  async attemptNow(id: string): Promise<DeliveryRecord | null> {
    const claimed = await this.deps.store.claim(id, new Date().toISOString(), this.leaseUntil());
    if (claimed === null) return this.deps.store.getDelivery(id);
    const run = this.attempt(claimed);
    const tracked = run.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(tracked);
    void tracked.finally(() => this.inFlight.delete(tracked));
    return run;
  }

  private leaseUntil(): string {
    return attemptLeaseUntil(this.deps.limits.webhookTimeoutSeconds);
  }

  /** Wakes the scheduler now. */
  kick(): void {
    if (this.closed) return;
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.pumpAgain = false;
        const free = MAX_IN_FLIGHT - this.inFlight.size;
        if (free <= 0 || this.closed) break;
        const due = await this.deps.store.claimDue(new Date().toISOString(), this.leaseUntil(), free);
        for (const delivery of due) {
          const tracked = this.attempt(delivery).then(
            () => undefined,
            (error: unknown) => this.deps.logger.error({ err: error, deliveryId: delivery.id }, 'webhook delivery failed unexpectedly'),
          );
          this.inFlight.add(tracked);
          void tracked.finally(() => {
            this.inFlight.delete(tracked);
            this.kick();
          });
        }
        if (due.length === free) this.pumpAgain = true;
      } while (this.pumpAgain && !this.closed);
    } catch (error) {
      this.deps.logger.error({ err: error }, 'webhook scheduler failed');
    } finally {
      this.pumping = false;
      await this.sleepUntilDue();
    }
  }

  private async sleepUntilDue(): Promise<void> {
    if (this.closed) return;
    let delay = MAX_SLEEP_MS;
    try {
      const next = await this.deps.store.nextDueAt();
      if (next !== null) delay = Math.min(MAX_SLEEP_MS, Math.max(0, Date.parse(next) - Date.now()));
    } catch (error) {
      this.deps.logger.error({ err: error }, 'webhook scheduler could not read the next due time');
    }
    if (this.closed) return;
    if (this.timer !== null) clearTimeout(this.timer);
    // Due now but every slot busy: a finishing attempt kicks the pump, no need to spin.
    if (delay === 0 && this.inFlight.size >= MAX_IN_FLIGHT) delay = MAX_SLEEP_MS;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.kick();
    }, delay);
    this.timer.unref();
  }

  /** One attempt: POST, record the outcome, schedule the retry or finish; counts toward the webhook's failures. */
  private async attempt(delivery: DeliveryRecord): Promise<DeliveryRecord | null> {
    const { store, limits } = this.deps;
    const webhook = await store.get(delivery.webhookId);
    if (webhook === null) return null;
    const number = delivery.attempts.length + 1;
    const outcome = await this.post({
      url: webhook.url,
      body: delivery.payload,
      eventId: delivery.eventId,
      event: delivery.event,
      deliveryId: delivery.id,
      number,
      secret: webhook.secret,
      timeoutMs: limits.webhookTimeoutSeconds * 1000,
    });
    const at = new Date();
    const log: DeliveryAttempt = { number, at: at.toISOString(), ...outcome };
    const attempts = [...delivery.attempts, log];
    const ok = outcome.response_status !== null && outcome.response_status >= 200 && outcome.response_status < 300;
    const retryIn = limits.webhookRetryScheduleSeconds[number - 1];
    const retry = !ok && number < delivery.maxAttempts && retryIn !== undefined;
    this.deps.metrics?.attempt(delivery.event, outcome.response_status, ok ? 'succeeded' : retry ? 'retrying' : 'failed', outcome.duration_ms);
    const finished = await store.finishAttempt(delivery.id, {
      status: ok ? 'succeeded' : retry ? 'pending' : 'failed',
      attempts,
      nextAttemptAt: retry ? new Date(at.getTime() + retryIn * 1000).toISOString() : null,
      completedAt: ok || !retry ? at.toISOString() : null,
    });
    // Test deliveries report on the endpoint without changing the webhook's standing.
    if (delivery.event !== 'webhook.test') {
      if (ok) await store.recordSuccess(webhook.id, at.toISOString());
      else {
        const { disabled } = await store.recordFailure(webhook.id, at.toISOString(), limits.webhookDisableAfterFailures);
        if (disabled)
          this.deps.logger.warn({ webhookId: webhook.id, failures: limits.webhookDisableAfterFailures }, 'webhook disabled after consecutive failures');
      }
    }
    this.deps.logger.info(
      { webhookId: webhook.id, deliveryId: delivery.id, event: delivery.event, attempt: number, status: outcome.response_status, error: outcome.error, retry },
      'webhook delivery attempt',
    );
    return (await store.getDelivery(delivery.id)) ?? finished;
  }

  /** The attempt's log entry: the answer's status and first bytes, or why none came. */
  private async post(attempt: EndpointAttempt): Promise<Omit<DeliveryAttempt, 'number' | 'at'>> {
    const started = Date.now();
    const posted = await postToEndpoint(this.deps.guard, attempt, async (response, deadline) => ({
      status: response.status,
      location: response.headers.location,
      snippet: await readSnippet(response.body, deadline),
    }));
    const duration_ms = Date.now() - started;
    if ('error' in posted) return { response_status: null, error: posted.error, duration_ms, response_body: null };
    const { status, location, snippet } = posted.answer;
    let error: string | null = null;
    if (status >= 300 && status < 400) error = `HTTP ${status}: redirects are not followed (Location: ${String(location ?? '')})`;
    else if (status < 200 || status >= 300) error = `HTTP ${status}`;
    return { response_status: status, error, duration_ms, response_body: snippet };
  }
}

/** What the delivery log keeps of an answer. */
const RESPONSE_SNIPPET_BYTES = 1024;

/** The first bytes of an answer (for the delivery log); the rest is discarded. */
async function readSnippet(body: Readable, signal: AbortSignal): Promise<string | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of body.iterator({ destroyOnReturn: true })) {
      if (signal.aborted) break;
      const buffer = chunk as Buffer;
      chunks.push(buffer);
      total += buffer.length;
      if (total >= RESPONSE_SNIPPET_BYTES) break;
    }
  } catch {
    // The answer was cut short: keep what arrived.
  } finally {
    body.destroy();
  }
  if (total === 0) return null;
  return Buffer.concat(chunks).subarray(0, RESPONSE_SNIPPET_BYTES).toString('utf8');
}
