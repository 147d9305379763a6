// One streaming session of GET /v1/ws/transcribe: audio in, turns cut by the VAD, pieces
// recognised on the shared pool, messages out. Independent of the socket (see SessionSink).
//
// Audio positions are absolute 16 kHz sample positions since the session started.
// - The native StreamFrontEnd decodes each binary message in place (the one copy out of the
//   uWS message) into its ring buffer; energy VAD + endpointing run inside it. For Silero the
//   appended samples are fed to the shared batched Silero worker, whose endpointer reports
//   the same events asynchronously.
// - `committed` is the position up to which audio was handed to recognition, cleared or
//   dropped as silence; the ring keeps [committed, write). A piece copies its span out of the
//   ring (that Float32Array is the pool's input until recognition settles), then the ring
//   discards it. So memory per session is the ring (<= WS_MAX_BUFFER_BYTES of int16) plus the
//   queued pieces, and both count against the buffer limit (1009 beyond).
// - Pieces run one at a time per session, in order; different sessions' pieces meet in the
//   pool's batches. Partials run only when the session has nothing else to recognise.
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Limits, StreamingSettings } from '../platform/config/config.js';
import { ApiError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY, type ErrorCode } from '../platform/errors/error-registry.js';
import type { Segment } from '../platform/db/job-records.js';
import {
  describeNativeStatus,
  FORMAT_SAMPLE_RATE,
  NativeStatus,
  StreamFrontEnd,
  type EndpointEvent,
  type PieceRecognition,
  type SileroVad,
  type SileroVadStream,
  type Speech,
} from '../speech/speech.js';
import { parseCommand, MAX_COMMAND_BYTES } from './ws-command-parser.js';
import { RateWindow } from './ws-limits.js';
import type { ServerMessage, SessionStatsMessage } from './ws-messages.js';
import type { SessionSettings } from './ws-query.js';
import type { SessionSink } from './ws-sender.js';

const SAMPLES_PER_MS = 16;
const ACK_INTERVAL_MS = 100;
const LAG_MESSAGE_INTERVAL_MS = 1000;
/** Audio kept before `write` while no turn is open, so a late speech_start still finds its onset. */
const KEEP_BEFORE_TURN_MS = { energy: 1_000, silero: 4_000 } as const;
const MIN_PARTIAL_MS = 400;
/** Arrival times kept per session: 1024 pushes (20 s of 20 ms Opus frames, more for larger messages). */
const TIMELINE = 1024;
const MAX_LATENCY_SAMPLES = 10_000;

type PieceKind = 'turn' | 'transcribe' | 'final' | 'partial';

interface Piece {
  readonly kind: PieceKind;
  readonly turnId: number | null;
  readonly start: number;
  readonly end: number;
  readonly audio: Float32Array;
  /** performance.now() when the piece was cut. */
  readonly cutAt: number;
  readonly forcedSplit: boolean;
  /** A turn cut while the format was opus_raw_16k: also sent as a `transcription`. */
  readonly automatic?: boolean;
}

export interface SessionOutcome {
  readonly status: 'completed' | 'failed';
  readonly text: string;
  readonly segments: readonly Segment[];
  readonly language: string;
  readonly model: string | null;
  readonly audioSeconds: number;
  readonly error: { type: string; code: string; message: string } | null;
  readonly stats: SessionStatsMessage;
}

export interface SessionDeps {
  readonly recognizer: Pick<Speech, 'recognizePiece' | 'detectLanguage'>;
  /** The shared Silero VAD (only used with vad_type=silero; created before the session). */
  readonly silero: SileroVad | null;
  readonly limits: Limits;
  readonly streaming: StreamingSettings;
  readonly logger: Logger;
  /** Called once, when the session is over and its last piece is recognised. */
  readonly onComplete: (outcome: SessionOutcome) => void;
  readonly observe?: {
    turnLatency?(ms: number): void;
    /** A recognised piece: queue + recognition ms, its audio seconds, the pool's figures (none for empty pieces). */
    piece?(kind: PieceKind, ms: number, audioSeconds: number, inference: PieceRecognition['inference'] | null): void;
    partialSkipped?(): void;
  };
  /** Overload: false while the gateway computes no partials (finals and turns always run). */
  readonly partialsAllowed?: () => boolean;
}

