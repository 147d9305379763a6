import type { Logger } from 'pino';
import type { JobEvents } from './job-events.js';
import type { JobRecord, JobStore } from '../platform/db/job-records.js';

/** Records a final job's event durably (e.g. webhook deliveries). Must be idempotent: it may run again after a crash. */
export type FinishedHandler = (job: JobRecord) => Promise<void>;

/**
 * The transactional outbox of job events. A job becomes final and `events_pending` in one
 * write; the handlers record what they must, then the flag is cleared. A crash in between
 * leaves the flag set, and `replay()` at the next start hands the job to the handlers again.
 */
export class JobOutbox {
  private readonly handlers: FinishedHandler[] = [];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly jobs: JobStore,
    events: JobEvents,
    private readonly logger: Logger,
  ) {
    events.on('finished', (job) => {
      if (!job.eventsPending) return;
      const delivery = this.deliver(job);
      this.inFlight.add(delivery);
      void delivery.finally(() => this.inFlight.delete(delivery));
    });
  }

  register(handler: FinishedHandler): void {
    this.handlers.push(handler);
  }

  async deliver(job: JobRecord): Promise<void> {
    for (const handler of this.handlers) {
      try {
        await handler(job);
      } catch (error) {
        this.logger.error({ err: error, jobId: job.id }, 'job event not recorded; it is retried at the next start');
        return;
      }
    }
    await this.jobs.update(job.id, { eventsPending: false }).catch(() => undefined);
  }

  /**
   * Hands every final job whose event was not fully recorded (before a crash) to the handlers
   * again. With `updatedBefore`, only jobs flagged before then: the periodic sweep leaves events
   * under way (here or in another process) alone, and catches those a stopped process left.
   */
  async replay(updatedBefore?: string): Promise<number> {
    const pending = (await this.jobs.findEventsPending()).filter((job) => updatedBefore === undefined || job.updatedAt < updatedBefore);
    for (const job of pending) await this.deliver(job);
    if (pending.length > 0) this.logger.warn({ jobs: pending.length }, 'replayed job events interrupted by a restart');
    return pending.length;
  }

  /** Waits for deliveries under way (shutdown). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }
}
