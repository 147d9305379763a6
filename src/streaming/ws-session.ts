// One streaming session of GET /v1/ws/transcribe: the protocol state machine. Commands and
// audio in, limits, turns cut by each channel's VAD, recognition (session-recognition.ts),
// acks and lag (session-flow.ts), the end and the outcome. Independent of the socket (see
// SessionSink).
//
// - States: open -> ending (END, duration, idle: the final piece is cut) -> done; open ->
//   closing (limit breach, client gone) -> done. `done` once every channel's last piece is
//   recognised. A state moves before anything is sent: a send may re-enter the session
//   (a slow consumer fails it) and must find the new state.
// - Audio goes into the channels (session-audio.ts, session-channel.ts: ring, VAD, cutter,
//   pieces); their rings and queued pieces count against the buffer limit (1009 beyond), and
//   what they take in memory is reported to the endpoint (`heldAudio`: the process bound).
//   Decoded audio is metered against wall time (WS_MAX_AUDIO_SPEED, 4029 beyond).
// - Text messages are commands; one that is not valid UTF-8 fails the session (1007).
//   Messages about a channel carry `channel` and `speaker` (never in a mono session).
// - Resuming (docs/streaming.md "Resuming a session"): the endpoint may keep an `open` session
//   without a socket (its sink, a SessionOutbox, holds what it sends) and attach another one;
//   the session only learns where the resent audio starts (`resumeFrom`) and drops the bytes
//   it already has, so stream time and the byte offset continue.
import { performance } from 'node:perf_hooks';
import { ApiError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY } from '../platform/errors/error-registry.js';
import { MULTICHANNEL_FORMATS, STREAM_FORMAT_SAMPLE_RATE, type EndpointEvent, type StreamFormat } from '../engines/signal/signal.js';
import { SessionAudio } from './session-audio.js';
import type { SessionChannel } from './session-channel.js';
import { closeReason, errorMessage } from './session-errors.js';
import { SessionFlow } from './session-flow.js';
import { SessionOverlaps } from './session-overlaps.js';
import { readyMessage } from './session-ready.js';
import { SessionRecognition } from './session-recognition.js';
import { SessionStats } from './session-stats.js';
import { SAMPLES_PER_MS, toMs } from './session-time.js';
import { SessionTranscript } from './session-transcript.js';
import type { FrontEndCounters, SessionDeps } from './session-types.js';
import type { CutPiece } from './turn-cutter.js';
import { parseCommand, MAX_COMMAND_BYTES } from './ws-command-parser.js';
import { MessageLimits } from './ws-limits.js';
import type { ServerMessage, SessionStatsMessage } from './ws-messages.js';
import type { SessionSettings } from './ws-query.js';
import type { SessionSink } from './ws-sender.js';

export type { PieceKind } from './piece-queue.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
export type { SessionDeps, SessionOutcome } from './session-types.js';

export class StreamSession {
  readonly startedAt = performance.now();
  readonly startedWall = Date.now();
  private readonly audio: SessionAudio;
  private readonly channels: readonly SessionChannel[];
  /** The format the session opened with (a `format` command may change it later); metrics label by it. */
  readonly openedFormat: StreamFormat;
  private readonly overlaps: SessionOverlaps | null;
  private readonly recognition: SessionRecognition;
  private readonly limits: MessageLimits;
  private readonly statistics = new SessionStats();
  private readonly transcript: SessionTranscript;
  private readonly flow: SessionFlow;

  private lastClientMessageAt = performance.now();

  private state: 'open' | 'ending' | 'closing' | 'done' = 'open';
  private closeAfterFinal: { code: number; reason: string } = { code: 1000, reason: 'end' };
  /** Why the session ended when its socket went away (client_closed, client_disconnected, server_shutdown). */
  private socketEndReason = 'client_closed';
  /** END, session duration or idle timeout began the end (closeAfterFinal says which). */
  private endRequested = false;
  /** Bytes at the start of the resumed audio that the session already has. */
  private discardBytes = 0;
  private failure: ApiError | null = null;