export class StreamSession {
  readonly startedAt = performance.now();
  readonly startedWall = Date.now();
  private readonly frontEnd: StreamFrontEnd;
  private readonly sileroStream: SileroVadStream | null;
  private readonly rate: RateWindow;
  private readonly events: EndpointEvent[] = [];
  /** Silero feed buffer, grown on demand (never allocated for energy VAD sessions). */
  private scratch = new Float32Array(0);
  private readonly timeline = new Float64Array(TIMELINE * 2);
  private timelineNext = 0;
  private timelineCount = 0;

  private language: string;
  private model: string | null;
  private committed = 0;
  private openTurn: { id: number; start: number } | null = null;
  private turnCounter = 0;
  private readonly queue: Piece[] = [];
  private queuedSamples = 0;
  private inFlight: Piece | null = null;
  private readonly segments: Segment[] = [];
  private readonly texts: string[] = [];
  private lastPartial: { turnId: number; words: string[] } | null = null;
  private lastPartialAt = 0;

  private lastClientMessageAt = performance.now();
  private lastAckAt = -Infinity;
  private ackMessages = 0;
  private ackBytes = 0;
  private totalBytes = 0;
  private lastLagAt = -Infinity;
  private badStreamReported = false;

  private state: 'open' | 'ending' | 'closing' | 'done' = 'open';
  private closeAfterFinal: { code: number; reason: string } = { code: 1000, reason: 'end' };
  private failure: ApiError | null = null;
  /** The last piece (after which the session completes) is queued or running. */
  private finalQueued = false;
  private sileroDroppedSamples = 0;
  /** Position up to which audio went to the Silero stream. */
  private sileroFed = 0;
  private sileroStale = false;
  private readonly latencies: number[] = [];
  private turns = 0;
  private transcriptions = 0;
  private maxLagMs = 0;

  constructor(
    readonly id: string,
    readonly jobId: string,
    private readonly settings: SessionSettings,
    private readonly sink: SessionSink,
    private readonly deps: SessionDeps,
  ) {
    const { limits, streaming } = deps;
    this.language = settings.language;
    this.model = settings.model;
    this.rate = new RateWindow(limits.wsMessagesPerSecond, limits.wsBytesPerSecond);
    const endpointing = { minSilenceMs: streaming.endpointSilenceMs, maxSpeechMs: streaming.maxTurnMs };
    this.frontEnd = new StreamFrontEnd({
      format: settings.format,
      maxBufferBytes: limits.wsMaxBufferBytes,
      initialBufferSeconds: 4,
      energyVad: settings.vadType === 'energy',
      endpointing,
    });
    this.sileroStream =
      settings.vadType === 'silero' && deps.silero !== null
        ? deps.silero.openStream({ endpointing, onEvent: (event) => this.onVadEvent(event) })
        : null;
  }

  /** turn_detection=server_vad, or the opus_raw_16k format (always automatic). */
  private get turnDetection(): boolean {
    return this.settings.serverVad || this.frontEnd.format === 'opus_raw_16k';
  }

  readyMessage(): ServerMessage {
    const { limits, streaming } = this.deps;
    return {
      type: 'ready',
      session_id: this.id,
      job_id: this.jobId,
      format: this.frontEnd.format,
      sample_rate: FORMAT_SAMPLE_RATE[this.frontEnd.format],
      language: this.language,
      model: this.model,
      turn_detection: this.turnDetection ? 'server_vad' : 'none',
      vad_type: this.settings.vadType,
      partial_results: this.settings.partialResults,
      limits: {
        max_session_seconds: limits.wsSessionSeconds,
        max_messages_per_second: limits.wsMessagesPerSecond,
        max_bytes_per_second: limits.wsBytesPerSecond,
        max_message_bytes: limits.wsMaxMessageBytes,
        max_buffer_bytes: limits.wsMaxBufferBytes,
        idle_timeout_seconds: limits.wsIdleTimeoutSeconds,
        endpoint_silence_ms: streaming.endpointSilenceMs,
      },
    };
  }

  // ---- client messages -------------------------------------------------------------

