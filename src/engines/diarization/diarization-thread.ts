import { WorkerHost } from '../runtime/worker-host.js';
import type { DiarizationOptions, SpeakerTurn, SpeechSpan } from './diarize.js';
import type { AudioTypes } from './segment-type.js';

/** What a diarization thread is started with (its workerData): the models it loads once and keeps. */
export interface DiarizationThreadSetup {
  /** The speaker projection (models/diarization/*.json); not read with an embedding model. */
  readonly projectionPath: string;
  /** A WeSpeaker / 3D-Speaker speaker-embedding ONNX the windows are embedded with instead (DIARIZATION_EMBEDDING_MODEL); null: the projection. */
  readonly embeddingModelPath: string | null;
  /** The segment-type model (models/segment-types/*.json); null: no segment types. */
  readonly typeModelPath: string | null;
  /** The overlapped-speech detector of backend_a (models/diarization/overlap-detector-*.json); null: none. */
  readonly overlapModelPath: string | null;
}

/**
 * One file for a diarization thread (a message). `pcm` is shared (a SharedArrayBuffer: nothing
 * copied, the caller may still read it) or its buffer transferred; the samples are its first `samples`.
 */
export interface DiarizationTask {
  readonly type: 'task';
  readonly id: number;
  readonly pcm: Float32Array;
  readonly samples: number;
  readonly options: DiarizationOptions;
  /** The VAD's speech spans follow in a DiarizationSpeech message: the thread types the audio meanwhile and waits for them before the clustering. */
  readonly speechFollows: boolean;
}

/** The speech spans of the task `id` (added to its options.speech; null: none). */
export interface DiarizationSpeech {
  readonly type: 'speech';
  readonly id: number;
  readonly speech: readonly SpeechSpan[] | null;
}

/** What the diarization thread found: speaker turns and, unless that failed (`typesWarning` says why) or was not asked, segment types. */
export interface DiarizedAudio {
  readonly turns: SpeakerTurn[];
  readonly types: AudioTypes | null;
  readonly typesWarning: string | null;
  /** Why overlapped speech was not marked (the detector could not be read); null when it was, or not asked. */
  readonly overlapWarning: string | null;
  /** Windows the speaker-embedding network embedded (0 or absent without one). */
  readonly modelWindows?: number;
}

export type DiarizationWorkerReply = { readonly id: number } & (({ readonly ok: true } & DiarizedAudio) | { readonly ok: false; readonly message: string });

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

export interface DiarizationThreadsOptions {
  readonly projectionPath: string;
  /** A speaker-embedding ONNX both backends embed their windows with; absent or null: the projection. */
  readonly embeddingModelPath?: string | null;
  /** The segment-type model; absent or null: turns only (`types` null). */
  readonly typeModelPath?: string | null;
  /** The overlapped-speech detector; absent or null: none. */
  readonly overlapModelPath?: string | null;
  /** Nice value the threads take (SCHED_BATCH), as the inference workers do; absent or null leaves it. */
  readonly nice?: number | null;
  /** Threads at most (files diarized at once); more files wait in a queue. Default 1. */
  readonly maxThreads?: number;
  /** Files waiting at most; past it a file is refused with a DiarizationError. Default 64. */
  readonly maxQueued?: number;
  /** An idle thread ends after this long (its models go with it). Default 30 s. */
  readonly idleMs?: number;
}

export interface DiarizationRun {
  /** The file's thread is ended and the call rejects with a timed-out DiarizationError after this long running (waiting in the queue not counted). */
  readonly timeoutMs: number;
  /** Takes the file out of the queue, or ends its thread; the call rejects with the signal's reason. */
  readonly signal?: AbortSignal;
  /**
   * The VAD's speech spans still being computed (options.speech once they come; null or a
   * rejection: none): the thread computes the segment-typing frames and the music meanwhile, which
   * do not need them, and waits for them before the clustering.
   */
  readonly speech?: Promise<readonly SpeechSpan[] | null>;
}

interface Pending {
  readonly pcm: Float32Array;
  readonly options: DiarizationOptions;
  readonly run: DiarizationRun;
  readonly resolve: (audio: DiarizedAudio) => void;
  readonly reject: (error: unknown) => void;
  readonly onAbort: () => void;
  settled: boolean;
}