  constructor(
    readonly id: string,
    readonly jobId: string,
    private readonly settings: SessionSettings,
    private readonly sink: SessionSink,
    private readonly deps: SessionDeps,
  ) {
    const { limits, streaming } = deps;
    this.limits = new MessageLimits(limits, this.startedAt);
    this.flow = new SessionFlow(streaming.lagWarningMs);
    const count = settings.channels;
    this.openedFormat = settings.format;
    this.transcript = new SessionTranscript(count > 1);
    this.audio = new SessionAudio({
      settings,
      limits,
      streaming,
      silero: deps.silero,
      speechGate: deps.speechGate ?? null,
      session: this,
      onVadEvent: (channel, event) => this.onVadEvent(channel, event),
      report: (error) => this.sendError(error, null),
      mainThread: deps.mainThread ?? null,
    });
    const channels = this.audio.channels;
    this.channels = channels;
    this.overlaps = count > 1 ? new SessionOverlaps(channels, this.statistics, sink) : null;
    this.recognition = new SessionRecognition({
      sessionId: id,
      settings,
      channels,
      sink,
      deps,
      transcript: this.transcript,
      statistics: this.statistics,
      isOpen: () => this.state === 'open',
      onFinalSettled: () => this.completeWhenAllFinished(),
    });
  }

  /** turn_detection=server_vad, or the opus_raw_16k format (always automatic). */
  get turnDetection(): boolean {
    return this.settings.serverVad || this.audio.format === 'opus_raw_16k';
  }

  readyMessage(resume: { token: string; windowSeconds: number } | null = null): ServerMessage {
    const { id: sessionId, jobId, settings, channels, turnDetection } = this;
    const { language, model } = this.recognition;
    const { limits, streaming } = this.deps;
    return readyMessage({ sessionId, jobId, format: this.audio.format, language, model, turnDetection, settings, channels, resume, limits, streaming });
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
    const breach = this.limits.admit(data.byteLength, isBinary, now);
    if (breach !== null) return this.fail(breach);
    if (!isBinary) return this.onCommand(data);
    if (this.discardBytes === 0) return this.onAudio(data, data.byteLength, now);
    // Resumed: audio the session already has is dropped.
    const dropped = Math.min(this.discardBytes, data.byteLength);
    this.discardBytes -= dropped;
    if (dropped < data.byteLength) this.onAudio(new Uint8Array(data, dropped), data.byteLength - dropped, now);
  }

  private onAudio(data: ArrayBuffer | Uint8Array, bytes: number, now: number): void {
    const before = this.audio.writePosition;
    const pushed = this.audio.push(data);
    this.flow.received(bytes);
    this.statistics.noteArrival(this.audio.writePosition, now);
    if (this.audio.reportPush(pushed)) return this.fail(new ApiError('buffer_limit_exceeded'));
    const tooFast = this.limits.admitAudio((this.audio.writePosition - before) / SAMPLES_PER_MS, now);
    if (tooFast !== null) return this.fail(tooFast);
    this.audio.afterAppend();
    this.reportHeld();
    if (this.state !== 'open') return;
    this.sendAck(now, false);
  }

  private onCommand(data: ArrayBuffer): void {
    if (data.byteLength > MAX_COMMAND_BYTES) {
      const message = `Text messages are commands of at most ${MAX_COMMAND_BYTES} bytes; send audio as binary messages.`;
      return this.sendError(new ApiError('invalid_command', { message }), null);
    }
    let text: string;
    try {
      text = UTF8.decode(data);
    } catch {
      return this.fail(
        new ApiError('invalid_frame_payload', { message: 'A text message is not valid UTF-8; commands are UTF-8 text, audio goes in binary messages.' }),
      );
    }
    const command = parseCommand(text);
    switch (command.kind) {
      case 'ping':
        this.sink.send({ type: 'pong', server_time: new Date().toISOString() });
        return;
      case 'transcribe':
        this.cutBuffers('transcribe');
        return;
      case 'clear':
        this.clear();
        return;
      case 'end':
        void this.beginEnd(1000, 'end');
        return;
      case 'format':
        this.setFormat(command.format);
        return;
      case 'invalid':
        this.sendError(new ApiError(command.code, { message: command.message, ...(command.code === 'invalid_field_value' ? { param: 'format' } : {}) }), null);
        return;
    }
  }