  /**
   * One WebSocket message. `data` is only valid during this call (uWS neuters it on return):
   * binary audio is decoded in place, commands are decoded to a string here.
   */
  onMessage(data: ArrayBuffer, isBinary: boolean): void {
    if (this.state !== 'open') return;
    const now = performance.now();
    this.lastClientMessageAt = now;
    if (data.byteLength > this.deps.limits.wsMaxMessageBytes) {
      const message = `A WebSocket message of ${data.byteLength} bytes exceeds the size limit of ${this.deps.limits.wsMaxMessageBytes} bytes per message.`;
      return this.fail(new ApiError('message_too_large', { message }));
    }
    const breach = this.rate.admit(isBinary ? data.byteLength : 0, now);
    if (breach !== null) return this.fail(new ApiError(breach));
    if (isBinary) this.onAudio(data, now);
    else this.onCommand(data);
  }

  private onAudio(data: ArrayBuffer, now: number): void {
    const status = this.frontEnd.push(data);
    this.totalBytes += data.byteLength;
    this.ackMessages++;
    this.ackBytes += data.byteLength;
    this.noteArrival(now);
    if (status === NativeStatus.BufferFull) return this.fail(new ApiError('buffer_limit_exceeded'));
    if (status !== NativeStatus.Ok) this.reportAudioProblem(status);
    else this.badStreamReported = false;
    this.afterAppend();
    if (this.state !== 'open') return;
    if (now - this.lastAckAt >= ACK_INTERVAL_MS) this.sendAck(now);
  }

  private reportAudioProblem(status: NativeStatus): void {
    const info = describeNativeStatus(status);
    // A broken container fails every later push: say so once, until FORMAT resets it.
    if (info.kind === 'bad_stream') {
      if (this.badStreamReported) return;
      this.badStreamReported = true;
    }
    this.sendError(new ApiError('invalid_audio_data', { message: `${capitalize(info.message)} (format ${this.frontEnd.format}).` }), null);
  }

  private onCommand(data: ArrayBuffer): void {
    if (data.byteLength > MAX_COMMAND_BYTES) {
      this.sendError(new ApiError('invalid_command', { message: `Text messages are commands of at most ${MAX_COMMAND_BYTES} bytes; send audio as binary messages.` }), null);
      return;
    }
    const command = parseCommand(Buffer.from(data).toString('utf8'));
    switch (command.kind) {
      case 'ping':
        this.sink.send({ type: 'pong', server_time: new Date().toISOString() });
        return;
      case 'transcribe':
        this.cutBuffer('transcribe');
        return;
      case 'clear':
        this.clear();
        return;
      case 'end':
        void this.beginEnd(1000, 'end');
        return;
      case 'format': {
        const status = this.frontEnd.setFormat(command.format);
        this.badStreamReported = false;
        this.afterAppend();
        if (status !== NativeStatus.Ok) this.reportAudioProblem(status);
        this.sink.send({ type: 'format_changed', format: command.format, sample_rate: FORMAT_SAMPLE_RATE[command.format] });
        return;
      }
      case 'invalid':
        this.sendError(new ApiError(command.code, { message: command.message, ...(command.code === 'invalid_field_value' ? { param: 'format' } : {}) }), null);
        return;
    }
  }

  /** After the front end appended audio (push, flush, format change): VAD events and trimming. */
  private afterAppend(): void {
    if (this.sileroStream !== null) this.feedSilero();
    if (this.frontEnd.pendingEvents > 0) {
      this.events.length = 0;
      this.frontEnd.takeEvents(this.events);
      if (this.turnDetection) for (const event of this.events) this.onVadEvent(event);
    }
    this.trimSilence();
  }

  /**
   * Feeds the Silero stream from the ring, as far as its bounded queue takes. Audio a fast
   * sender delivers beyond that waits in the ring (which trimSilence leaves alone) and is fed
   * on later ticks: nothing is skipped, and memory stays bounded by the ring.
   */
  private feedSilero(): void {
    const stream = this.sileroStream!;
    const write = this.frontEnd.writePosition;
    if (!this.turnDetection) {
      this.sileroFed = write;
      this.sileroStale = true;
      return;
    }
    const ringStart = this.frontEnd.readPosition;
    if (this.sileroStale || this.sileroFed < ringStart) {
      // Audio the VAD did not see left the ring (manual mode, TRANSCRIBE, CLEAR): restart there.
      this.sileroFed = Math.max(this.sileroFed, ringStart);
      stream.reset(this.sileroFed);
      this.sileroStale = false;
    }
    const room = (this.deps.silero!.maxQueuedWindowsPerStream - stream.pending - 1) * 512;
    const take = Math.min(room, write - this.sileroFed);
    if (take <= 0) return;
    if (this.scratch.length < take) this.scratch = new Float32Array(take);
    const view = this.scratch.subarray(0, take);
    this.frontEnd.peek(this.sileroFed, view);
    if (stream.feed(view) === 'full') this.sileroDroppedSamples += take;
    this.sileroFed += take;
  }

