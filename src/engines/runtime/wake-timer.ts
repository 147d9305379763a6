/**
 * The one pending wake-up of a batch dispatcher (the inference pool, the translation engine): when
 * its queue answers that nothing is due before `wakeAt`, `due` arms it and the dispatcher returns;
 * every dispatch first cancels it, so at most one is ever pending.
 */
export class WakeTimer {
  #timer: NodeJS.Timeout | null = null;

  constructor(private readonly fire: () => void) {}

  /** Cancels the pending wake-up, if any. */
  cancel(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
  }

  /**
   * A queue's answer at `now` as a dispatcher acts on it: the batch when one is due; null when the
   * queue is empty, or when nothing is due before `wakeAt` (the wake-up then armed for that time).
   */
  due<Batch extends object>(decision: Batch | { readonly wakeAt: number } | null, now: number): Exclude<Batch, { readonly wakeAt: number }> | null {
    if (decision === null) return null;
    if ('wakeAt' in decision) {
      this.at(decision.wakeAt, now);
      return null;
    }
    return decision as Exclude<Batch, { readonly wakeAt: number }>;
  }

  /** Calls `fire` at `wakeAt` (a performance.now() time; at once when `now` is past it), replacing any pending wake-up. */
  at(wakeAt: number, now: number): void {
    this.cancel();
    this.#timer = setTimeout(this.fire, Math.max(0, wakeAt - now));
  }
}