  /**
   * FORMAT: the old format's tail goes to the front ends, which then read the new one. With
   * channels=2 only the formats that can be split per channel are accepted.
   */
  private setFormat(format: StreamFormat): void {
    const count = this.channels.length;
    if (count > 1 && !MULTICHANNEL_FORMATS.includes(format)) {
      const message = `channels=2 needs a format that keeps channels apart: ${MULTICHANNEL_FORMATS.join(', ')}; the format stays ${this.audio.format}.`;
      this.sendError(new ApiError('invalid_field_value', { message, param: 'format' }), null);
      return;
    }
    const statuses = this.audio.setFormat(format);
    this.audio.afterAppend();
    this.audio.reportStatuses(statuses);
    this.sink.send({ type: 'format_changed', format, sample_rate: STREAM_FORMAT_SAMPLE_RATE[format] });
  }

  private onVadEvent(channel: SessionChannel, event: EndpointEvent): void {
    if (this.state === 'done' || this.state === 'closing') return;
    const step = channel.cutterStep(event);
    this.transcript.resetPartial(channel.index);
    if (step.type === 'speech_started') {
      this.sink.send({ type: 'speech_started', turn_id: step.turnId, start_ms: toMs(step.start), ...channel.label });
    } else if (step.type === 'piece') {
      this.queuePiece(channel, step.piece);
    }
    this.overlaps?.onVadEvent(channel, event, step.type === 'speech_started' ? step.turnId : null);
  }

  /** TRANSCRIBE / END: everything not yet handed to recognition. */
  private cutBuffers(kind: 'transcribe' | 'final'): void {
    for (const channel of this.channels) {
      const piece = channel.cutBuffer(kind);
      if (piece !== null) this.queuePiece(channel, piece);
    }
  }

  /** Queues a cut piece and starts recognising it; a channel over its buffer share fails the session (1009). */
  private queuePiece(channel: SessionChannel, cut: CutPiece): void {
    const automatic = cut.kind === 'turn' && this.audio.format === 'opus_raw_16k';
    if (!channel.queue(cut, automatic)) return this.fail(new ApiError('buffer_limit_exceeded'));
    this.recognition.pump(channel);
    this.reportHeld();
  }

  /** What the session's audio takes in memory, for the process bound (nothing once failed or done). */
  private reportHeld(): void {
    this.deps.heldAudio?.(this.failure !== null || this.state === 'done' ? 0 : this.audio.heldBytes);
  }

  private clear(): void {
    for (const channel of this.channels) {
      channel.clear();
      this.transcript.resetPartial(channel.index);
    }
    this.overlaps?.clear(this.audio.writePosition);
    this.reportHeld();
  }

  // ---- timers (driven by the endpoint's ticker) ---------------------------------------