interface Thread {
  readonly host: WorkerHost<DiarizationTask | DiarizationSpeech, DiarizationWorkerReply>;
  current: Pending | null;
  timer: NodeJS.Timeout | null;
  idle: NodeJS.Timeout | null;
}

/**
 * Runs `diarize` (and, with a type model, the segment typing: music regions, which diarization
 * then leaves out, and each speaker's voice) on 16 kHz mono PCM in long-lived worker threads, so
 * the event loop never carries it: a thread loads the models once and serves files one after
 * another (at most `maxThreads` at once, the rest queued), and ends when idle. A file runs under
 * a time limit: its thread is terminated when the limit is reached or the file's signal aborts
 * (the next file gets a fresh thread). Each thread is a WorkerHost (runtime/worker-host.ts),
 * never restarted: a thread that dies fails its file and the next file starts a new one. A `pcm` on a SharedArrayBuffer is shared, not copied;
 * otherwise its buffer is transferred (a view at its start) or the view copied: the caller must
 * not use a transferred buffer afterwards.
 */
export class DiarizationThreads {
  private readonly setup: DiarizationThreadSetup;
  private readonly threads = new Set<Thread>();
  private readonly queue: Pending[] = [];
  private closed = false;

  constructor(private readonly options: DiarizationThreadsOptions) {
    this.setup = {
      projectionPath: options.projectionPath,
      embeddingModelPath: options.embeddingModelPath ?? null,
      typeModelPath: options.typeModelPath ?? null,
      overlapModelPath: options.overlapModelPath ?? null,
    };
  }

  /** Threads alive now (busy or idle). */
  get threadCount(): number {
    return this.threads.size;
  }

  /** Rejects with DiarizationError (failed, timed out, queue full or closed), or the signal's reason when aborted. */
  run(pcm: Float32Array, options: DiarizationOptions, run: DiarizationRun): Promise<DiarizedAudio> {
    run.signal?.throwIfAborted();
    if (this.closed) return Promise.reject(new DiarizationError('Speaker diarization is shutting down.'));
    if (this.queue.length >= (this.options.maxQueued ?? 64))
      return Promise.reject(new DiarizationError('Speaker diarization is busy (too many files waiting).'));
    return new Promise<DiarizedAudio>((resolve, reject) => {
      const pending: Pending = {
        pcm,
        options,
        run,
        resolve,
        reject,
        onAbort: () => this.abort(pending, run.signal!.reason),
        settled: false,
      };
      run.signal?.addEventListener('abort', pending.onAbort, { once: true });
      this.queue.push(pending);
      this.dispatch();
    });
  }

