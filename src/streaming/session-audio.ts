// The audio of one session on its way in, over all its channels (session-channel.ts): each
// binary message is decoded in place (the one copy out of the uWS message) into the channels'
// front ends; with channels=2 or 8 kHz input, StreamInput de-interleaves and decodes it first.
// FORMAT and the end of the stream pass the old format's resampler tails through.
//
// Rules: what cannot be read is reported as `invalid_audio_data` (the session goes on): a
// sticky input problem (a bad WAV header) and a broken container once each, until FORMAT;
// a full buffer is the session's to fail on. Positions are the same on every channel.
// Lifetime: the session's; `close` frees the native handles when it completes.
import type { ApiError } from '../platform/errors/api-error.js';
import type { Limits, StreamingSettings } from '../platform/config/config.js';
import {
  frontEndFormatFor,
  isPassthrough,
  NativeStatus,
  StreamInput,
  type EndpointEvent,
  type InputProblem,
  type StreamFormat,
} from '../engines/signal/signal.js';
import type { SileroVad } from '../engines/vad/vad.js';
import { type ChannelSession, SessionChannel } from './session-channel.js';
import { audioDataError } from './session-errors.js';
import type { FlowSnapshot } from './session-flow.js';
import { SAMPLES_PER_MS, toMs } from './session-time.js';
import { type FrontEndCounters, zeroFrontEndCounters } from './session-types.js';
import type { SessionSettings } from './ws-query.js';
import type { MainThreadParts } from './main-thread-parts.js';

export interface SessionAudioOptions {
  readonly settings: SessionSettings;
  readonly limits: Limits;
  readonly streaming: StreamingSettings;
  readonly silero: SileroVad | null;
  /** The speech gate's Silero (null: no gate). */
  readonly speechGate: SileroVad | null;
  readonly session: ChannelSession;
  readonly onVadEvent: (channel: SessionChannel, event: EndpointEvent) => void;
  /** Sends an `error` about audio that could not be read; the session goes on. */
  readonly report: (error: ApiError) => void;
  /** The endpoint's event-loop time by part; null: not timed. */
  readonly mainThread: MainThreadParts | null;
}

/** How far behind the session's channels are, for `lag` (worst channel; pieces summed). */
export interface Backlog {
  readonly oldestMs: number;
  readonly vadBehindMs: number;
  readonly pendingSamples: number;
  readonly pendingPieces: number;
}

export class SessionAudio {
  readonly channels: readonly SessionChannel[];
  /** De-interleaving and 8 kHz decoding; null while the audio goes to the one front end as is. */
  #input: StreamInput | null;
  #format: StreamFormat;
  #inputProblemReported = false;
  readonly #report: (error: ApiError) => void;
  /** The native counters when the front ends closed (set once, at completion). */
  #countersAtClose: FrontEndCounters | null = null;