  tick(now: number): void {
    if (this.state === 'done') return;
    for (const channel of this.channels) if (this.state !== 'closing') channel.catchUpSilero();
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
      if (this.flow.unacknowledged) this.sendAck(now, false);
      for (const channel of this.channels) this.recognition.maybePartial(channel, now);
    }
    // Pieces settle between ticks: the figure follows within one.
    this.reportHeld();
    this.reportLag(now);
  }

  /** How far behind the server is: age of the oldest unanswered piece, or audio the VAD has not analysed (worst channel). */
  private reportLag(now: number): void {
    const backlog = this.audio.backlog(now, this.state !== 'done');
    this.statistics.noteLag(Math.max(backlog.oldestMs, backlog.vadBehindMs));
    const lag = this.flow.lag(now, backlog);
    if (lag !== null) this.sink.send(lag);
  }

  private sendAck(now: number, force: boolean): void {
    const ack = this.flow.ack(now, this.audio.ackSnapshot(), force);
    if (ack !== null) this.sink.send(ack);
  }

  // ---- ending ------------------------------------------------------------------------

  /** END, session duration, idle timeout: the rest of the buffer as the final transcription, then close. */
  async beginEnd(code: number, reason: string): Promise<void> {
    if (this.state !== 'open') return;
    this.state = 'ending';
    this.endRequested = true;
    this.closeAfterFinal = { code, reason };
    if (this.flow.unacknowledged) this.sendAck(performance.now(), true);
    this.audio.flush();
    this.statistics.noteArrival(this.audio.writePosition, performance.now());
    this.audio.afterAppend();
    if (this.audio.hasSilero && this.turnDetection) {
      try {
        await this.audio.finishSilero(() => this.done);
      } catch (error) {
        this.deps.logger.warn({ err: error, session: this.id }, 'Silero VAD did not finish');
      }
    }
    if (this.done) return;
    this.cutBuffers('final');
  }

  /** A limit breach or bad input that ends the session: error message, close with the registry's code. */
  fail(error: ApiError): void {
    if (this.state === 'done' || this.state === 'closing') return;
    const code = ERROR_REGISTRY[error.code].wsClose ?? 1011;
    // Closing first: the error's send may re-enter (a slow consumer fails it) and must find it failed.
    this.state = 'closing';
    this.failure = error;
    this.sendError(error, code);
    this.sink.close(code, closeReason(error));
    for (const channel of this.channels) channel.abandon();
    this.reportHeld();
    this.completeWhenAllFinished();
  }

  /** Audio bytes received so far: the byte offset of the client's audio stream. */
  get receivedBytes(): number {
    return this.flow.totalBytes;
  }

  /** Bytes still to drop from the resumed audio (already received before the drop). */
  get discardingBytes(): number {
    return this.discardBytes;
  }

  /** Decoded audio received so far, stream ms. */
  get streamMs(): number {
    return toMs(this.audio.writePosition);
  }

  /** Whether `fail` would end it now (open, or ending after END). */
  get failable(): boolean {
    return this.state === 'open' || this.state === 'ending';
  }

  /** Whether a new connection may carry this session on (not ending, failed or done). */
  get resumable(): boolean {
    return this.state === 'open';
  }

  /**
   * A new connection carries the session on, its audio from byte `offset` of the stream (null: receivedBytes). Returns the
   * bytes it will drop as already received; null when `offset` is beyond what the session has (the audio between is missing).
   */
  resumeFrom(offset: number | null): number | null {
    const received = this.receivedBytes;
    if (offset !== null && offset > received) return null;
    this.discardBytes = offset === null ? 0 : received - offset;
    this.lastClientMessageAt = performance.now();
    this.limits.newConnection(this.lastClientMessageAt);
    return this.discardBytes;
  }

  /**
   * The socket closed (client went away, or after our close frame). `reason` names why for the job record when this ends an
   * open session: client_closed, client_disconnected (the connection dropped and was not resumed) or server_shutdown.
   */
  onSocketClosed(reason = 'client_closed'): void {
    if (this.state === 'done' || this.state === 'closing') return;
    if (this.state === 'open') {
      // Client left without END: its untranscribed audio still goes into the job record.
      this.socketEndReason = reason;
      this.state = 'closing';
      this.audio.flush();
      for (const channel of this.channels) channel.dropVadEvents();
      this.cutBuffers('final');
      return;
    }
    // 'ending': the final piece is queued or in flight; complete() follows it.
    this.state = 'closing';
  }

  /** The session is over once every channel's last piece settled. */
  private completeWhenAllFinished(): void {
    if (this.channels.every((channel) => channel.finished)) this.complete();
  }

  private complete(): void {
    if (this.state === 'done') return;
    const wasEnding = this.state === 'ending';
    const endReason = this.failure !== null ? this.failure.code : this.endRequested ? this.closeAfterFinal.reason : this.socketEndReason;
    this.state = 'done';
    const stats = this.stats();
    if (wasEnding && this.sink.open) {
      this.sink.send(stats);
      this.sink.close(this.closeAfterFinal.code, this.closeAfterFinal.reason);
    }
    const audioSeconds = this.audio.writePosition / 16_000;
    this.recognition.close();
    this.audio.close();
    this.reportHeld();
    const failure = this.failure;
    this.deps.onComplete({
      status: failure === null ? 'completed' : 'failed',
      text: this.transcript.fullText,
      segments: this.transcript.recordSegments,
      language: this.recognition.language,
      model: this.recognition.model,
      audioSeconds,
      error: failure === null ? null : { type: ERROR_REGISTRY[failure.code].type, code: failure.code, message: failure.message },
      endReason,
      stats,
    });
  }

  /** The native front ends' counters (all channels): live until the session completes, then as they were. */
  frontEndCounters(): FrontEndCounters {
    return this.audio.counters();
  }

  stats(): SessionStatsMessage {
    return this.statistics.message({
      audioMs: toMs(this.audio.closed ? 0 : this.audio.writePosition),
      droppedAudioMs: toMs(this.audio.droppedSamples),
      droppedMessages: this.sink.droppedMessages,
    });
  }

  get done(): boolean {
    return this.state === 'done';
  }

  private sendError(error: ApiError, closeCode: number | null): void {
    this.sink.send(errorMessage(error, closeCode));
  }
}
