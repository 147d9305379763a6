/**
 * The TranslationEngine of an ONNX encoder-decoder model folder (translation-manifest.ts). On the
 * main thread it only splits texts into sentences (sentence-splitter.ts), queues them and joins
 * the answers: sentences of concurrent requests that arrive within `maxWaitMs` are sent as one
 * batch (sentence-queue.ts) to the translation worker thread (translation-worker.ts), which
 * tokenises, runs the model and decodes. One batch runs at a time, greedy (text requests) before
 * beam (file jobs); a beam batch holds maxBatch / beam_size sentences (the same decoder rows).
 * Inside a mode, tenants (the callers' accounts) are served round-robin.
 *
 * Admission (queue-admission.ts) weighs the whole request: a greedy request holds room for all
 * of its sentences (more than `maxRequestSentences` is `invalid_value` on `text`); a beam
 * request holds a window of `beamWindow` sentences, refilled as its sentences go to the worker,
 * so a file of any length never has more than its window queued. A request whose hold does not
 * fit the mode's room (`maxQueued`) or its tenant's share (`maxQueuedPerTenant`) is refused with
 * `overloaded` and a `retryAfterSeconds` from the measured drain rate. The hold is released when
 * the request ends (answered, failed or aborted through its signal).
 * A worker that dies fails its batch (`model_error`) and is replaced.
 *
 * Directions the manifest lists under `word_transfer` (word-transfer.ts) never reach the queue or
 * the worker: their texts are answered on the calling thread, one pass over the text with a map
 * lookup a word (microseconds a sentence), in either mode.
 *
 * With `decodingGuards` (TRANSLATION_DECODING_GUARDS=on, the default) the worker decodes under the
 * degeneration guards (guarded-decoding.ts); a sentence it still cannot translate soundly fails
 * its request with `untranslatable` (param `text`), naming the sentence; the other requests of
 * the batch are answered as usual.
 *
 * Why its own worker and not the acoustic InferencePool: the pool's requests are PCM rows with
 * one model run each, while a translation batch is a loop of dependent decoder runs with a cache
 * between them. The worker is started and prioritised the same way (a WorkerHost of
 * runtime/worker-host.ts: background nice value, onnxruntime threads inherited; restarted 500 ms
 * after it dies unless the engine is closing or it died while loading).
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { gunzipSync } from 'node:zlib';
import { EngineError } from '../runtime/engine-error.js';
import { WakeTimer } from '../runtime/wake-timer.js';
import { WorkerHost, WorkerLostError } from '../runtime/worker-host.js';
import { DrainRate, QueueRoom, retryAfterSeconds, type Refusal } from './queue-admission.js';
import { SentenceQueue } from './sentence-queue.js';
import { joinSentences, splitSentences, type Sentence } from './sentence-splitter.js';
import type { TranslateOptions, TranslationEngine, TranslationLanguage, TranslationMode } from './translation-engine.js';
import { readTranslationManifest, TranslationManifestError, type TranslationManifest } from './translation-manifest.js';
import type { TranslationObserver } from './translation-metrics.js';
import type { FromTranslationWorker, ToTranslationWorker, TranslationItem, TranslationWorkerSettings } from './translation-protocol.js';
import { parseWordTransferTable, type TransferOptions, transferWords, type WordTransferTable } from './word-transfer.js';

interface WordTransfer {
  readonly table: WordTransferTable;
  readonly options: TransferOptions;
}

/** The script each language is written in: it decides how transfer maps sentence marks and cases sentences. */
const ETHIOPIC_SCRIPT: ReadonlySet<TranslationLanguage> = new Set(['am', 'ti']);