  constructor(options: SessionAudioOptions) {
    const { settings, limits, streaming } = options;
    const count = settings.channels;
    this.#format = settings.format;
    this.#report = options.report;
    this.#input = isPassthrough(settings.format, count) ? null : new StreamInput(settings.format, count);
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
        maxPieceSamples: streaming.maxTurnMs * SAMPLES_PER_MS,
        endpointing,
        silero: options.silero,
        speechGate: options.speechGate,
        session: options.session,
        onVadEvent: (event) => options.onVadEvent(channel, event),
        mainThread: options.mainThread,
      });
      channels.push(channel);
    }
    this.channels = channels;
  }

  /** The format the client sends now. */
  get format(): StreamFormat {
    return this.#format;
  }

  /** Where audio has arrived (the same on every channel). */
  get writePosition(): number {
    return this.channels[0]!.writePosition;
  }

  /** One binary message into the front end(s): each channel's status, or what StreamInput could not read. */
  push(data: ArrayBuffer | Uint8Array): NativeStatus[] | InputProblem {
    if (this.#input === null) return [this.channels[0]!.push(data)];
    const parts = this.#input.split(data);
    if (!Array.isArray(parts)) return parts;
    return this.channels.map((channel) => (parts[channel.index]!.length > 0 ? channel.push(parts[channel.index]!) : NativeStatus.Ok));
  }

  /** Reports what a push could not read, channel by channel; true at a full buffer (nothing reported after it). */
  reportPush(result: NativeStatus[] | InputProblem): boolean {
    if (!Array.isArray(result)) {
      if (result.sticky && this.#inputProblemReported) return false;
      this.#inputProblemReported = result.sticky;
      this.#report(audioDataError(result.problem, this.#format));
      return false;
    }
    for (const channel of this.channels) {
      const status = result[channel.index]!;
      if (status === NativeStatus.BufferFull) return true;
      this.#reportStatus(channel, status);
    }
    return false;
  }

  /**
   * FORMAT: the old format's tail goes to the front ends, which then read `format`; returns
   * each channel's status (report them with reportStatuses once the appended audio is handled).
   */
  setFormat(format: StreamFormat): NativeStatus[] {
    const count = this.channels.length;
    if (this.#input !== null) {
      const tails = this.#input.setFormat(format);
      for (const channel of this.channels) channel.pushTail(tails[channel.index]!);
      if (isPassthrough(format, count)) {
        this.#input.close();
        this.#input = null;
      }
    } else if (!isPassthrough(format, count)) {
      this.#input = new StreamInput(format, count);
    }
    this.#format = format;
    this.#inputProblemReported = false;
    return this.channels.map((channel) => channel.setFormat(frontEndFormatFor(format, count)));
  }

  /** Reports every channel's problem status (after FORMAT). */
  reportStatuses(statuses: readonly NativeStatus[]): void {
    for (const channel of this.channels) this.#reportStatus(channel, statuses[channel.index]!);
  }

  #reportStatus(channel: SessionChannel, status: NativeStatus): void {
    const problem = channel.audioProblem(status);
    if (problem !== null) this.#report(audioDataError(problem, this.#format));
  }

  /** After the front ends appended audio (push, flush, format change): VAD events and trimming. */
  afterAppend(): void {
    for (const channel of this.channels) channel.afterAppend();
  }

  /** End of the stream: StreamInput's resampler tails, then each front end's own. */
  flush(): void {
    const tails = this.#input?.flush() ?? [];
    for (const channel of this.channels) channel.flush(tails[channel.index]);
  }

  /** For `chunk_received`: arrived audio, the least committed position, samples awaiting answers. */
  ackSnapshot(): FlowSnapshot {
    let committed = Number.POSITIVE_INFINITY;
    let pendingSamples = 0;
    for (const channel of this.channels) {
      committed = Math.min(committed, channel.committed);
      pendingSamples += channel.pendingSamples;
    }
    return { write: this.writePosition, committed, pendingSamples };
  }

  get hasSilero(): boolean {
    return this.channels.some((channel) => channel.hasSilero);
  }

  /** The end of the stream: Silero gets the rest of the audio (a bounded queue at a time), then finishes; stops once `stop()`. */
  async finishSilero(stop: () => boolean): Promise<void> {
    const silero = this.channels.filter((channel) => channel.hasSilero);
    while (silero.some((channel) => channel.sileroBehind) && !stop()) {
      for (const channel of silero) channel.feedSilero();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (!stop()) await Promise.all(silero.map((channel) => channel.finishSilero()));
  }

  /** Age of the oldest unanswered piece and audio the VAD has not analysed (`vadRunning`: the front ends are open). */
  backlog(now: number, vadRunning: boolean): Backlog {
    let oldestMs = 0;
    let vadBehindMs = 0;
    let pendingSamples = 0;
    let pendingPieces = 0;
    for (const channel of this.channels) {
      const oldestCutAt = channel.oldestCutAt;
      if (oldestCutAt !== undefined) oldestMs = Math.max(oldestMs, Math.round(now - oldestCutAt));
      if (vadRunning) vadBehindMs = Math.max(vadBehindMs, toMs(channel.vadBehindSamples));
      pendingSamples += channel.pendingSamples;
      pendingPieces += channel.pendingPieces;
    }
    return { oldestMs, vadBehindMs, pendingSamples, pendingPieces };
  }

  /**
   * The native front ends' counters (all channels). Live until the session completes; from then on
   * their values when the front ends closed (a closed handle reads nothing).
   */
  counters(): FrontEndCounters {
    if (this.#countersAtClose !== null) return this.#countersAtClose;
    const counters = zeroFrontEndCounters();
    for (const channel of this.channels) channel.addCounters(counters);
    return counters;
  }

  /** Samples dropped over all channels (the buffer full while open, Silero's queue). */
  get droppedSamples(): number {
    let dropped = 0;
    for (const channel of this.channels) dropped += channel.droppedSamples;
    return dropped;
  }

  /** Bytes of memory the channels' audio takes (rings and pieces); 0 once closed. */
  get heldBytes(): number {
    let bytes = 0;
    for (const channel of this.channels) bytes += channel.heldBytes;
    return bytes;
  }

  /** The front ends were closed (the session completed). */
  get closed(): boolean {
    return this.channels[0]!.closed;
  }

  /** The session completed: every native handle is freed. */
  close(): void {
    this.#countersAtClose = this.counters();
    for (const channel of this.channels) channel.close();
    this.#input?.close();
  }
}