  /** Drops old silence while no turn is open (turn-detection mode only). */
  private trimSilence(): void {
    if (!this.turnDetection || this.openTurn !== null || this.state === 'done') return;
    const keep = KEEP_BEFORE_TURN_MS[this.settings.vadType] * SAMPLES_PER_MS;
    const analysed = this.sileroStream !== null ? this.sileroFed : this.frontEnd.writePosition;
    const until = analysed - keep;
    if (until > this.committed) {
      this.committed = until;
      this.frontEnd.discardUntil(until);
    }
  }

  private onVadEvent(event: EndpointEvent): void {
    if (this.state === 'done' || this.state === 'closing') return;
    if (event.type === 'speech_start') {
      const start = Math.max(event.position, this.committed);
      this.openTurn = { id: ++this.turnCounter, start };
      this.lastPartial = null;
      this.lastPartialAt = performance.now();
      this.sink.send({ type: 'speech_started', turn_id: this.openTurn.id, start_ms: toMs(start) });
      return;
    }
    const turnId = this.openTurn?.id ?? ++this.turnCounter;
    const start = Math.max(event.turnStart, this.committed);
    this.openTurn = null;
    this.lastPartial = null;
    if (event.position > start) this.cut('turn', turnId, start, event.position, event.forcedSplit);
  }

  /** TRANSCRIBE / END: everything not yet handed to recognition. */
  private cutBuffer(kind: 'transcribe' | 'final'): void {
    if (this.finalQueued) return;
    const end = this.frontEnd.writePosition;
    const start = this.committed;
    if (kind === 'transcribe' && this.openTurn !== null) this.openTurn = { id: this.openTurn.id, start: end };
    this.cut(kind, null, start, Math.max(start, end), false);
  }

  private cut(kind: 'turn' | 'transcribe' | 'final', turnId: number | null, start: number, end: number, forcedSplit: boolean): void {
    if (this.finalQueued) return;
    if (kind === 'final') this.finalQueued = true;
    const audio = new Float32Array(end - start);
    if (audio.length > 0) this.frontEnd.peek(start, audio);
    this.committed = Math.max(this.committed, end);
    this.frontEnd.discardUntil(this.committed);
    const automatic = kind === 'turn' && this.frontEnd.format === 'opus_raw_16k';
    this.queue.push({ kind, turnId, start, end, audio, cutAt: performance.now(), forcedSplit, automatic });
    this.queuedSamples += audio.length;
    const held = this.frontEnd.buffered + this.queuedSamples + (this.inFlight?.audio.length ?? 0);
    if (held > this.frontEnd.maxBufferSamples && kind !== 'final') return this.fail(new ApiError('buffer_limit_exceeded'));
    this.pump();
  }

  private clear(): void {
    this.frontEnd.clear();
    const position = this.frontEnd.writePosition;
    this.committed = Math.max(this.committed, position);
    this.openTurn = null;
    this.lastPartial = null;
    this.sileroStream?.reset(position);
    this.sileroFed = position;
  }

  // ---- recognition -----------------------------------------------------------------

  private pump(): void {
    if (this.inFlight !== null || this.queue.length === 0) return;
    const piece = this.queue.shift()!;
    this.queuedSamples -= piece.audio.length;
    this.inFlight = piece;
    void this.run(piece);
  }