export interface TranslationEngineOptions {
  /** Sentences per batch. Default 16. */
  readonly maxBatch?: number;
  /** How long a sentence waits for others to fill its batch. Default 5 ms. */
  readonly maxWaitMs?: number;
  /** Sentences of a mode held in the queue at most; a request whose hold does not fit is refused. Default 1024. */
  readonly maxQueued?: number;
  /** Sentences of a mode one tenant holds at most (at most `maxQueued`). Default 256. */
  readonly maxQueuedPerTenant?: number;
  /** Sentences of one greedy request at most (at most `maxQueuedPerTenant`); more is `invalid_value`. Default 256. */
  readonly maxRequestSentences?: number;
  /** Sentences of one beam request queued at once (at most `maxQueuedPerTenant`). Default two beam batches. */
  readonly beamWindow?: number;
  /** onnxruntime intra-op threads of the worker. Default: the cores (at least 1). */
  readonly intraOpThreads?: number;
  /** Worker thread nice value (SCHED_BATCH); null keeps the process's. Default 10. */
  readonly workerNice?: number | null;
  readonly logger?: { warn(details: object, message: string): void } | null;
  /** Metrics hooks (`createTranslationMetrics`). */
  readonly observer?: TranslationObserver;
  /** Decode under the degeneration guards with their fallbacks (TRANSLATION_DECODING_GUARDS). Default true. */
  readonly decodingGuards?: boolean;
  /** Answer the manifest's `word_transfer` directions by word-for-word transfer; false sends them to the network too (benchmarks). Default true. */
  readonly wordTransfer?: boolean;
}

export interface TranslationStats {
  readonly queued: number;
  readonly batches: number;
  /** Sentences per batch -> number of batches. */
  readonly batchSizes: Readonly<Record<number, number>>;
  readonly sentences: number;
  readonly refused: number;
}

interface Request {
  readonly mode: TranslationMode;
  readonly tenant: string;
  readonly items: readonly TranslationItem[];
  readonly outputs: string[];
  /** Sentences held in the queue's room from admission until the request ends. */
  readonly hold: number;
  /** Items put into the queue so far, and how many of them still wait there. */
  fed: number;
  waiting: number;
  remaining: number;
  settled: boolean;
  readonly resolve: (outputs: string[]) => void;
  readonly reject: (error: unknown) => void;
}

interface Entry {
  readonly mode: TranslationMode;
  readonly tenant: string;
  readonly enqueuedAt: number;
  readonly item: TranslationItem;
  readonly request: Request;
  readonly index: number;
}

export class OnnxTranslationEngine implements TranslationEngine {
  readonly name: string;
  readonly languages: readonly TranslationLanguage[];
  readonly manifest: TranslationManifest;
  private readonly queue: SentenceQueue<Entry>;
  private readonly room: QueueRoom;
  private readonly drainRate = new DrainRate();
  private readonly maxRequestSentences: number;
  private readonly beamWindow: number;
  private readonly logger: TranslationEngineOptions['logger'];
  private readonly observer: TranslationObserver;
  private readonly host: WorkerHost<ToTranslationWorker, FromTranslationWorker>;
  private running: { readonly entries: Entry[] } | null = null;
  private readonly wake = new WakeTimer(() => this.dispatch());
  private closing = false;
  private closed: Promise<void> | null = null;
  private drained: (() => void) | null = null;
  private readonly counters = { batches: 0, batchSizes: {} as Record<number, number>, sentences: 0, refused: 0 };
  /** Per direction `src-tgt`: the word-transfer table served instead of the network. */
  private readonly wordTransfers: ReadonlyMap<string, WordTransfer>;

