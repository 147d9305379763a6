import type { Logger } from 'pino';
import type { JobStore } from '../platform/db/job-records.js';

export type StopReason = 'cancelled' | 'deleted' | 'shutdown' | 'lost';

/**
 * The jobs a runner is executing in this process, each with its AbortController, and the lease
 * renewal that keeps their claims alive: while at least one runs, leases are extended every third
 * of the lease; a job the store no longer says is ours is stopped with reason `lost`.
 * Lifetime: `add` when a claim succeeds, `remove` in the run's `finally`; the timer exists only
 * while something runs (unref'd, so it never keeps the process alive).
 */
export class LeasedRuns {
  private readonly running = new Map<string, AbortController>();
  private renewTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      readonly jobs: Pick<JobStore, 'renewLeases'>;
      readonly logger: Logger;
      readonly owner: string;
      readonly leaseMs: number;
      /** Names the runner in the renewal warning. */
      readonly label: string;
    },
  ) {}

  get size(): number {
    return this.running.size;
  }

  add(jobId: string, controller: AbortController): void {
    this.running.set(jobId, controller);
    if (this.renewTimer !== null) return;
    this.renewTimer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.deps.leaseMs / 3)));
    this.renewTimer.unref();
  }

  remove(jobId: string): void {
    this.running.delete(jobId);
    if (this.running.size > 0 || this.renewTimer === null) return;
    clearInterval(this.renewTimer);
    this.renewTimer = null;
  }

  /** Stops a running job; the caller has already recorded why (cancelled, deleted) or will (shutdown). */
  stop(jobId: string, reason: StopReason): boolean {
    const controller = this.running.get(jobId);
    if (controller === undefined) return false;
    controller.abort(reason);
    return true;
  }

  stopAll(reason: StopReason): string[] {
    const ids = [...this.running.keys()];
    for (const id of ids) this.stop(id, reason);
    return ids;
  }

  /** Extends the leases of the jobs running here; a job found no longer ours is stopped. */
  private async renew(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    let held: string[];
    try {
      held = await this.deps.jobs.renewLeases(this.deps.owner, ids, new Date(Date.now() + this.deps.leaseMs).toISOString());
    } catch (error) {
      // The lease runs on; if the store stays unreachable, another process takes the job over later.
      this.deps.logger.warn({ err: error }, `could not renew ${this.deps.label} leases`);
      return;
    }
    const kept = new Set(held);
    for (const id of ids) if (!kept.has(id)) this.stop(id, 'lost');
  }
}