  /** Refuses new files, rejects the waiting ones and ends the threads (a running file rejects). */
  async close(): Promise<void> {
    this.closed = true;
    for (const pending of this.queue.splice(0)) this.settle(pending, () => pending.reject(new DiarizationError('Speaker diarization is shutting down.')));
    await Promise.all(
      [...this.threads].map((thread) => {
        const current = thread.current;
        if (current !== null) this.settle(current, () => current.reject(new DiarizationError('Speaker diarization is shutting down.')));
        return this.end(thread);
      }),
    );
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let thread = [...this.threads].find((t) => t.current === null);
      if (thread === undefined) {
        if (this.threads.size >= (this.options.maxThreads ?? 1)) return;
        thread = this.start();
      }
      this.give(thread, this.queue.shift()!);
    }
  }

  private start(): Thread {
    const host = new WorkerHost<DiarizationTask | DiarizationSpeech, DiarizationWorkerReply>({
      entry: new URL('./diarization-worker.js', import.meta.url),
      label: 'diarization thread',
      name: 'diarization',
      workerData: this.setup,
      nice: this.options.nice ?? null,
      replyId: (reply) => reply.id,
      onExit: (exit) => this.lost(thread, exit.error?.message ?? `its thread exited (${exit.code}).`),
    });
    const thread: Thread = { host, current: null, timer: null, idle: null };
    this.threads.add(thread);
    return thread;
  }

  /** The thread's file was answered: settle it, let the thread rest, hand out the next file. */
  private replied(thread: Thread, pending: Pending, reply: DiarizationWorkerReply): void {
    if (thread.current !== pending) return;
    thread.current = null;
    if (thread.timer !== null) clearTimeout(thread.timer);
    this.settle(pending, () =>
      reply.ok
        ? pending.resolve({
            turns: reply.turns,
            types: reply.types,
            typesWarning: reply.typesWarning,
            overlapWarning: reply.overlapWarning,
            modelWindows: reply.modelWindows ?? 0,
          })
        : pending.reject(new DiarizationError(`Speaker diarization failed: ${reply.message}`)),
    );
    this.rest(thread);
    this.dispatch();
  }

  /** The thread died (it was not ended here): its file fails. */
  private lost(thread: Thread, message: string): void {
    if (!this.threads.delete(thread)) return;
    if (thread.timer !== null) clearTimeout(thread.timer);
    if (thread.idle !== null) clearTimeout(thread.idle);
    const pending = thread.current;
    thread.current = null;
    if (pending !== null) this.settle(pending, () => pending.reject(new DiarizationError(`Speaker diarization failed: ${message}`)));
    this.dispatch();
  }

  private give(thread: Thread, pending: Pending): void {
    if (thread.idle !== null) clearTimeout(thread.idle);
    thread.idle = null;
    thread.current = pending;
    thread.host.ref();
    thread.timer = setTimeout(() => {
      this.settle(pending, () => pending.reject(new DiarizationError(`Speaker diarization timed out after ${pending.run.timeoutMs} ms.`, true)));
      void this.end(thread);
    }, pending.run.timeoutMs);
    const { pcm } = pending;
    const shared = pcm.buffer instanceof SharedArrayBuffer;
    // A view at the start of an ArrayBuffer travels whole, transferred; any other view is copied.
    const own = shared ? pcm : pcm.byteOffset === 0 && pcm.buffer instanceof ArrayBuffer ? new Float32Array(pcm.buffer) : pcm.slice();
    const speech = pending.run.speech;
    let taskId = 0;
    const task = (id: number): DiarizationTask => {
      taskId = id;
      return { type: 'task', id, pcm: own, samples: pcm.length, options: pending.options, speechFollows: speech !== undefined };
    };
    thread.host.request(task, shared ? [] : [own.buffer as ArrayBuffer]).then(
      (reply) => this.replied(thread, pending, reply),
      () => {
        // The thread died (lost() fails the file) or was ended here (the file is settled already).
      },
    );
    speech
      ?.catch(() => null)
      .then((spans) => {
        if (thread.current === pending) thread.host.post({ type: 'speech', id: taskId, speech: spans });
      });
  }

  /** An idle thread does not hold the process open and ends after idleMs. */
  private rest(thread: Thread): void {
    thread.host.unref();
    thread.idle = setTimeout(() => void this.end(thread), this.options.idleMs ?? 30_000);
    thread.idle.unref();
  }

  private abort(pending: Pending, reason: unknown): void {
    const queued = this.queue.indexOf(pending);
    if (queued >= 0) this.queue.splice(queued, 1);
    this.settle(pending, () => pending.reject(reason));
    const thread = [...this.threads].find((t) => t.current === pending);
    if (thread !== undefined) void this.end(thread);
  }

  /** Ends a thread (its file, if any, has been settled by the caller). */
  private async end(thread: Thread): Promise<void> {
    if (!this.threads.delete(thread)) return;
    if (thread.timer !== null) clearTimeout(thread.timer);
    if (thread.idle !== null) clearTimeout(thread.idle);
    thread.current = null;
    await thread.host.close();
    this.dispatch();
  }

  private settle(pending: Pending, outcome: () => void): void {
    if (pending.settled) return;
    pending.settled = true;
    pending.run.signal?.removeEventListener('abort', pending.onAbort);
    outcome();
  }
}

/**
 * One file in a thread of its own, ended afterwards (tests, benches; the service keeps a
 * DiarizationThreads). Rejects as DiarizationThreads.run does.
 */
export async function diarizeInThread(
  pcm: Float32Array,
  options: DiarizationOptions,
  run: DiarizationRun & Pick<DiarizationThreadsOptions, 'projectionPath' | 'embeddingModelPath' | 'typeModelPath' | 'overlapModelPath' | 'nice'>,
): Promise<DiarizedAudio> {
  run.signal?.throwIfAborted();
  const threads = new DiarizationThreads({
    projectionPath: run.projectionPath,
    embeddingModelPath: run.embeddingModelPath ?? null,
    typeModelPath: run.typeModelPath ?? null,
    overlapModelPath: run.overlapModelPath ?? null,
    nice: run.nice ?? null,
  });
  try {
    return await threads.run(pcm, options, run);
  } finally {
    void threads.close();
  }
}