  private constructor(manifest: TranslationManifest, options: TranslationEngineOptions) {
    this.manifest = manifest;
    this.wordTransfers = options.wordTransfer === false ? new Map() : readWordTransfers(manifest);
    this.name = manifest.name;
    this.languages = manifest.languages;
    const maxBatch = Math.max(1, options.maxBatch ?? 16);
    // A beam batch holds beam_size decoder rows per sentence: as many rows as a greedy batch.
    const beamBatch = Math.max(1, Math.ceil(maxBatch / manifest.decoding.beamSize));
    this.queue = new SentenceQueue<Entry>({ maxBatch: { greedy: maxBatch, beam: beamBatch }, maxWaitMs: Math.max(0, options.maxWaitMs ?? 5) });
    const maxQueued = Math.max(1, options.maxQueued ?? 1024);
    const maxQueuedPerTenant = Math.min(maxQueued, Math.max(1, options.maxQueuedPerTenant ?? 256));
    this.room = new QueueRoom({ maxQueued, maxQueuedPerTenant });
    this.maxRequestSentences = Math.min(maxQueuedPerTenant, Math.max(1, options.maxRequestSentences ?? 256));
    this.beamWindow = Math.min(maxQueuedPerTenant, Math.max(1, options.beamWindow ?? 2 * beamBatch));
    this.logger = options.logger ?? null;
    this.observer = options.observer ?? {};
    this.observer.queueDepth?.(() => this.queue.queued);
    const settings: TranslationWorkerSettings = {
      manifest,
      intraOpThreads: Math.max(1, options.intraOpThreads ?? availableParallelism()),
      decodingGuards: options.decodingGuards ?? true,
    };
    this.host = new WorkerHost<ToTranslationWorker, FromTranslationWorker>({
      entry: new URL('./translation-worker.js', import.meta.url),
      label: 'translation worker',
      name: 'translation',
      workerData: settings,
      nice: options.workerNice === undefined ? 10 : options.workerNice,
      starts: (m) => (m.type === 'ready' ? 'ready' : m.type === 'load-failed' ? new Error(`translation model ${this.name} did not load: ${m.message}`) : null),
      replyId: (m) => (m.type === 'result' || m.type === 'failed' ? m.id : null),
      onReady: () => this.dispatch(),
      onError: (error) => this.logger?.warn({ err: error }, 'translation worker error'),
      onExit: (exit) => {
        if (exit.restarting) this.logger?.warn({ code: exit.code }, 'translation worker exited; starting a new one');
      },
      onRestartFailed: (err) => this.logger?.warn({ err }, 'translation worker restart failed'),
      restart: { delayMs: 500, whileStarting: false, allowed: () => !this.closing },
      close: { message: { type: 'close' }, graceMs: 5_000 },
    });
  }

  /** Reads the folder's manifest, starts the worker and waits until the model is loaded. */
  static async open(folder: string, options: TranslationEngineOptions = {}): Promise<OnnxTranslationEngine> {
    const engine = new OnnxTranslationEngine(readTranslationManifest(folder), options);
    await engine.host.started;
    return engine;
  }

  translate(text: string, source: TranslationLanguage, target: TranslationLanguage, options: TranslateOptions = {}): Promise<string> {
    return this.translateMany([text], source, target, options).then((out) => out[0]!);
  }

  async translateMany(texts: readonly string[], source: TranslationLanguage, target: TranslationLanguage, options: TranslateOptions = {}): Promise<string[]> {
    this.checkPair(source, target);
    const transfer = this.wordTransfers.get(`${source}-${target}`);
    if (transfer !== undefined) return this.transferMany(texts, source, target, transfer, options.signal);
    const split: Sentence[][] = texts.map((t) => splitSentences(t));
    const items: TranslationItem[] = split.flat().map((s) => ({ text: s.text, source, target }));
    if (items.length === 0) return texts.map(() => '');
    const outputs = await this.submit(items, options.mode ?? 'greedy', options.tenant ?? '', options.signal);
    let at = 0;
    return split.map((sentences) => {
      const joined = joinSentences(sentences, outputs.slice(at, at + sentences.length));
      at += sentences.length;
      return joined;
    });
  }

  /** Directions answered by word-for-word transfer instead of the network (`src-tgt`). */
  get wordTransferDirections(): string[] {
    return [...this.wordTransfers.keys()];
  }

  stats(): TranslationStats {
    return { queued: this.queue.queued, ...this.counters, batchSizes: { ...this.counters.batchSizes } };
  }

  /** Stops intake, finishes queued and running batches, ends the worker. Idempotent. */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private checkPair(source: TranslationLanguage, target: TranslationLanguage): void {
    for (const [language, param] of [
      [source, 'src_lang'],
      [target, 'tgt_lang'],
    ] as const) {
      if (!this.languages.includes(language)) {
        throw new EngineError('invalid_value', `The translation model ${this.name} does not cover '${language}'.`, { param });
      }
    }
    if (source === target) throw new EngineError('invalid_value', "'tgt_lang' must differ from 'src_lang'.", { param: 'tgt_lang' });
  }

  private async transferMany(
    texts: readonly string[],
    source: TranslationLanguage,
    target: TranslationLanguage,
    transfer: WordTransfer,
    signal: AbortSignal | undefined,
  ): Promise<string[]> {
    if (this.closing) throw new EngineError('unavailable', 'The translation service is shutting down.');
    if (signal?.aborted) throw signal.reason;
    const outputs = texts.map((text) => transferWords(text, transfer.table, transfer.options));
    this.observer.onWordTransfer?.({ direction: `${source}-${target}`, texts: texts.length });
    return outputs;
  }

