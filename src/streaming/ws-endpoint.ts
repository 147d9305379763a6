// GET /v1/ws/transcribe on uWebSockets.js: the upgrade (admitted by ws-admission.ts), one
// StreamSession per socket, close codes from the error registry, a shared ticker for
// timers, and shutdown.
//
// Upgrade rules: headers and the query are read, and the upgrade completed, synchronously inside
// the upgrade callback; admission (ws-admission.ts: key, query, quota, connection slot) runs
// after it, and the session opens (or is refused) when admission settles. Never upgrade from an
// async continuation: uWS v20.30's HttpResponse.cork, the only way to cork one, misreads the
// upgraded socket as an HTTP response afterwards and closes it without a close frame whenever
// a bit at that offset happens to be set (uNetworking/uWebSockets#1929; 36 of 60 sessions of a
// request with `Connection: close`: the client saw `ready`, then 1006). Messages
// that arrive before admission settles wait in `admitting.early` (at most WS_MAX_BUFFER_BYTES) and
// reach the session in order once it opens. A refused upgrade gets the spec's close code (4001,
// 4003, 4029, 1008) after one `error` message; no session, job or audio buffer exists for it.
//
// Resuming (docs/streaming.md "Resuming a session"): a session whose connection drops without
// a close frame (1006) is parked, not finished: it stays live (decoding what it has, holding its
// connection slot and its share of capacity) in `SessionResumption` (ws-resume.ts) for
// WS_RESUME_WINDOW_SECONDS. A connection with `resume_token` of the same key attaches to it
// (taking it over from an older socket that is still open), gets `resumed` and what it missed;
// when the window ends the session is finished as if the client had left.
//
// Held audio (held-audio.ts): sessions report what their audio takes in memory; past
// WS_MAX_PROCESS_BUFFER_BYTES the session holding the most fails (1009), and near it new
// sessions are refused (1013), like the capacity refusal.
import { performance } from 'node:perf_hooks';
import type { Registry } from 'prom-client';
import type { Principal } from '../platform/auth/principal.js';
import { ApiError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY } from '../platform/errors/error-registry.js';
import { websocketClose } from '../platform/errors/error-rendering.js';
import type { Uws } from '../platform/http/uws.js';
import type { FileStorage } from '../platform/files/file-storage.js';
import { newJobId } from '../jobs/new-job.js';
import { recordingObject } from '../jobs/job-runner.js';
import type { Asr, PoolStats } from '../engines/asr/asr.js';
import { type CpuBudget, openCpuBudget } from '../platform/metrics/cpu-budget.js';
import { isRejection, languageLabel } from '../platform/metrics/shared-metrics.js';
import { type AdmissionDeps, admitUpgrade } from './ws-admission.js';
import { DEFAULT_CAPACITY, StreamCapacity, type CapacityEstimate, type OverloadLevel } from './stream-capacity.js';
import { MainThreadParts } from './main-thread-parts.js';
import { closeCodeLabel, WsMetrics } from './ws-metrics.js';
import { SessionOutbox } from './session-outbox.js';
import { addFrontEndCounters, type FrontEndCounters, zeroFrontEndCounters } from './session-types.js';
import { SessionResumption } from './ws-resume.js';
import type { Accepted, Admitting, LiveSession, SocketData } from './ws-socket-data.js';
import { RECORDING_CONTENT_TYPE, SessionRecording } from './session-recording.js';
import { WsSender } from './ws-sender.js';
import type { OpenedRecord, SessionRecords } from './ws-session-record.js';
import { errorMessage } from './session-errors.js';
import { StreamSession, type SessionOutcome } from './ws-session.js';
import { logRefusal, SessionLog, sessionLogger } from './ws-session-log.js';
import { wsReadCeiling } from './ws-limits.js';
import { HELD_AUDIO_RETRY_AFTER_SECONDS, HeldAudio } from './held-audio.js';

/** The close reason uWebSockets.js gives when it drops a connection for a text frame that is not UTF-8. */
const UWS_INVALID_UTF8_REASON = 'Received invalid UTF-8';
const INVALID_UTF8_MESSAGE = 'A text message is not valid UTF-8; commands are UTF-8 text, audio goes in binary messages.';