  private async run(piece: Piece): Promise<void> {
    let recognition: PieceRecognition | null = null;
    let error: ApiError | null = null;
    try {
      if (piece.audio.length > 0 && (piece.kind !== 'final' || hasSignal(piece.audio))) {
        if (this.model === null) {
          const detected = await this.deps.recognizer.detectLanguage(piece.audio);
          this.language = detected.language;
          this.model = detected.model;
        }
        recognition = await this.deps.recognizer.recognizePiece(piece.audio, { model: this.model, startMs: toMs(piece.start) });
      }
    } catch (caught) {
      error = toApiError(caught);
      this.deps.logger.warn({ err: caught, session: this.id }, 'streaming recognition failed');
    }
    this.inFlight = null;
    this.deps.observe?.piece?.(piece.kind, performance.now() - piece.cutAt, piece.audio.length / 16_000, recognition?.inference ?? null);
    if (error !== null && piece.kind !== 'final' && piece.kind !== 'partial') this.sendError(error, null);
    this.deliver(piece, recognition?.text.trim() ?? '', recognition?.confidence ?? null);
    if (piece.kind === 'final') {
      this.complete();
      return;
    }
    this.pump();
  }

  private deliver(piece: Piece, text: string, confidence: number | null): void {
    const now = performance.now();
    if (piece.kind === 'partial') {
      if (this.openTurn === null || this.openTurn.id !== piece.turnId || this.state !== 'open') return;
      const words = text.length > 0 ? text.split(/\s+/) : [];
      const previous = this.lastPartial?.turnId === piece.turnId ? this.lastPartial.words : [];
      let agree = 0;
      while (agree < words.length && agree < previous.length && words[agree] === previous[agree]) agree++;
      this.lastPartial = { turnId: piece.turnId, words };
      this.sink.send({
        type: 'partial',
        turn_id: piece.turnId,
        start_ms: toMs(piece.start),
        end_ms: toMs(piece.end),
        text,
        stable_text: words.slice(0, agree).join(' '),
        unstable_text: words.slice(agree).join(' '),
      });
      return;
    }
    const segments: Segment[] = [];
    if (text.length > 0) {
      const startMs = toMs(piece.start);
      const endMs = toMs(piece.end);
      segments.push({ id: this.segments.length, start_ms: startMs, end_ms: endMs, duration_ms: endMs - startMs, text, speaker: null, confidence });
      this.segments.push(segments[0]!);
      this.texts.push(text);
    }
    const latency = Math.max(0, Math.round(now - this.arrivalOf(piece.end)));
    const processing = Math.round(now - piece.cutAt);
    if (this.latencies.length < MAX_LATENCY_SAMPLES) this.latencies.push(latency);
    const common = {
      text,
      segments,
      start_ms: toMs(piece.start),
      end_ms: toMs(piece.end),
      language: this.language,
      model: this.model,
      latency_ms: latency,
      processing_ms: processing,
    };
    if (piece.kind === 'turn') {
      this.turns++;
      this.deps.observe?.turnLatency?.(latency);
      if (this.settings.serverVad) this.sink.send({ type: 'turn_detected', turn_id: piece.turnId!, ...common, forced_split: piece.forcedSplit });
      // opus_raw_16k transcribes turns automatically (spec), with or without server_vad.
      if (!piece.automatic) return;
    }
    this.transcriptions++;
    const final = piece.kind === 'final';
    this.sink.send({
      type: 'transcription',
      ...common,
      is_final: final,
      turn_id: piece.turnId,
      ...(final ? { full_text: this.texts.join(' ') } : {}),
    });
  }

  // ---- timers (driven by the endpoint's ticker) ---------------------------------------

  tick(now: number): void {
    if (this.state === 'done') return;
    if (this.sileroStream !== null && this.sileroFed < this.frontEnd.writePosition && this.state !== 'closing') {
      this.feedSilero();
      this.trimSilence();
    }
    if (this.state === 'open') {
      const { limits } = this.deps;
      if (now - this.startedAt >= limits.wsSessionSeconds * 1000) {
        void this.beginEnd(ERROR_REGISTRY.session_duration_exceeded.wsClose!, 'session_duration_exceeded');
        return;
      }
      if (now - this.lastClientMessageAt >= limits.wsIdleTimeoutSeconds * 1000) {
        void this.beginEnd(ERROR_REGISTRY.idle_timeout.wsClose!, 'idle_timeout');
        return;
      }
      if (this.ackMessages > 0 && now - this.lastAckAt >= ACK_INTERVAL_MS) this.sendAck(now);
      this.maybePartial(now);
    }
    this.reportLag(now);
  }