  private submit(items: readonly TranslationItem[], mode: TranslationMode, tenant: string, signal: AbortSignal | undefined): Promise<string[]> {
    if (this.closing) return Promise.reject(new EngineError('unavailable', 'The translation service is shutting down.'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (mode === 'greedy' && items.length > this.maxRequestSentences) {
      return Promise.reject(
        new EngineError(
          'invalid_value',
          `The text has ${items.length} sentences; one request translates at most ${this.maxRequestSentences}. Send it in several requests.`,
          { param: 'text' },
        ),
      );
    }
    const hold = mode === 'greedy' ? items.length : Math.min(items.length, this.beamWindow);
    const refusal = this.room.tryHold(mode, tenant, hold);
    if (refusal !== null) return Promise.reject(this.refuse(mode, hold, refusal));
    return new Promise<string[]>((resolve, reject) => {
      const request: Request = {
        mode,
        tenant,
        items,
        outputs: new Array<string>(items.length).fill(''),
        hold,
        fed: 0,
        waiting: 0,
        remaining: items.length,
        settled: false,
        resolve,
        reject,
      };
      if (signal) {
        const onAbort = (): void => {
          this.settle(request, signal.reason);
          this.checkDrained();
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const done = (): void => signal.removeEventListener('abort', onAbort);
        const original = { resolve: request.resolve, reject: request.reject };
        Object.assign(request, {
          resolve: (o: string[]) => (done(), original.resolve(o)),
          reject: (e: unknown) => (done(), original.reject(e)),
        });
      }
      this.feed(request, performance.now());
      this.dispatch();
    });
  }

  private refuse(mode: TranslationMode, hold: number, refusal: Refusal): EngineError {
    this.counters.refused++;
    this.observer.onRefused?.({ mode, sentences: hold });
    const retryAfter = retryAfterSeconds(refusal, hold, this.drainRate.rate(mode), this.queue.tenantsIn(mode));
    const message =
      refusal.reason === 'tenant'
        ? `This account already has ${refusal.held} sentences waiting for translation (at most ${refusal.limit} at once). Retry in ${retryAfter} s.`
        : `The translation queue is full (${refusal.held} of ${refusal.limit} sentences taken). Retry in ${retryAfter} s.`;
    return new EngineError('overloaded', message, { retryAfterSeconds: retryAfter });
  }

  /** Tops the request's queued sentences up to its hold (all of a greedy request at once). */
  private feed(request: Request, now: number): void {
    const entries: Entry[] = [];
    while (request.waiting < request.hold && request.fed < request.items.length) {
      const index = request.fed++;
      request.waiting++;
      entries.push({ mode: request.mode, tenant: request.tenant, enqueuedAt: now, item: request.items[index]!, request, index });
    }
    this.queue.add(entries);
  }

  /** Ends a request once: releases its hold and drops its sentences still queued. */
  private settle(request: Request, error: unknown | null): void {
    if (request.settled) return;
    request.settled = true;
    this.room.release(request.mode, request.tenant, request.hold);
    if (request.waiting > 0) {
      this.queue.remove((e) => e.request === request);
      request.waiting = 0;
    }
    if (error === null) request.resolve(request.outputs);
    else request.reject(error);
  }

  private dispatch(): void {
    this.wake.cancel();
    if (!this.host.ready || this.running !== null) return;
    const now = performance.now();
    const decision = this.wake.due(this.queue.next(now, this.closing), now);
    if (decision === null) return;
    const fed = new Set<Request>();
    for (const entry of decision.take) {
      entry.request.waiting--;
      fed.add(entry.request);
    }
    for (const request of fed) if (!request.settled) this.feed(request, now);
    const entries = decision.take.filter((e) => !e.request.settled);
    if (entries.length === 0) return this.dispatch();
    const running = { entries };
    this.running = running;
    this.host
      .request((id) => ({ type: 'translate', id, mode: entries[0]!.mode, items: entries.map((e) => e.item) }))
      .then(
        (message) => {
          if (message.type === 'result' || message.type === 'failed') this.answered(running, message);
        },
        (error: Error) => {
          if (this.running !== running) return;
          this.failRunning(error instanceof WorkerLostError ? `the translation worker exited with code ${error.exitCode}` : error.message);
        },
      );
  }

  private answered(running: { readonly entries: Entry[] }, message: Extract<FromTranslationWorker, { type: 'result' | 'failed' }>): void {
    if (this.running !== running) return;
    this.running = null;
    const mode = running.entries[0]!.mode;
    this.observer.onBatch?.({
      mode,
      sentences: running.entries.length,
      workerMs: message.type === 'result' ? message.workerMs : 0,
      ok: message.type === 'result',
      untranslatable: message.type === 'result' ? message.untranslatable.length : 0,
    });
    if (message.type === 'failed') this.failEntries(running.entries, message.message);
    else {
      const size = running.entries.length;
      this.drainRate.observe(mode, size, message.workerMs);
      this.counters.batches++;
      this.counters.sentences += size;
      this.counters.batchSizes[size] = (this.counters.batchSizes[size] ?? 0) + 1;
      this.observer.onGuard?.({ mode, actions: message.guardActions });
      const untranslatable = new Set(message.untranslatable);
      running.entries.forEach((entry, i) => {
        const request = entry.request;
        if (request.settled) return;
        if (untranslatable.has(i)) return this.settle(request, this.untranslatable(entry));
        request.outputs[entry.index] = message.outputs[i] ?? '';
        if (--request.remaining === 0) this.settle(request, null);
      });
    }
    this.checkDrained();
    this.dispatch();
  }

  /** The error of a request with a sentence that every guarded decoding turned degenerate. */
  private untranslatable(entry: Entry): EngineError {
    const sentence = entry.item.text.length > 80 ? `${entry.item.text.slice(0, 77)}...` : entry.item.text;
    const position = entry.request.items.length > 1 ? `Sentence ${entry.index + 1} of ${entry.request.items.length}` : 'The sentence';
    return new EngineError(
      'untranslatable',
      `${position} (${JSON.stringify(sentence)}) could not be translated from ${entry.item.source} to ${entry.item.target}: every output of the model ${this.name} for it degenerated (a repeated letter, word or phrase, or an output far longer than the sentence), so none is returned. Rephrase or shorten the sentence; a stronger translation model avoids this.`,
      { param: 'text' },
    );
  }

  private failRunning(reason: string): void {
    const running = this.running;
    this.running = null;
    if (running) this.failEntries(running.entries, reason);
    this.checkDrained();
  }

  private failEntries(entries: readonly Entry[], reason: string): void {
    const error = new EngineError('model_failed', `The translation model failed: ${reason}`);
    for (const entry of entries) this.settle(entry.request, error);
  }

  private checkDrained(): void {
    if (this.drained && this.running === null && this.queue.queued === 0) {
      const done = this.drained;
      this.drained = null;
      done();
    }
  }

  private async shutdown(): Promise<void> {
    this.closing = true;
    if (this.queue.queued > 0 || this.running !== null) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        this.dispatch();
        this.checkDrained();
      });
    }
    this.wake.cancel();
    await this.host.close();
  }
}

