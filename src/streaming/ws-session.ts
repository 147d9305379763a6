// One streaming session of GET /v1/ws/transcribe: the protocol state machine. Audio in, turns
// cut by the VAD (turn-cutter.ts), pieces recognised on the shared pool one at a time
// (piece-queue.ts), messages out, statistics (session-stats.ts). Independent of the socket
// (see SessionSink).
//
// Audio positions are absolute 16 kHz sample positions since the session started.
// - The native StreamFrontEnd decodes each binary message in place (the one copy out of the
//   uWS message) into its ring buffer; energy VAD + endpointing run inside it. For Silero the
//   appended samples are fed to the shared batched Silero worker (silero-feed.ts), whose
//   endpointer reports the same events asynchronously.
// - The cutter's `committed` is the position up to which audio was handed to recognition,
//   cleared or dropped as silence; the ring keeps [committed, write). A piece copies its span
//   out of the ring (that Float32Array is the pool's input until recognition settles), then
//   the ring discards it. So memory per session is the ring (<= WS_MAX_BUFFER_BYTES of int16)
//   plus the queued pieces, and both count against the buffer limit (1009 beyond).
// - States: open -> ending (END, duration, idle: the final piece is cut) -> done; open ->
//   closing (limit breach, client gone) -> done. `done` once the last piece is recognised.
// - Resuming (docs/streaming.md "Resuming a session"): the endpoint may keep an `open` session
//   without a socket (its sink, a SessionOutbox, holds what it sends) and attach another one;
//   the session only learns where the resent audio starts (`resumeFrom`) and drops the bytes
//   it already has, so stream time and the byte offset continue.
//
// - Channels: a mono session has one SessionChannel (front end, Silero feed, turn cutter, piece
//   queue); channels=2 has two, fed with the de-interleaved audio (StreamInput), each with its
//   own VAD, turns and recognition queue. Messages about a channel carry `channel` and
//   `speaker` (never in a mono session); OverlapTracker turns both channels' speech spans into
//   `barge_in` and `overlap` messages. Positions are the same on every channel.
//
// Over 400 lines because it is one state machine: every handler below reads and moves the
// same state (open/ending/closing/done, the channels' cutters and queues); the parts without
// that state live beside it: session-channel, turn-cutter, piece-queue, session-transcript,
// session-flow, session-stats, silero-feed, session-errors, overlap-tracker.
import { performance } from 'node:perf_hooks';
import { BROADCAST_CAPTION_RULES, buildCaptionCues } from '../jobs/caption-cues.js';
import { renderCaptionCues } from '../jobs/caption-formats.js';
import type { Segment } from '../platform/db/job-records.js';
import { ApiError } from '../platform/errors/api-error.js';
import { ERROR_REGISTRY } from '../platform/errors/error-registry.js';
import type { InferenceCost } from '../engines/asr/asr.js';
import {
  describeNativeStatus,
  ENDPOINT_PADDING_MS,
  frontEndFormatFor,
  isPassthrough,
  MULTICHANNEL_FORMATS,
  NativeStatus,
  STREAM_FORMAT_SAMPLE_RATE,
  StreamInput,
  type EndpointEvent,
  type InputProblem,
  type StreamFormat,
} from '../engines/signal/signal.js';
import { OverlapTracker } from './overlap-tracker.js';
import type { Piece } from './piece-queue.js';
import { SessionChannel } from './session-channel.js';
import { closeReason, errorMessage, toApiError } from './session-errors.js';
import { SessionFlow } from './session-flow.js';
import { SessionStats } from './session-stats.js';
import { SessionTranscript } from './session-transcript.js';
import { type FrontEndCounters, type SessionDeps, zeroFrontEndCounters } from './session-types.js';
import type { CutPiece } from './turn-cutter.js';
import { parseCommand, MAX_COMMAND_BYTES } from './ws-command-parser.js';
import { RateWindow } from './ws-limits.js';
import type { ServerMessage, SessionStatsMessage } from './ws-messages.js';
import type { SessionSettings } from './ws-query.js';
import type { SessionSink } from './ws-sender.js';

export type { PieceKind } from './piece-queue.js';
export type { SessionDeps, SessionOutcome } from './session-types.js';

const SAMPLES_PER_MS = 16;
const MIN_PARTIAL_MS = 400;

