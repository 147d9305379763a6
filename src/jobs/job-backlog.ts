/** A job running now, as the wait estimate sees it. */
export interface RunningWork {
  /** Seconds since it started. */
  readonly elapsedSeconds: number;
  /** Its probed audio seconds; null when not known (not probed yet, or the container states none). */
  readonly audioSeconds: number | null;
}

/**
 * How long a job submitted now would wait for a worker. Two means of recent jobs, exponentially
 * weighted (a change of load or model shows within a few jobs): processing seconds per job, and
 * processing seconds per audio second. A running job is expected to take its audio times the
 * second mean (else the first), so what it has left counts: four jobs of hours of audio that just
 * started hold their workers for a long time, whatever the mean of earlier short jobs. Before any
 * job finished the means are unknown and the estimate is 0 (admit). Pure; JobService feeds it and asks it.
 */
export class JobBacklog {
  private mean: number | null = null;
  private perAudioSecond: number | null = null;

  constructor(private readonly weight = 0.2) {}

  /** A job's processing seconds (start to final status) on this process, and its audio seconds when known. */
  record(seconds: number, audioSeconds: number | null = null): void {
    if (!Number.isFinite(seconds) || seconds < 0) return;
    this.mean = this.mean === null ? seconds : this.mean + this.weight * (seconds - this.mean);
    if (audioSeconds === null || !Number.isFinite(audioSeconds) || audioSeconds <= 0) return;
    const rate = seconds / audioSeconds;
    this.perAudioSecond = this.perAudioSecond === null ? rate : this.perAudioSecond + this.weight * (rate - this.perAudioSecond);
  }

  get meanSeconds(): number | null {
    return this.mean;
  }

  /** Seconds a running job is expected to take still (0 once it ran past its expectation). */
  remainingSeconds(job: RunningWork): number {
    const expected = job.audioSeconds !== null && this.perAudioSecond !== null ? job.audioSeconds * this.perAudioSecond : this.mean;
    return expected === null ? 0 : Math.max(0, expected - job.elapsedSeconds);
  }

  /**
   * Estimated seconds before a new job starts on one of `workers`: each worker is free once its
   * running job has what it has left, and each of the `waiting` jobs ahead takes the first free
   * worker for the mean job time; the new job takes the next one.
   */
  estimateWait(waiting: number, running: readonly RunningWork[], workers: number): number {
    const idle = Math.max(0, Math.max(1, workers) - running.length);
    const queued = Math.max(0, Math.floor(waiting));
    if (queued < idle) return 0;
    const free = [...running.map((job) => this.remainingSeconds(job)), ...new Array<number>(idle).fill(0)].sort((x, y) => x - y);
    const first = free[0] ?? 0;
    const mean = this.mean ?? 0;
    if (mean <= 0) return first;
    // The (queued + 1)-th smallest start time among free + k × mean for every worker: the least t
    // by which that many jobs have started, found by bisection (the first worker alone reaches it by `high`).
    const need = queued + 1;
    const started = (t: number): number => free.reduce((n, f) => n + (f <= t ? Math.floor((t - f) / mean) + 1 : 0), 0);
    let low = first;
    let high = first + need * mean;
    for (let i = 0; i < 60 && high - low > 1e-6; i++) {
      const mid = (low + high) / 2;
      if (started(mid) >= need) high = mid;
      else low = mid;
    }
    // The start time itself: the latest worker's start at or before `high`.
    return free.reduce((latest, f) => (f <= high ? Math.max(latest, f + Math.floor((high - f) / mean + 1e-9) * mean) : latest), first);
  }
}