  private maybePartial(now: number): void {
    if (!this.settings.partialResults || this.openTurn === null || this.inFlight !== null || this.queue.length > 0) return;
    if (now - this.lastPartialAt < this.deps.streaming.partialIntervalMs) return;
    if (this.deps.partialsAllowed?.() === false) {
      this.lastPartialAt = now;
      this.deps.observe?.partialSkipped?.();
      return;
    }
    const end = this.frontEnd.writePosition;
    const start = Math.max(this.openTurn.start, end - this.deps.streaming.maxTurnMs * SAMPLES_PER_MS);
    if (end - start < MIN_PARTIAL_MS * SAMPLES_PER_MS) return;
    this.lastPartialAt = now;
    const audio = new Float32Array(end - start);
    this.frontEnd.peek(start, audio);
    this.inFlight = { kind: 'partial', turnId: this.openTurn.id, start, end, audio, cutAt: now, forcedSplit: false };
    void this.run(this.inFlight);
  }

  private pendingSamples(): number {
    const inFlight = this.inFlight !== null && this.inFlight.kind !== 'partial' ? this.inFlight.audio.length : 0;
    return this.queuedSamples + inFlight;
  }

  /** How far behind the server is: age of the oldest unanswered piece, or audio the VAD has not analysed. */
  private reportLag(now: number): void {
    const oldest = this.inFlight !== null && this.inFlight.kind !== 'partial' ? this.inFlight : this.queue[0];
    const oldestMs = oldest ? Math.round(now - oldest.cutAt) : 0;
    const vadBehindMs =
      this.sileroStream !== null && this.state !== 'done'
        ? toMs(this.sileroStream.pending * 512 + Math.max(0, this.frontEnd.writePosition - this.sileroFed))
        : 0;
    const behind = Math.max(oldestMs, vadBehindMs);
    this.maxLagMs = Math.max(this.maxLagMs, behind);
    if (behind < this.deps.streaming.lagWarningMs || now - this.lastLagAt < LAG_MESSAGE_INTERVAL_MS) return;
    this.lastLagAt = now;
    this.sink.send({
      type: 'lag',
      pending_ms: toMs(this.pendingSamples()),
      pending_pieces: this.queue.length + (this.inFlight !== null ? 1 : 0),
      oldest_pending_ms: oldestMs,
      vad_behind_ms: vadBehindMs,
    });
  }

  private sendAck(now: number): void {
    this.lastAckAt = now;
    const messages = this.ackMessages;
    const bytes = this.ackBytes;
    this.ackMessages = 0;
    this.ackBytes = 0;
    this.sink.send({
      type: 'chunk_received',
      messages,
      bytes,
      total_bytes: this.totalBytes,
      stream_ms: toMs(this.frontEnd.writePosition),
      buffered_ms: toMs(Math.max(0, this.frontEnd.writePosition - this.committed)),
      pending_ms: toMs(this.pendingSamples()),
    });
  }

  // ---- ending ------------------------------------------------------------------------

  /** END, session duration, idle timeout: the rest of the buffer as the final transcription, then close. */
  async beginEnd(code: number, reason: string): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'ending';
    this.closeAfterFinal = { code, reason };
    if (this.ackMessages > 0) this.sendAck(performance.now());
    this.frontEnd.flush();
    this.noteArrival(performance.now());
    this.afterAppend();
    if (this.sileroStream !== null && this.turnDetection) {
      try {
        while (this.sileroFed < this.frontEnd.writePosition && !this.done) {
          this.feedSilero();
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        if (!this.done) await this.sileroStream.finish();
      } catch (error) {
        this.deps.logger.warn({ err: error, session: this.id }, 'Silero VAD did not finish');
      }
    }
    if (this.done) return;
    this.openTurn = null;
    this.cutBuffer('final');
  }

  /** A limit breach or bad input that ends the session: error message, close with the registry's code. */
  fail(error: ApiError): void {
    if (this.state === 'done' || this.state === 'closing') return;
    const code = ERROR_REGISTRY[error.code].wsClose ?? 1011;
    this.failure = error;
    this.sendError(error, code);
    this.state = 'closing';
    this.sink.close(code, closeReason(error));
    this.queue.length = 0;
    this.queuedSamples = 0;
    if (this.inFlight === null || this.inFlight.kind === 'partial') this.complete();
    // else: complete() runs when the piece in flight settles (run -> final path below)
    else if (!this.finalQueued) {
      this.finalQueued = true;
      this.queue.push({ kind: 'final', turnId: null, start: this.committed, end: this.committed, audio: new Float32Array(0), cutAt: performance.now(), forcedSplit: false });
    }
  }

