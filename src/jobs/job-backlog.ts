/**
 * How long a job submitted now would wait for a worker: the jobs waiting ahead of it share the
 * workers, each taking the mean processing time of recent jobs (exponentially weighted, so a
 * change of load or model shows within a few jobs). Before any job finished here the mean is
 * unknown and the estimate is 0 (admit). Pure; JobService feeds it and asks it.
 */
export class JobBacklog {
  private mean: number | null = null;

  constructor(private readonly weight = 0.2) {}

  /** A job's processing seconds (start to final status) on this process. */
  record(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0) return;
    this.mean = this.mean === null ? seconds : this.mean + this.weight * (seconds - this.mean);
  }

  get meanSeconds(): number | null {
    return this.mean;
  }

  /**
   * Estimated seconds before a new job starts: `waiting` jobs ahead spread over `workers`, plus
   * half a job when every worker is busy (the running ones are half done on average).
   */
  estimateWait(waiting: number, running: number, workers: number): number {
    if (this.mean === null) return 0;
    const w = Math.max(1, workers);
    const busy = running >= w ? this.mean / 2 : 0;
    return (Math.max(0, waiting) / w) * this.mean + busy;
  }
}