export const WS_PATH = '/v1/ws/transcribe';
const TICK_MS = 50;
/** How often the host's CPU is read (OVERLOAD_HOST_CPU_FULL_AT). */
const HOST_CPU_SAMPLE_MS = 500;

/** Cumulative CPU, in core seconds: what the capacity's host readings are differences of. */
interface CpuMark {
  readonly at: number;
  /** The CPU budget's busy time: its cgroup's usage, or every process on the machine (cpu-budget.ts). */
  readonly host: number;
  /** This process, all threads (process.cpuUsage). */
  readonly process: number;
  /** The inference workers' busy time (the pool's counters: requests and step batches). */
  readonly workers: number;
}

function cpuMark(at: number, budget: CpuBudget, pool: PoolStats): CpuMark {
  const usage = process.cpuUsage();
  const workerMs = pool.totalPrepareMs + pool.totalRunMs + pool.totalDecodeMs + pool.streams.workerMs;
  return { at, host: budget.busySeconds(), process: (usage.user + usage.system) / 1e6, workers: workerMs / 1000 };
}
/** Above this many unsent bytes on the socket, droppable messages are skipped. */
const HIGH_WATER_BYTES = 64 * 1024;

export interface WsEndpointDeps extends AdmissionDeps {
  /** Model rules, piece recognition, language detection. */
  readonly asr: Pick<Asr, 'resolveModel' | 'recognizePiece' | 'transcribePiece' | 'detectLanguage' | 'setInteractiveBatchWait' | 'poolStats'> &
    Partial<Pick<Asr, 'openPartialStream'>>;
  readonly records: SessionRecords;
  /** Where `record=true` sessions store their message timeline. */
  readonly storage: FileStorage;
  readonly metrics: Registry | null;
  /** Inference workers of the shared pool (the capacity estimate scales with them). */
  readonly workers: number;
}

export class WsEndpoint {
  private readonly live = new Set<StreamSession>();
  private readonly completions = new Set<Promise<void>>();
  private readonly senders = new Set<WsSender<SocketData>>();
  /** Upgraded sockets whose admission has not settled (closed with 1001 at shutdown). */
  private readonly admitting = new Set<Uws.WebSocket<SocketData>>();
  private readonly resumption: SessionResumption;
  private readonly ticker: NodeJS.Timeout;
  /** The last CPU reading (OVERLOAD_HOST_CPU_FULL_AT > 0). */
  private hostCpuMark: CpuMark | null = null;
  /** What the host CPU guard measures against: the cgroup's quota, else the machine. */
  private readonly cpuBudget: CpuBudget;
  private readonly metrics: WsMetrics | null;
  /** The event loop's time on live sessions by part (gateway_ws_main_thread_seconds_total). */
  readonly mainThread = new MainThreadParts();
  private closing = false;
  /** Live capacity from measured inference cost; its level drives partials, batching and admission. */
  readonly capacity: StreamCapacity;
  /** The audio the live sessions hold in memory, against the process bound. */
  readonly heldAudio: HeldAudio<StreamSession>;
  private level: OverloadLevel = 'normal';
  /** One due partial in this many is computed (1 every one, 0 none): the estimate's, applied each tick. */
  private partialEvery = 1;
  /** Native front-end counters that ended sessions left, by the format they opened with (metrics). */
  private readonly endedNative = new Map<string, FrontEndCounters>();