/** Reads the manifest's word-transfer tables (gzipped when the name ends in .gz); a table that does not parse fails the load, naming the file. */
function readWordTransfers(manifest: TranslationManifest): Map<string, WordTransfer> {
  const transfers = new Map<string, WordTransfer>();
  for (const [direction, spec] of Object.entries(manifest.wordTransfer ?? {})) {
    try {
      const [source, target] = direction.split('-') as [TranslationLanguage, TranslationLanguage];
      const fromEthiopic = ETHIOPIC_SCRIPT.has(source);
      const toEthiopic = ETHIOPIC_SCRIPT.has(target);
      const options: TransferOptions = {
        minProbability: spec.minProbability,
        unknownWords: spec.unknownWords,
        punctuation: fromEthiopic === toEthiopic ? 'keep' : toEthiopic ? 'to-ethiopic' : 'to-latin',
        capitalizeSentences: !toEthiopic,
      };
      const bytes = readFileSync(spec.table);
      const text = (spec.table.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
      transfers.set(direction, { table: parseWordTransferTable(text), options });
    } catch (error) {
      const file = spec.table.slice(manifest.folder.length + 1);
      throw new TranslationManifestError(manifest.folder, `word_transfer.${direction}: ${file}: ${(error as Error).message}`);
    }
  }
  return transfers;
}