  /** The socket closed (client went away, or after our close frame). */
  onSocketClosed(): void {
    if (this.state === 'done' || this.state === 'closing') return;
    if (this.state === 'open') {
      // Client left without END: its untranscribed audio still goes into the job record.
      this.state = 'closing';
      this.frontEnd.flush();
      this.events.length = 0;
      this.frontEnd.takeEvents(this.events);
      this.openTurn = null;
      this.cutBuffer('final');
      return;
    }
    // 'ending': the final piece is queued or in flight; complete() follows it.
    this.state = 'closing';
  }

  private complete(): void {
    if (this.state === 'done') return;
    const wasEnding = this.state === 'ending';
    this.state = 'done';
    const stats = this.stats();
    if (wasEnding && this.sink.open) {
      this.sink.send(stats);
      this.sink.close(this.closeAfterFinal.code, this.closeAfterFinal.reason);
    }
    this.sileroStream?.close();
    const audioSeconds = this.frontEnd.writePosition / 16_000;
    this.frontEnd.close();
    const failure = this.failure;
    this.deps.onComplete({
      status: failure === null ? 'completed' : 'failed',
      text: this.texts.join(' '),
      segments: this.segments,
      language: this.language,
      model: this.model,
      audioSeconds,
      error: failure === null ? null : { type: ERROR_REGISTRY[failure.code].type, code: failure.code, message: failure.message },
      stats,
    });
  }

  stats(): SessionStatsMessage {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    const pick = (q: number): number | null => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
    return {
      type: 'session_stats',
      audio_ms: toMs(this.frontEnd.closed ? 0 : this.frontEnd.writePosition),
      turns: this.turns,
      transcriptions: this.transcriptions,
      latency_ms: { count: sorted.length, p50: pick(0.5), p95: pick(0.95), max: sorted.length === 0 ? null : sorted[sorted.length - 1]! },
      max_lag_ms: this.maxLagMs,
      dropped_audio_ms: toMs((this.frontEnd.closed ? 0 : this.frontEnd.droppedTotal) + this.sileroDroppedSamples),
      dropped_messages: this.sink.droppedMessages,
    };
  }

  get done(): boolean {
    return this.state === 'done';
  }

  private sendError(error: ApiError, closeCode: number | null): void {
    const def = ERROR_REGISTRY[error.code];
    this.sink.send({
      type: 'error',
      error: { type: def.type, code: error.code, message: error.message, ...(error.param !== undefined ? { param: error.param } : {}) },
      close_code: closeCode,
    });
  }

  // ---- arrival timeline: when the audio at a position reached the server ---------------

  private noteArrival(now: number): void {
    const at = this.timelineNext * 2;
    this.timeline[at] = this.frontEnd.writePosition;
    this.timeline[at + 1] = now;
    this.timelineNext = (this.timelineNext + 1) % TIMELINE;
    this.timelineCount = Math.min(TIMELINE, this.timelineCount + 1);
  }

  /** performance.now() of the push that brought the sample just before `position`. */
  private arrivalOf(position: number): number {
    let time = performance.now();
    for (let i = 1; i <= this.timelineCount; i++) {
      const at = ((this.timelineNext - i + TIMELINE) % TIMELINE) * 2;
      if (this.timeline[at]! < position) break;
      time = this.timeline[at + 1]!;
    }
    return time;
  }
}

function toMs(samples: number): number {
  return Math.round(samples / SAMPLES_PER_MS);
}

/** Whether a final piece is worth recognising (any sample above -60 dBFS). */
function hasSignal(audio: Float32Array): boolean {
  for (let i = 0; i < audio.length; i++) if (Math.abs(audio[i]!) > 0.001) return true;
  return false;
}

function closeReason(error: ApiError): string {
  let reason = `${error.code}: ${error.message}`;
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && Object.prototype.hasOwnProperty.call(ERROR_REGISTRY, code)) {
    return new ApiError(code as ErrorCode, { message: (error as Error).message });
  }
  return new ApiError('model_error');
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}
