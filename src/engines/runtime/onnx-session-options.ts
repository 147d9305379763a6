/**
 * The onnxruntime CPU session options every engine opens its models with: `intraOpThreads` threads
 * for one operator, one graph at a time (sequential, no inter-op pool), every graph optimisation,
 * warnings and errors only.
 *
 * Rule: idle onnxruntime threads sleep; they never spin. By default onnxruntime's pool threads
 * busy-wait for the next operator after each one, and keep spinning for a while after a run ends.
 * The gateway shares its cores between the event loop, the inference and Silero workers and, in
 * the benchmarks, the load generator, and its runs are short (a live step, one turn), so a spin
 * takes a core from work that is waiting for it. Measured on small-am-v2's graph, one 3 s turn a
 * run with two intra-op threads (2-core VM, `bench/onnx-thread-spinning.ts`): 10.4 CPU ms a run
 * spinning against 4.9 sleeping, for 2.58 against 2.95 ms of wall time; a live gateway's process
 * CPU per stream-hour fell by 30% (docs/streaming.md, *Where the CPU goes*). With one intra-op
 * thread there is no pool and the setting changes nothing.
 */
import type ort from 'onnxruntime-node';

/** onnxruntime's session config entries (`extra`, flattened to `session.intra_op.allow_spinning`). */
const NO_SPINNING = { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } } as const;

export interface CpuSessionOptionsInput {
  /** Threads one operator may use (at least 1). */
  readonly intraOpThreads: number;
  /** `false` keeps onnxruntime's default busy-waiting pool threads (benchmarks only). */
  readonly sleepWhenIdle?: boolean;
}

export function cpuSessionOptions({ intraOpThreads, sleepWhenIdle = true }: CpuSessionOptionsInput): ort.InferenceSession.SessionOptions {
  return {
    intraOpNumThreads: Math.max(1, Math.floor(intraOpThreads)),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
    ...(sleepWhenIdle ? { extra: NO_SPINNING } : {}),
  };
}