  constructor(private readonly deps: WsEndpointDeps) {
    const { overload } = deps.config;
    this.cpuBudget = openCpuBudget();
    if (overload.hostCpuFullAt > 0)
      deps.logger.info({ scope: this.cpuBudget.scope, cores: this.cpuBudget.cores, fullAt: overload.hostCpuFullAt }, 'host CPU guard on');
    this.capacity = new StreamCapacity({
      ...DEFAULT_CAPACITY,
      workers: Math.max(1, deps.workers),
      partialsOffAt: overload.partialsOffAt,
      maxPartialStride: overload.partialsMaxStride,
      largerBatchesAt: overload.largerBatchesAt,
      fullAt: overload.fullAt,
      maxQueueWaitMs: overload.maxInferenceWaitMs,
      maxSessions: overload.wsMaxSessions,
      hostFullAt: overload.hostCpuFullAt,
      hostCores: this.cpuBudget.cores,
    });
    this.heldAudio = new HeldAudio(deps.config.limits.wsMaxProcessBufferBytes);
    this.metrics = deps.metrics
      ? new WsMetrics(
          deps.metrics,
          () => this.live.size,
          () => this.overload(),
          () => this.nativeCounters(),
          () => this.mainThread.seconds(),
        )
      : null;
    this.resumption = new SessionResumption({
      windowSeconds: deps.config.streaming.resumeWindowSeconds,
      logger: deps.logger,
      metrics: this.metrics,
      newSender: (ws, session) => {
        const sender = this.sender(ws, () => session);
        this.senders.add(sender);
        return sender;
      },
      refuse: (ws, error) => this.refuse(ws, error),
      releaseSlot: (accepted) => this.releaseSlot(accepted),
    });
    this.ticker = setInterval(() => this.tick(), TICK_MS);
    this.ticker.unref();
  }

  get activeSessions(): number {
    return this.live.size;
  }

  /** Sessions waiting for their client to resume them (they count in activeSessions too). */
  get parkedSessions(): number {
    return this.resumption.parkedCount;
  }

  /** The capacity estimate now (metrics); `tick` applies its level. */
  overload(): CapacityEstimate {
    const now = performance.now();
    return this.capacity.estimate(now, this.live.size, this.warmSessions(now));
  }

  /** The native front ends' counters by the format sessions opened with: ended sessions' totals plus the live ones' now. */
  private nativeCounters(): ReadonlyMap<string, FrontEndCounters> {
    const counters = new Map<string, FrontEndCounters>();
    for (const [format, ended] of this.endedNative) counters.set(format, addFrontEndCounters(zeroFrontEndCounters(), ended));
    for (const session of this.live) {
      const format = session.openedFormat;
      counters.set(format, addFrontEndCounters(counters.get(format) ?? zeroFrontEndCounters(), session.frontEndCounters()));
    }
    return counters;
  }

  /** Live sessions weighted by how much of their load the capacity sums hold yet (see sessionWeight). */
  private warmSessions(now: number): number {
    let warm = 0;
    for (const session of this.live) warm += this.capacity.sessionWeight(now - session.startedAt);
    return warm;
  }

  mount(app: Uws.TemplatedApp): void {
    const { limits, streaming } = this.deps.config;
    app.ws<SocketData>(WS_PATH, {
      maxPayloadLength: wsReadCeiling(limits),
      maxBackpressure: streaming.maxUnsentBytes,
      closeOnBackpressureLimit: 0,
      idleTimeout: 0,
      maxLifetime: 0,
      sendPingsAutomatically: false,
      upgrade: (res, req, context) => this.upgrade(res, req, context),
      open: (ws) => this.open(ws),
      message: (ws, message, isBinary) => this.message(ws, message, isBinary),
      drain: (ws) => ws.getUserData().sender?.drain(),
      close: (ws, code, message) => this.closed(ws.getUserData(), code, Buffer.from(message).toString('utf8')),
    });
  }

  private message(ws: Uws.WebSocket<SocketData>, message: ArrayBuffer, isBinary: boolean, data: SocketData = ws.getUserData()): void {
    const admitting = data.admitting;
    if (admitting !== undefined) return this.holdEarly(ws, admitting, message, isBinary);
    if (this.metrics) (isBinary ? this.metrics.audioMessages : this.metrics.commandMessages).inc();
    if (data.superseded) return;
    if (data.recording && data.session) {
      // After a resume, resent audio the session already has is not recorded twice.
      const skip = isBinary ? Math.min(data.session.discardingBytes, message.byteLength) : 0;
      if (skip < message.byteLength || !isBinary)
        data.recording.add(skip > 0 ? message.slice(skip) : message, isBinary, performance.now() - data.session.startedAt);
    }
    this.mainThread.begin('session');
    try {
      data.session?.onMessage(message, isBinary);
    } finally {
      this.mainThread.end();
    }
  }