export class StreamSession {
  readonly startedAt = performance.now();
  readonly startedWall = Date.now();
  private readonly channels: readonly SessionChannel[];
  /** De-interleaving and 8 kHz decoding; null while the audio goes to the one front end as is. */
  private input: StreamInput | null;
  private format: StreamFormat;
  /** The format the session opened with (a `format` command may change `format` later); metrics label by it. */
  readonly openedFormat: StreamFormat;
  private inputProblemReported = false;
  private readonly overlaps: OverlapTracker | null;
  private readonly rate: RateWindow;
  private readonly statistics = new SessionStats();

  private language: string;
  private model: string | null;
  private readonly transcript: SessionTranscript;
  private readonly flow: SessionFlow;
  /** Caption cues sent so far, and where the last one ended (stream ms). */
  private captionCues = 0;
  private lastCueEndMs: number | null = null;
  /** The native counters when the front ends closed (set once, at completion). */
  private countersAtClose: FrontEndCounters | null = null;

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
    this.language = settings.language;
    this.model = settings.model;
    this.rate = new RateWindow(limits.wsMessagesPerSecond, limits.wsBytesPerSecond);
    this.flow = new SessionFlow(streaming.lagWarningMs);
    const count = settings.channels;
    this.format = settings.format;
    this.openedFormat = settings.format;
    this.input = isPassthrough(settings.format, count) ? null : new StreamInput(settings.format, count);
    this.transcript = new SessionTranscript(count > 1);
    this.overlaps = count > 1 ? new OverlapTracker(count) : null;
    if (count > 1) this.statistics.overlaps = { count: 0, ms: 0 };
    const endpointing = { minSilenceMs: streaming.endpointSilenceMs, maxSpeechMs: streaming.maxTurnMs };
    const channels: SessionChannel[] = [];
    for (let index = 0; index < count; index++) {
      const channel: SessionChannel = new SessionChannel({
        index,
        name: count > 1 ? settings.channelNames[index]! : null,
        format: frontEndFormatFor(settings.format, count),
        vadType: settings.vadType,
        // The buffer limit is the session's: each channel holds its share.
        maxBufferBytes: Math.floor(limits.wsMaxBufferBytes / count),
        endpointing,
        silero: deps.silero,
        onVadEvent: (event) => this.onVadEvent(channel, event),
      });
      channels.push(channel);
    }
    this.channels = channels;
  }

  /** turn_detection=server_vad, or the opus_raw_16k format (always automatic). */
  private get turnDetection(): boolean {
    return this.settings.serverVad || this.format === 'opus_raw_16k';
  }

  /** Where audio has arrived (the same on every channel). */
  private get writePosition(): number {
    return this.channels[0]!.frontEnd.writePosition;
  }

  readyMessage(resume: { token: string; windowSeconds: number } | null = null): ServerMessage {
    const { limits, streaming } = this.deps;
    return {
      type: 'ready',
      session_id: this.id,
      job_id: this.jobId,
      format: this.format,
      sample_rate: STREAM_FORMAT_SAMPLE_RATE[this.format],
      language: this.language,
      model: this.model,
      turn_detection: this.turnDetection ? 'server_vad' : 'none',
      vad_type: this.settings.vadType,
      partial_results: this.settings.partialResults,
      ...(this.channels.length > 1 ? { channels: this.channels.length, channel_names: this.channels.map((channel) => channel.name!) } : {}),
      resume_token: resume?.token ?? null,
      resume_window_seconds: resume?.windowSeconds ?? 0,
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
    if (!isBinary) return this.onCommand(data);
    if (this.discardBytes === 0) return this.onAudio(data, data.byteLength, now);
    // Resumed: audio the session already has is dropped.
    const dropped = Math.min(this.discardBytes, data.byteLength);
    this.discardBytes -= dropped;
    if (dropped < data.byteLength) this.onAudio(new Uint8Array(data, dropped), data.byteLength - dropped, now);
  }

  private onAudio(data: ArrayBuffer | Uint8Array, bytes: number, now: number): void {
    const statuses = this.decode(data);
    this.flow.received(bytes);
    this.statistics.noteArrival(this.writePosition, now);
    if (!Array.isArray(statuses)) this.reportInputProblem(statuses);
    else {
      for (const channel of this.channels) {
        const status = statuses[channel.index]!;
        if (status === NativeStatus.BufferFull) return this.fail(new ApiError('buffer_limit_exceeded'));
        if (status !== NativeStatus.Ok) this.reportAudioProblem(channel, status);
        else channel.badStreamReported = false;
      }
    }
    this.afterAppend();
    if (this.state !== 'open') return;
    this.sendAck(now, false);
  }

  /** One binary message into the front end(s): each channel's status, or what StreamInput could not read. */
  private decode(data: ArrayBuffer | Uint8Array): NativeStatus[] | InputProblem {
    if (this.input === null) return [this.channels[0]!.frontEnd.push(data)];
    const parts = this.input.split(data);
    if (!Array.isArray(parts)) return parts;
    return this.channels.map((channel) => (parts[channel.index]!.length > 0 ? channel.frontEnd.push(parts[channel.index]!) : NativeStatus.Ok));
  }

  private reportAudioProblem(channel: SessionChannel, status: NativeStatus): void {
    const info = describeNativeStatus(status);
    // A broken container fails every later push: say so once, until FORMAT resets it.
    if (info.kind === 'bad_stream') {
      if (channel.badStreamReported) return;
      channel.badStreamReported = true;
    }
    this.sendError(new ApiError('invalid_audio_data', { message: `${capitalize(info.message)} (format ${this.format}).` }), null);
  }

  private reportInputProblem(problem: InputProblem): void {
    if (problem.sticky && this.inputProblemReported) return;
    this.inputProblemReported = problem.sticky;
    this.sendError(new ApiError('invalid_audio_data', { message: `${capitalize(problem.problem)} (format ${this.format}).` }), null);
  }

  private onCommand(data: ArrayBuffer): void {
    if (data.byteLength > MAX_COMMAND_BYTES) {
      this.sendError(
        new ApiError('invalid_command', { message: `Text messages are commands of at most ${MAX_COMMAND_BYTES} bytes; send audio as binary messages.` }),
        null,
      );
      return;
    }
    const command = parseCommand(Buffer.from(data).toString('utf8'));
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
      const message = `channels=2 needs a format that keeps channels apart: ${MULTICHANNEL_FORMATS.join(', ')}; the format stays ${this.format}.`;
      this.sendError(new ApiError('invalid_field_value', { message, param: 'format' }), null);
      return;
    }
    if (this.input !== null) {
      const tails = this.input.setFormat(format);
      for (const channel of this.channels) if (tails[channel.index]!.length > 0) channel.frontEnd.push(tails[channel.index]!);
      if (isPassthrough(format, count)) {
        this.input.close();
        this.input = null;
      }
    } else if (!isPassthrough(format, count)) {
      this.input = new StreamInput(format, count);
    }
    this.format = format;
    this.inputProblemReported = false;
    const statuses = this.channels.map((channel) => {
      channel.badStreamReported = false;
      return channel.frontEnd.setFormat(frontEndFormatFor(format, count));
    });
    this.afterAppend();
    for (const channel of this.channels) if (statuses[channel.index] !== NativeStatus.Ok) this.reportAudioProblem(channel, statuses[channel.index]!);
    this.sink.send({ type: 'format_changed', format, sample_rate: STREAM_FORMAT_SAMPLE_RATE[format] });
  }

  /** After the front ends appended audio (push, flush, format change): VAD events and trimming. */
  private afterAppend(): void {
    for (const channel of this.channels) {
      if (channel.silero !== null) this.feedSilero(channel);
      if (channel.frontEnd.pendingEvents > 0) {
        channel.events.length = 0;
        channel.frontEnd.takeEvents(channel.events);
        if (this.turnDetection) for (const event of channel.events) this.onVadEvent(channel, event);
      }
      this.trimSilence(channel);
    }
  }

  private feedSilero(channel: SessionChannel): void {
    if (!this.turnDetection) channel.silero!.skipTo(channel.frontEnd.writePosition);
    else channel.silero!.feed(channel.frontEnd);
  }

  /** Drops old silence while no turn is open (turn-detection mode only). */
  private trimSilence(channel: SessionChannel): void {
    if (!this.turnDetection || this.state === 'done') return;
    // Only audio the VAD has judged (Silero answers asynchronously) may be trimmed as silence.
    const analysed = channel.silero !== null ? channel.silero.analysed : channel.frontEnd.writePosition;
    const until = channel.cutter.trim(analysed);
    if (until !== null) channel.frontEnd.discardUntil(until);
  }

  private onVadEvent(channel: SessionChannel, event: EndpointEvent): void {
    if (this.state === 'done' || this.state === 'closing') return;
    const step = channel.cutter.onEvent(event, channel.frontEnd.writePosition);
    this.transcript.resetPartial(channel.index);
    if (step.type === 'speech_started') {
      channel.lastPartialAt = performance.now();
      this.sink.send({ type: 'speech_started', turn_id: step.turnId, start_ms: toMs(step.start), ...channel.label });
    } else if (step.type === 'piece') {
      this.queuePiece(channel, step.piece);
    }
    if (this.overlaps !== null) this.trackOverlap(channel, event, step.type === 'speech_started' ? step.turnId : null);
  }

  /**
   * channels=2: barge-ins when a channel starts speaking, overlaps once both spans ended
   * (overlap-tracker.ts), on the speech itself: the endpointer's padding is taken off its
   * positions (none after a forced split, which ends where it cuts).
   */
  private trackOverlap(channel: SessionChannel, event: EndpointEvent, turnId: number | null): void {
    const before = ENDPOINT_PADDING_MS.before * SAMPLES_PER_MS;
    if (event.type === 'speech_start') {
      const onset = event.position + before;
      const interrupted = this.overlaps!.speechStart(channel.index, onset);
      if (turnId === null) return;
      for (const { channel: other } of interrupted) {
        const them = this.channels[other]!;
        this.sink.send({
          type: 'barge_in',
          channel: channel.index,
          speaker: channel.name!,
          turn_id: turnId,
          interrupted_channel: other,
          interrupted_speaker: them.name!,
          interrupted_turn_id: them.cutter.openTurn?.id ?? null,
          at_ms: toMs(onset),
        });
      }
      return;
    }
    const end = event.forcedSplit ? event.position : event.position - ENDPOINT_PADDING_MS.after * SAMPLES_PER_MS;
    for (const overlap of this.overlaps!.speechEnd(channel.index, event.turnStart + before, end)) {
      const [startMs, endMs] = [toMs(overlap.start), toMs(overlap.end)];
      if (endMs <= startMs) continue;
      this.statistics.overlaps!.count++;
      this.statistics.overlaps!.ms += endMs - startMs;
      this.sink.send({
        type: 'overlap',
        start_ms: startMs,
        end_ms: endMs,
        duration_ms: endMs - startMs,
        channels: [...overlap.channels],
        speakers: overlap.channels.map((index) => this.channels[index]!.name!),
      });
    }
  }

  /** TRANSCRIBE / END: everything not yet handed to recognition. */
  private cutBuffer(channel: SessionChannel, kind: 'transcribe' | 'final'): void {
    const piece = channel.cutter.cutBuffer(kind, channel.frontEnd.writePosition);
    if (piece !== null) this.queuePiece(channel, piece);
  }

  private cutBuffers(kind: 'transcribe' | 'final'): void {
    for (const channel of this.channels) this.cutBuffer(channel, kind);
  }

  /** Copies a cut span out of the ring, lets the ring discard it, and queues it. */
  private queuePiece(channel: SessionChannel, cut: CutPiece): void {
    const { frontEnd, pieces } = channel;
    const audio = new Float32Array(cut.end - cut.start);
    if (audio.length > 0) frontEnd.peek(cut.start, audio);
    frontEnd.discardUntil(channel.cutter.committed);
    const automatic = cut.kind === 'turn' && this.format === 'opus_raw_16k';
    pieces.push({ ...cut, audio, cutAt: performance.now(), automatic });
    const held = frontEnd.buffered + pieces.heldSamples;
    if (held > frontEnd.maxBufferSamples && cut.kind !== 'final') return this.fail(new ApiError('buffer_limit_exceeded'));
    this.pump(channel);
  }

  private clear(): void {
    for (const channel of this.channels) {
      channel.frontEnd.clear();
      const position = channel.frontEnd.writePosition;
      channel.cutter.clear(position);
      this.transcript.resetPartial(channel.index);
      channel.silero?.reset(position);
    }
    this.overlaps?.clear(this.writePosition);
  }

  // ---- recognition -----------------------------------------------------------------

  private pump(channel: SessionChannel): void {
    const piece = channel.pieces.next();
    if (piece !== null) void this.run(channel, piece);
  }

  /**
   * Two passes: a partial is one fast model run over the open turn; a turn, TRANSCRIBE or the
   * final piece is decoded from its whole (padded) audio the way REST decodes a file, so its
   * text equals the REST text for that audio. Text sent in turn_detected never changes.
   */
  private async run(channel: SessionChannel, piece: Piece): Promise<void> {
    let recognition: { text: string; confidence: number | null; inference: InferenceCost | null } | null = null;
    let error: ApiError | null = null;
    try {
      if (piece.audio.length > 0 && (piece.kind !== 'final' || hasSignal(piece.audio))) {
        if (this.model === null) {
          const detected = await this.deps.recognizer.detectLanguage(piece.audio);
          this.language = detected.language;
          this.model = detected.model;
        }
        const options = { model: this.model, startMs: toMs(piece.start) };
        recognition =
          piece.kind === 'partial'
            ? await this.deps.recognizer.recognizePiece(piece.audio, options)
            : await this.deps.recognizer.transcribePiece(piece.audio, options);
      }
    } catch (caught) {
      error = toApiError(caught);
      this.deps.logger.warn({ err: caught, session: this.id }, 'streaming recognition failed');
    }
    channel.pieces.settle();
    this.deps.observe?.piece?.(piece.kind, performance.now() - piece.cutAt, piece.audio.length / (SAMPLES_PER_MS * 1000), recognition?.inference ?? null);
    if (error !== null && piece.kind !== 'final' && piece.kind !== 'partial') this.sendError(error, null);
    this.deliver(channel, piece, recognition?.text.trim() ?? '', recognition?.confidence ?? null);
    if (piece.kind === 'final') {
      channel.finished = true;
      this.completeWhenAllFinished();
      return;
    }
    this.pump(channel);
  }

  private deliver(channel: SessionChannel, piece: Piece, text: string, confidence: number | null): void {
    const now = performance.now();
    if (piece.kind === 'partial') {
      const open = channel.cutter.openTurn;
      if (open === null || open.id !== piece.turnId || this.state !== 'open') return;
      this.sink.send({ ...this.transcript.partial(open.id, piece, text, channel.index), ...channel.label });
      return;
    }
    // A turn with no words (noise, a cough, a click the VAD took for speech) is dropped: no
    // turn_detected, no automatic transcription; the client discards its partials when the
    // next speech_started comes.
    if (piece.kind === 'turn' && text.length === 0) {
      this.deps.logger.debug({ turnId: piece.turnId, startMs: toMs(piece.start), endMs: toMs(piece.end) }, 'turn without words dropped');
      return;
    }
    const segments = this.transcript.commit(piece, text, confidence, channel.name === null ? undefined : { channel: channel.index, speaker: channel.name });
    this.sendCaptions(segments);
    const latency = Math.max(0, Math.round(now - this.statistics.arrivalOf(piece.end, now)));
    const processing = Math.round(now - piece.cutAt);
    this.statistics.addLatency(latency);
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
      this.statistics.turns++;
      this.deps.observe?.turnLatency?.(latency);
      if (this.settings.serverVad)
        this.sink.send({ type: 'turn_detected', turn_id: piece.turnId!, ...common, forced_split: piece.forcedSplit, ...channel.label });
      // opus_raw_16k transcribes turns automatically (spec), with or without server_vad.
      if (!piece.automatic) return;
    }
    this.statistics.transcriptions++;
    // channels=2: every channel ends with its own final piece; the last one is the session's final.
    const final = piece.kind === 'final' && this.channels.every((other) => other === channel || other.finished);
    this.sink.send({
      type: 'transcription',
      ...common,
      is_final: final,
      turn_id: piece.turnId,
      ...(final ? { full_text: this.transcript.fullText } : {}),
      ...channel.label,
    });
  }

  /** captions=webvtt|srt: cues for the text just committed, numbered on from the last cue sent and never before its end. */
  private sendCaptions(segments: readonly Segment[]): void {
    const format = this.settings.captions;
    if (format === null || segments.length === 0) return;
    const cues = buildCaptionCues(segments, BROADCAST_CAPTION_RULES, { firstIndex: this.captionCues + 1, previousEndMs: this.lastCueEndMs });
    if (cues.length === 0) return;
    this.captionCues += cues.length;
    this.lastCueEndMs = cues[cues.length - 1]!.endMs;
    this.sink.send({
      type: 'caption',
      format: format === 'vtt' ? 'webvtt' : 'srt',
      cues: cues.map((cue) => ({ index: cue.index, start_ms: cue.startMs, end_ms: cue.endMs, lines: [...cue.lines], speaker: cue.speaker })),
      text: renderCaptionCues(cues, format),
    });
  }

  // ---- timers (driven by the endpoint's ticker) ---------------------------------------

  tick(now: number): void {
    if (this.state === 'done') return;
    for (const channel of this.channels) {
      if (channel.silero !== null && channel.silero.fed < channel.frontEnd.writePosition && this.state !== 'closing') {
        this.feedSilero(channel);
        this.trimSilence(channel);
      }
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
      if (this.flow.unacknowledged) this.sendAck(now, false);
      for (const channel of this.channels) this.maybePartial(channel, now);
    }
    this.reportLag(now);
  }

  private maybePartial(channel: SessionChannel, now: number): void {
    const open = channel.cutter.openTurn;
    // No partials for a session without a socket (parked): nobody would read them.
    if (!this.settings.partialResults || open === null || !channel.pieces.idle || !this.sink.open) return;
    if (now - channel.lastPartialAt < this.deps.streaming.partialIntervalMs) return;
    const end = channel.frontEnd.writePosition;
    const start = Math.max(open.start, end - this.deps.streaming.maxTurnMs * SAMPLES_PER_MS);
    if (end - start < MIN_PARTIAL_MS * SAMPLES_PER_MS) return;
    channel.lastPartialAt = now;
    if (this.deps.partialsAllowed?.() === false) {
      this.deps.observe?.partialSkipped?.((end - start) / (SAMPLES_PER_MS * 1000));
      return;
    }
    const audio = new Float32Array(end - start);
    channel.frontEnd.peek(start, audio);
    const piece: Piece = { kind: 'partial', turnId: open.id, start, end, audio, cutAt: now, forcedSplit: false };
    if (channel.pieces.startPartial(piece)) void this.run(channel, piece);
  }

  /** How far behind the server is: age of the oldest unanswered piece, or audio the VAD has not analysed (worst channel). */
  private reportLag(now: number): void {
    let oldestMs = 0;
    let vadBehindMs = 0;
    let pendingSamples = 0;
    let pendingPieces = 0;
    for (const { pieces, silero, frontEnd } of this.channels) {
      const oldest = pieces.oldest;
      if (oldest) oldestMs = Math.max(oldestMs, Math.round(now - oldest.cutAt));
      if (silero !== null && this.state !== 'done') vadBehindMs = Math.max(vadBehindMs, toMs(silero.behindSamples(frontEnd.writePosition)));
      pendingSamples += pieces.pendingSamples;
      pendingPieces += pieces.count;
    }
    this.statistics.noteLag(Math.max(oldestMs, vadBehindMs));
    const lag = this.flow.lag(now, { oldestMs, vadBehindMs, pendingSamples, pendingPieces });
    if (lag !== null) this.sink.send(lag);
  }

  private sendAck(now: number, force: boolean): void {
    let committed = Number.POSITIVE_INFINITY;
    let pendingSamples = 0;
    for (const { cutter, pieces } of this.channels) {
      committed = Math.min(committed, cutter.committed);
      pendingSamples += pieces.pendingSamples;
    }
    const ack = this.flow.ack(now, { write: this.writePosition, committed, pendingSamples }, force);
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
    this.flushFrontEnds();
    this.statistics.noteArrival(this.writePosition, performance.now());
    this.afterAppend();
    const silero = this.channels.filter((channel) => channel.silero !== null);
    if (silero.length > 0 && this.turnDetection) {
      try {
        while (silero.some((channel) => channel.silero!.fed < channel.frontEnd.writePosition) && !this.done) {
          for (const channel of silero) this.feedSilero(channel);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        if (!this.done) await Promise.all(silero.map((channel) => channel.silero!.stream.finish()));
      } catch (error) {
        this.deps.logger.warn({ err: error, session: this.id }, 'Silero VAD did not finish');
      }
    }
    if (this.done) return;
    this.cutBuffers('final');
  }

  /** End of the stream: StreamInput's resampler tails, then each front end's own. */
  private flushFrontEnds(): void {
    const tails = this.input?.flush() ?? [];
    for (const channel of this.channels) {
      const tail = tails[channel.index];
      if (tail !== undefined && tail.length > 0) channel.frontEnd.push(tail);
      channel.frontEnd.flush();
    }
  }

  /** A limit breach or bad input that ends the session: error message, close with the registry's code. */
  fail(error: ApiError): void {
    if (this.state === 'done' || this.state === 'closing') return;
    const code = ERROR_REGISTRY[error.code].wsClose ?? 1011;
    // Closing before anything is sent: the send may fail the session again (a slow consumer)
    // or close its socket, and must find it failed.
    this.state = 'closing';
    this.failure = error;
    this.sendError(error, code);
    this.sink.close(code, closeReason(error));
    for (const channel of this.channels) {
      const { pieces, cutter } = channel;
      pieces.dropQueued();
      const inFlight = pieces.inFlight;
      if (inFlight === null || inFlight.kind === 'partial') channel.finished = true;
      // else: the channel finishes when the piece in flight settles (an empty final piece queued
      // here, unless the one in flight is the final piece itself)
      else if (inFlight.kind !== 'final') {
        cutter.cutBuffer('final', cutter.committed);
        const at = cutter.committed;
        pieces.push({ kind: 'final', turnId: null, start: at, end: at, audio: new Float32Array(0), cutAt: performance.now(), forcedSplit: false });
      }
    }
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
    return toMs(this.writePosition);
  }

  /** Whether a new connection may carry this session on (not ending, failed or done). */
  get resumable(): boolean {
    return this.state === 'open';
  }

  /**
   * A new connection carries the session on; its audio starts at byte `offset` of the stream
   * (null: at receivedBytes). Returns the bytes it will drop as already received, or null when
   * `offset` is beyond what the session has (the audio in between is missing).
   */
  resumeFrom(offset: number | null): number | null {
    const received = this.receivedBytes;
    if (offset !== null && offset > received) return null;
    this.discardBytes = offset === null ? 0 : received - offset;
    this.lastClientMessageAt = performance.now();
    return this.discardBytes;
  }

  /**
   * The socket closed (client went away, or after our close frame). `reason` names why for the
   * job record when this ends an open session: client_closed, client_disconnected (the
   * connection dropped and was not resumed) or server_shutdown.
   */
  onSocketClosed(reason = 'client_closed'): void {
    if (this.state === 'done' || this.state === 'closing') return;
    if (this.state === 'open') this.socketEndReason = reason;
    if (this.state === 'open') {
      // Client left without END: its untranscribed audio still goes into the job record.
      this.state = 'closing';
      this.flushFrontEnds();
      for (const channel of this.channels) {
        channel.events.length = 0;
        channel.frontEnd.takeEvents(channel.events);
      }
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
    const audioSeconds = this.writePosition / 16_000;
    this.countersAtClose = this.frontEndCounters();
    for (const channel of this.channels) {
      channel.silero?.stream.close();
      channel.frontEnd.close();
    }
    this.input?.close();
    const failure = this.failure;
    this.deps.onComplete({
      status: failure === null ? 'completed' : 'failed',
      text: this.transcript.fullText,
      segments: this.transcript.recordSegments,
      language: this.language,
      model: this.model,
      audioSeconds,
      error: failure === null ? null : { type: ERROR_REGISTRY[failure.code].type, code: failure.code, message: failure.message },
      endReason,
      stats,
    });
  }

  /**
   * The native front ends' counters (all channels). Live until the session completes; from then on
   * their values when the front ends closed (a closed handle reads nothing).
   */
  frontEndCounters(): FrontEndCounters {
    if (this.countersAtClose !== null) return this.countersAtClose;
    const counters = zeroFrontEndCounters();
    for (const { frontEnd, silero } of this.channels) {
      if (frontEnd.closed) continue;
      counters.decodedSamples += frontEnd.writePosition;
      counters.packetsDecoded += frontEnd.packetsDecoded;
      counters.packetsRejected += frontEnd.packetsRejected;
      counters.droppedSamples += frontEnd.droppedTotal + (silero?.droppedSamples ?? 0);
    }
    return counters;
  }

  stats(): SessionStatsMessage {
    const closed = this.channels[0]!.frontEnd.closed;
    let dropped = 0;
    for (const { frontEnd, silero } of this.channels) dropped += (closed ? 0 : frontEnd.droppedTotal) + (silero?.droppedSamples ?? 0);
    return this.statistics.message({
      audioMs: toMs(closed ? 0 : this.writePosition),
      droppedAudioMs: toMs(dropped),
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

function toMs(samples: number): number {
  return Math.round(samples / SAMPLES_PER_MS);
}

/** Whether a final piece is worth recognising (any sample above -60 dBFS). */
function hasSignal(audio: Float32Array): boolean {
  for (let i = 0; i < audio.length; i++) if (Math.abs(audio[i]!) > 0.001) return true;
  return false;
}

function capitalize(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}
