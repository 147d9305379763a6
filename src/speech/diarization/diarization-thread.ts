import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { DiarizationOptions, SpeakerTurn } from './diarize.js';
import type { AudioTypes } from './segment-type.js';

/** What the worker is started with (its workerData); `pcm` is transferred, not copied. */
export interface DiarizationTask {
  /** Its whole buffer travels; the samples are its first `samples`. */
  readonly pcm: Float32Array;
  readonly samples: number;
  readonly options: DiarizationOptions;
  /** The speaker projection (models/diarization/*.json). */
  readonly projectionPath: string;
  /** The segment-type model (models/segment-types/*.json); null: no segment types. */
  readonly typeModelPath: string | null;
  /** Nice value the thread takes (SCHED_BATCH), as the inference workers do; null leaves it. */
  readonly nice: number | null;
}

/** What the diarization thread found: speaker turns and, unless that failed (`typesWarning` says why) or was not asked, segment types. */
export interface DiarizedAudio {
  readonly turns: SpeakerTurn[];
  readonly types: AudioTypes | null;
  readonly typesWarning: string | null;
}

export type DiarizationWorkerReply = ({ readonly ok: true } & DiarizedAudio) | { readonly ok: false; readonly message: string };

/** Diarization did not finish: it failed, or ran past its time limit (`timedOut`). */
export class DiarizationError extends Error {
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'DiarizationError';
  }
}

export interface DiarizationRun {
  readonly projectionPath: string;
  /** The segment-type model; absent or null: turns only (`types` null). */
  readonly typeModelPath?: string | null;
  /** The thread is ended and the call rejects with a timed-out DiarizationError after this long. */
  readonly timeoutMs: number;
  readonly nice?: number | null;
  /** Ends the thread; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

/** Starts the worker: compiled JavaScript in production, the TypeScript source under tsx/vitest. */
function startWorker(task: DiarizationTask): Worker {
  const here = import.meta.url;
  const options = { workerData: task, transferList: [task.pcm.buffer as ArrayBuffer], name: 'diarization' };
  if (here.endsWith('.ts')) {
    const tsx = pathToFileURL(createRequire(here).resolve('tsx/esm/api')).href;
    const entry = new URL('./diarization-worker.ts', here).href;
    const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
    return new Worker(code, { ...options, eval: true });
  }
  return new Worker(new URL('./diarization-worker.js', here), options);
}

/**
 * Runs `diarize` (and, with a type model, the segment typing: music regions, which diarization
 * then leaves out, and each speaker's voice) on 16 kHz mono PCM in a worker thread of its own, so the event loop never
 * carries it, under a time limit (the thread is terminated when it is reached). The buffer of
 * `pcm` is transferred to the thread: the caller must not use it afterwards. Rejects with
 * DiarizationError (failed or timed out), or the signal's reason when aborted.
 */
export function diarizeInThread(pcm: Float32Array, options: DiarizationOptions, run: DiarizationRun): Promise<DiarizedAudio> {
  run.signal?.throwIfAborted();
  // The buffer is transferred whole (a view at its start needs no copy; any other view is copied).
  const own = pcm.byteOffset === 0 && pcm.buffer instanceof ArrayBuffer ? new Float32Array(pcm.buffer) : pcm.slice();
  const worker = startWorker({
    pcm: own,
    samples: pcm.length,
    options,
    projectionPath: run.projectionPath,
    typeModelPath: run.typeModelPath ?? null,
    nice: run.nice ?? null,
  });
  return new Promise<DiarizedAudio>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      outcome();
    };
    const timer = setTimeout(() => finish(() => reject(new DiarizationError(`Speaker diarization timed out after ${run.timeoutMs} ms.`, true))), run.timeoutMs);
    const onAbort = (): void => finish(() => reject(run.signal!.reason));
    run.signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (reply: DiarizationWorkerReply) =>
      finish(() =>
        reply.ok
          ? resolve({ turns: reply.turns, types: reply.types, typesWarning: reply.typesWarning })
          : reject(new DiarizationError(`Speaker diarization failed: ${reply.message}`)),
      ),
    );
    worker.once('error', (error) => finish(() => reject(new DiarizationError(`Speaker diarization failed: ${error.message}`))));
    worker.once('exit', (code) => finish(() => reject(new DiarizationError(`Speaker diarization failed: its thread exited (${code}).`))));
  });
}