  /** A message before admission settled: copied (uWS reuses its buffer) and kept for the session, within the session's buffer limit. */
  private holdEarly(ws: Uws.WebSocket<SocketData>, admitting: Admitting, message: ArrayBuffer, isBinary: boolean): void {
    if (admitting.closed) return;
    admitting.bytes += message.byteLength;
    const limit = this.deps.config.limits.wsMaxBufferBytes;
    if (admitting.bytes > limit) {
      admitting.closed = true;
      admitting.early.length = 0;
      const error = new ApiError('buffer_limit_exceeded', { message: `More than ${limit} bytes arrived before the session was ready.` });
      return this.refuse(ws, error);
    }
    admitting.early.push({ message: message.slice(0), isBinary });
  }

  private upgrade(res: Uws.HttpResponse, req: Uws.HttpRequest, context: Uws.us_socket_context_t): void {
    if (this.closing) {
      res.writeStatus('503 Service Unavailable').end();
      return;
    }
    const secKey = req.getHeader('sec-websocket-key');
    const protocol = req.getHeader('sec-websocket-protocol');
    const extensions = req.getHeader('sec-websocket-extensions');
    const authorization = req.getHeader('authorization');
    const origin = req.getHeader('origin');
    const forwarded = req.getHeader('x-forwarded-for');
    const query = new URLSearchParams(req.getQuery() ?? '');
    const remoteAddress =
      this.deps.config.trustProxy && forwarded !== '' ? forwarded.split(',')[0]!.trim() : Buffer.from(res.getRemoteAddressAsText()).toString();
    const admitting: Admitting = { early: [], bytes: 0, closed: false, socket: null };
    const data: SocketData = { accepted: null, refused: null, resume: null, session: null, sender: null, admitting };
    // uWS copies `data`'s properties into the socket's user data (the `admitting` object is
    // shared); `open` runs inside and records the socket, which waits for admission.
    res.upgrade(data, secKey, protocol, extensions, context);
    void admitUpgrade(
      this.deps,
      { authorization, token: query.get('token') ?? '', caller: { remoteAddress, origin: origin === '' ? undefined : origin } },
      query,
    )
      .then((admitted) => this.admitted(admitting, admitted))
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'WebSocket session could not open after admission'));
  }

  /**
   * Admission settled: the session opens (or is refused), then gets the messages that came
   * before, in order. A socket that closed meanwhile gives its connection slot back and opens
   * nothing; shutdown marks every socket still in admission closed (`close`), and `upgrade`
   * answers 503 once closing, so no session opens after shutdown began.
   */
  private admitted(admitting: Admitting, admitted: SocketData): void {
    const ws = admitting.socket;
    if (ws !== null) this.admitting.delete(ws);
    if (admitting.closed || ws === null) {
      if (admitted.accepted) this.releaseSlot(admitted.accepted);
      return;
    }
    const data = ws.getUserData();
    Object.assign(data, { admitting: undefined, accepted: admitted.accepted, refused: admitted.refused, resume: admitted.resume });
    ws.cork(() => {
      this.open(ws);
      // a refused socket is ending: what it sent goes nowhere
      if (data.session !== null) for (const early of admitting.early) this.message(ws, early.message, early.isBinary, data);
    });
    admitting.early.length = 0;
  }

  /** One `error` message (with retry_after when the error has one), then the error's close code. */
  private refuse(ws: Uws.WebSocket<SocketData>, error: ApiError): void {
    const { code, reason } = websocketClose(error);
    if (this.metrics && isRejection(ERROR_REGISTRY[error.code].status, error.code)) this.metrics.refused.rejections.inc({ surface: 'ws', reason: error.code });
    ws.cork(() => {
      ws.send(JSON.stringify(errorMessage(error, code)), false);
      ws.end(code, reason);
    });
  }

  private open(ws: Uws.WebSocket<SocketData>): void {
    const data = ws.getUserData();
    if (data.admitting !== undefined) {
      data.admitting.socket = ws;
      this.admitting.add(ws);
      return;
    }
    if (data.resume !== null) return this.resumption.resume(ws, data, data.resume);
    if (data.accepted === null) return this.refuse(ws, data.refused ?? new ApiError('internal_error'));
    // Capacity is checked here, where the count of live sessions is exact (no upgrade in between);
    // the refused socket's connection slot is given back by `closed`.
    const now = performance.now();
    const admission = this.heldAudio.near ? this.heldAudioRefusal() : this.capacity.admit(now, this.live.size, this.warmSessions(now));
    if (!admission.admitted) {
      const retryAfter = admission.retryAfterSeconds;
      const error = new ApiError('server_overloaded', { message: `The server is at capacity: ${admission.reason}. Try again in ${retryAfter} s.`, retryAfter });
      logRefusal(this.deps.logger, error, websocketClose(error).code, data.accepted.principal.key.id);
      return this.refuse(ws, error);
    }
    const accepted = data.accepted;
    const { sessionId, principal, settings, silero, speechGate, query } = accepted;
    const { config, logger, records, asr } = this.deps;
    const jobId = newJobId();
    const recording = settings.record
      ? new SessionRecording({ session_id: sessionId, job_id: jobId, started_at: new Date().toISOString(), query }, config.limits.wsMaxBufferBytes)
      : null;
    const log = new SessionLog(sessionLogger(logger, { sessionId, jobId }, principal, settings));
    const opened = records.open(jobId, sessionId, principal, settings);
    let live: LiveSession | null = null;
    let transcribedSeconds = 0;
    const sender = this.sender(ws, () => live?.session ?? null);
    // The history of turn messages a resumed client may have missed is bounded like a slow reader's unread messages.
    const outbox = new SessionOutbox(sender, this.resumption.enabled ? config.streaming.maxUnsentBytes : 0);
    const session = new StreamSession(sessionId, jobId, settings, outbox, {
      recognizer: asr,
      silero,
      speechGate,
      limits: config.limits,
      streaming: config.streaming,
      logger: log.logger,
      partialEvery: () => this.partialEvery,
      mainThread: this.mainThread,
      heldAudio: (bytes) => this.noteHeldAudio(session, bytes),
      observe: {
        turnLatency: (ms) => this.metrics?.turnLatency.observe(ms / 1000),
        piece: (kind, ms, audioSeconds, inference) => {
          if (inference) this.capacity.record(performance.now(), audioSeconds, inference, kind === 'partial');
          if (this.metrics === null) return;
          this.metrics.pieceSeconds.observe({ kind }, ms / 1000);
          if (kind === 'partial' || audioSeconds <= 0) return;
          transcribedSeconds += audioSeconds;
          this.metrics.audio.realTimeFactor.observe({ surface: 'ws' }, ms / 1000 / audioSeconds);
        },
        pieceWait: (kind, stage, ms) => this.metrics?.pieceWaitSeconds.observe({ kind, stage }, ms / 1000),
        partialSkipped: (audioSeconds) => {
          this.capacity.recordShed(performance.now(), audioSeconds);
          this.metrics?.partialsSkipped.inc();
          this.metrics?.partialsSkippedAudio.inc(audioSeconds);
        },
      },
      onComplete: (outcome) => {
        this.live.delete(session);
        this.heldAudio.delete(session);
        if (this.metrics) {
          const ended = this.endedNative.get(settings.format) ?? zeroFrontEndCounters();
          this.endedNative.set(settings.format, addFrontEndCounters(ended, session.frontEndCounters()));
        }
        if (live) this.resumption.ended(live);
        log.completed(outcome);
        if (this.metrics) {
          const labels = { surface: 'ws', format: settings.format, language: languageLabel(outcome.language) };
          this.metrics.audio.ingested.inc(labels, outcome.audioSeconds);
          this.metrics.audio.transcribed.inc(labels, transcribedSeconds);
          this.metrics.droppedAudio.inc(outcome.stats.dropped_audio_ms / 1000);
        }
        this.record(jobId, principal, opened, recording, session, outcome, live?.resumes ?? 0);
      },
    });
    live = { session, outbox, accepted, log, recording, handle: null, socket: ws, parkedAt: 0, resumes: 0, slotHeld: true };
    const resume = this.resumption.register(live);
    Object.assign(data, { session, sender, live, log, ...(recording ? { recording } : {}) });
    this.live.add(session);
    this.senders.add(sender);
    sender.send(session.readyMessage(resume));
    log.opened(settings);
  }

  /** Refusal of a new session while the live ones hold nearly all the audio the process may. */
  private heldAudioRefusal(): { admitted: false; reason: string; retryAfterSeconds: number } {
    const { totalBytes, maxBytes } = this.heldAudio;
    const reason = `the live sessions hold ${mb(totalBytes)} MB of audio, near this server's limit of ${mb(maxBytes)} MB`;
    return { admitted: false, reason, retryAfterSeconds: HELD_AUDIO_RETRY_AFTER_SECONDS };
  }

  /** A session's held audio changed; past the process bound the sessions holding the most fail (1009) until it holds again. */
  private noteHeldAudio(session: StreamSession, bytes: number): void {
    if (!this.live.has(session)) return;
    this.heldAudio.set(session, bytes);
    while (this.heldAudio.over) {
      // A session whose client left cannot fail: it only decodes what it holds, and frees it.
      const largest = this.heldAudio.largest((held) => held.failable);
      if (largest === null) return;
      const message = `This server holds more buffered audio than its limit of ${mb(this.heldAudio.maxBytes)} MB, and this session holds the most (${mb(this.heldAudio.heldBy(largest))} MB).`;
      largest.fail(new ApiError('buffer_limit_exceeded', { message }));
      // A failed session frees its ring and drops its queued pieces; the piece in flight is bounded.
      this.heldAudio.set(largest, 0);
    }
  }

  /** The socket's sender; a slow reader fails the session it carries. */
  private sender(ws: Uws.WebSocket<SocketData>, session: () => StreamSession | null): WsSender<SocketData> {
    const { maxUnsentBytes } = this.deps.config.streaming;
    const sender: WsSender<SocketData> = new WsSender(
      ws,
      HIGH_WATER_BYTES,
      maxUnsentBytes,
      () => {
        session()?.fail(new ApiError('slow_consumer', { message: `More than ${maxUnsentBytes} bytes of server messages are unread.` }));
        sender.abort(ERROR_REGISTRY.slow_consumer.wsClose!, 'slow_consumer');
      },
      this.mainThread,
    );
    return sender;
  }

  /** Stores a `record=true` session's recording, then completes its job (one job however many connections carried it). */
  private record(
    jobId: string,
    principal: Principal,
    opened: OpenedRecord,
    recording: SessionRecording | null,
    session: StreamSession,
    outcome: SessionOutcome,
    resumes: number,
  ): void {
    const { storage, records, logger } = this.deps;
    // The recording is stored before the job completes: a completed job's recording exists.
    const stored = recording
      ? storage
          .putBuffer(
            recordingObject({ accountId: principal.accountId, id: jobId }),
            recording.finish(performance.now() - session.startedAt),
            RECORDING_CONTENT_TYPE,
          )
          .then(
            () => undefined,
            (error: unknown) => logger.error({ err: error, job: jobId }, 'could not store the session recording'),
          )
      : Promise.resolve();
    const done = stored.then(() => records.finish(jobId, principal.key.id, opened, outcome, session.startedWall, resumes));
    this.completions.add(done);
    void done.finally(() => this.completions.delete(done));
  }

  private closed(data: SocketData, code: number, reason: string): void {
    if (data.admitting !== undefined) {
      // before admission settled: `admitted` gives the slot back
      data.admitting.closed = true;
      data.admitting.early.length = 0;
      if (data.admitting.socket !== null) this.admitting.delete(data.admitting.socket);
      this.metrics?.closes.inc({ code: closeCodeLabel(code) });
      return;
    }
    if (this.metrics) {
      const label = closeCodeLabel(code);
      this.metrics.closes.inc({ code: label });
      if (data.session && !data.superseded) this.metrics.sessionDuration.observe({ code: label }, (performance.now() - data.session.startedAt) / 1000);
    }
    data.sender?.detach();
    if (data.sender) this.senders.delete(data.sender);
    if (data.superseded) return;
    const live = data.live;
    // uWebSockets.js checks text frames itself and drops a connection whose text is not UTF-8
    // (1006, no close frame, before our handler sees the frame): a protocol violation, not a
    // network cut, so the session is failed with invalid_frame_payload, never parked for resume.
    const invalidText = code === 1006 && reason === UWS_INVALID_UTF8_REASON;
    if (live && !this.closing && !invalidText && this.resumption.park(live, code)) return;
    if (live) live.socket = null;
    data.log?.socketClosed(code, reason);
    if (live) this.resumption.releaseLiveSlot(live);
    else if (data.accepted !== null) this.releaseSlot(data.accepted);
    if (invalidText && !this.closing) data.session?.fail(new ApiError('invalid_frame_payload', { message: INVALID_UTF8_MESSAGE }));
    else data.session?.onSocketClosed(this.closing ? 'server_shutdown' : code === 1006 ? 'client_disconnected' : 'client_closed');
  }

  /** Gives the session's connection slot back; with Redis down its lease ends it instead. */
  private releaseSlot(accepted: Accepted): void {
    this.deps.connections.release(accepted.principal.key.id, accepted.sessionId).catch((error: unknown) => {
      this.deps.logger.warn({ err: error, backend: this.deps.connections.backend }, 'WebSocket connection slot not released; its lease will end it');
    });
  }

  private tick(): void {
    this.mainThread.begin('ticks');
    try {
      const now = performance.now();
      this.sampleHostCpu(now);
      this.applyLevel(this.capacity.estimate(now, this.live.size, this.warmSessions(now)));
      for (const session of this.live) session.tick(now);
      this.resumption.expire(now);
    } finally {
      this.mainThread.end();
    }
  }

  /** Reports the CPU since the last reading to the estimate every HOST_CPU_SAMPLE_MS, when it watches the host. */
  private sampleHostCpu(now: number): void {
    if (this.deps.config.overload.hostCpuFullAt <= 0) return;
    const last = this.hostCpuMark;
    if (last !== null && now - last.at < HOST_CPU_SAMPLE_MS) return;
    const mark = cpuMark(now, this.cpuBudget, this.deps.asr.poolStats());
    if (last !== null) {
      this.capacity.recordHostCpu(last.at, now, {
        hostBusy: mark.host - last.host,
        processBusy: mark.process - last.process,
        workerBusy: mark.workers - last.workers,
      });
    }
    this.hostCpuMark = mark;
  }

  /** Degrades in order: partials thinned (read by sessions), then larger batches, then refusals (in `open`). */
  private applyLevel(estimate: CapacityEstimate): void {
    this.partialEvery = estimate.partialEvery;
    if (estimate.level === this.level) return;
    const batching = (level: OverloadLevel): boolean => level === 'larger_batches' || level === 'full';
    if (batching(estimate.level) !== batching(this.level)) {
      this.deps.asr.setInteractiveBatchWait(batching(estimate.level) ? this.deps.config.overload.largerBatchWaitMs : null);
    }
    const { level, utilization, demandUtilization, queueWaitMs, hostUtilization, hostSessionCores, capacitySessions } = estimate;
    this.deps.logger[level === 'normal' ? 'info' : 'warn'](
      {
        from: this.level,
        to: level,
        utilization: round2(utilization),
        demand: round2(demandUtilization),
        queueWaitMs: Math.round(queueWaitMs),
        ...(hostUtilization === null ? {} : { hostCpu: round2(hostUtilization), sessionsCores: round2(hostSessionCores ?? 0) }),
        capacitySessions,
        liveSessions: this.live.size,
      },
      'streaming overload level changed',
    );
    this.level = level;
  }

  /** Shutdown: closes every socket (1001) and lets sessions record their jobs (Silero stops with the VAD engine). */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    for (const sender of [...this.senders]) sender.abort(1001, 'server shutting down');
    for (const ws of [...this.admitting]) {
      const admitting = ws.getUserData().admitting;
      if (admitting) admitting.closed = true;
      ws.cork(() => ws.end(1001, 'server shutting down'));
    }
    this.admitting.clear();
    this.resumption.drain();
    const deadline = Date.now() + graceMs;
    const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));
    // Sessions complete after their sockets' close events (I/O): wait with timers, never a bare
    // resolved promise, which would starve the event loop.
    while ((this.live.size > 0 || this.completions.size > 0) && Date.now() < deadline) {
      await (this.completions.size > 0 ? Promise.race([Promise.allSettled([...this.completions]), pause()]) : pause());
    }
    clearInterval(this.ticker);
  }
}

const round2 = (v: number): number => Math.round(v * 100) / 100;
const mb = (bytes: number): number => Math.round(bytes / 100_000) / 10;
