// Lowers the calling thread's scheduling priority, for compute threads that share the CPUs with
// the event loop: SCHED_BATCH (no wake-up preemption of the running thread) and a nice value.
// Threads the caller starts afterwards (onnxruntime's intra-op pool) inherit both.
import { nativeAddon, type ThreadPriorityReport } from './native-addon.js';

export type { ThreadPriorityReport } from './native-addon.js';

/** `nice` 0..19 (clamped); on systems other than Linux nothing changes and `applied` is false. */
export function setThreadBackground(nice: number): ThreadPriorityReport {
  return nativeAddon().threadSetBackground(nice);
}
