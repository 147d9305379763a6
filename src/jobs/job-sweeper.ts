import type { Logger } from 'pino';
import type { BatchAggregator } from './batch-aggregator.js';
import type { JobOutbox } from './job-outbox.js';
import type { JobService } from './job-service.js';

/**
 * The periodic repair every process runs, so that no job depends on the process that last held
 * it: jobs whose lease ended are taken over, queued jobs no queue holds are queued again, batch
 * parents and job events a stopped process left half done are completed. Everything it does is
 * conditional or idempotent, so several processes sweeping at once do each thing once.
 */
export class JobSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

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
    if (this.timer !== null) return;
    this.timer = setInterval(() => void this.sweep(), this.deps.intervalMs);
    this.timer.unref();
  }

  /** One sweep; a sweep still under way is not started twice. */
  sweep(): Promise<void> {
    this.running ??= (async () => {
      const staleBefore = new Date(Date.now() - this.deps.staleMs).toISOString();
      try {
        await this.deps.jobs.sweep(staleBefore);
        await this.deps.aggregator.catchUp(staleBefore);
        await this.deps.outbox.replay(staleBefore);
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'job sweep failed; the next one retries');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
