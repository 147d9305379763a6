import type { Logger } from 'pino';
import type { BatchAggregator } from './batch-aggregator.js';
import type { JobOutbox } from './job-outbox.js';
import type { JobService } from './job-service.js';
import { PeriodicTask } from './periodic-task.js';

/**
 * The periodic repair every process runs, so that no job depends on the process that last held
 * it: jobs whose lease ended are taken over, queued jobs no queue holds are queued again, batch
 * parents and job events a stopped process left half done are completed. Everything it does is
 * conditional or idempotent, so several processes sweeping at once do each thing once.
 */
export class JobSweeper {
  private readonly sweeps = new PeriodicTask(() => this.sweepOnce());

  constructor(
    private readonly deps: {
      readonly jobs: JobService;
      readonly aggregator: BatchAggregator;
      readonly outbox: JobOutbox;
      /** How often to sweep. */
      readonly intervalMs: number;
      /** Work untouched this long is presumed abandoned (the job lease). */
      readonly staleMs: number;
      readonly logger: Logger;
    },
  ) {}

  start(): void {
    this.sweeps.start(this.deps.intervalMs);
  }

  /** One sweep; a sweep still under way is not started twice. */
  sweep(): Promise<void> {
    return this.sweeps.run();
  }

  close(): Promise<void> {
    return this.sweeps.close();
  }

  private async sweepOnce(): Promise<void> {
    const staleBefore = new Date(Date.now() - this.deps.staleMs).toISOString();
    try {
      await this.deps.jobs.sweep(staleBefore);
      await this.deps.aggregator.catchUp(staleBefore);
      await this.deps.outbox.replay(staleBefore);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'job sweep failed; the next one retries');
    }
  }
}
