/**
 * A task every process runs on a timer and on demand, never twice at once: a call while a run
 * is under way gets that run. Lifetime: `start` once (the timer is unref'd, so it never keeps
 * the process alive); `close` stops the timer and waits for a run under way.
 */
export class PeriodicTask<T> {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<T> | null = null;

  constructor(private readonly task: () => Promise<T>) {}

  /** Runs `work` (the task by default), or answers the run under way. */
  run(work: () => Promise<T> = this.task): Promise<T> {
    this.running ??= work().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** Runs the task every `intervalMs`, and once now when `runNow`. */
  start(intervalMs: number, runNow = false): void {
    if (this.timer !== null) return;
    if (runNow) void this.run();
    this.timer = setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
