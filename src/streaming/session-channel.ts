// One audio channel of a streaming session: its front end (ring buffer, energy VAD), its
// Silero feed, its turn cutter and its piece queue. A mono session has one; channels=2 has
// two, fed with the de-interleaved audio, each cutting and recognising its own turns.
//
// Rules: the channel does what concerns its own audio: decoding into its front end, feeding
// its VAD, its cutter and silence trimming, copying cut pieces out of the ring into its queue
// (they count against its share of the buffer limit; a TRANSCRIBE or final span longer than
// the longest turn is cut in bounded pieces that stay in the ring until each starts, so no
// recognition ever holds one giant piece), saying what a push did wrong. What that
// means for the protocol (messages, failing, ending) is the session's (ws-session.ts);
// recognising the pieces is session-recognition.ts. Positions are absolute 16 kHz samples,
// the same on every channel. Lifetime: the session's; `close` frees the native front end and
// the Silero stream when the session completes (nothing is read from them after).
import { performance } from 'node:perf_hooks';
import { describeNativeStatus, NativeStatus, StreamFrontEnd, type AudioFormat, type EndpointEvent } from '../engines/signal/signal.js';
import type { SileroVad } from '../engines/vad/vad.js';
import { type Piece, PieceQueue, type QueuedPiece } from './piece-queue.js';
import { SpeechGate } from './session-speech-gate.js';
import type { SampleSpan } from './speech-evidence.js';
import { SAMPLES_PER_MS } from './session-time.js';
import type { FrontEndCounters } from './session-types.js';
import { SileroFeed } from './silero-feed.js';
import { type CutPiece, type CutterStep, cutterOptionsFor, TurnCutter } from './turn-cutter.js';
import type { VadType } from './ws-query.js';
import type { MainThreadParts } from './main-thread-parts.js';

/** A partial covers at least this much of the open turn. */
const MIN_PARTIAL_MS = 400;

/** Audio as the front end decodes it: a binary message, or this channel's share of one. */
export type ChannelAudio = Parameters<StreamFrontEnd['push']>[0];

/** What a channel reads of its session. */
export interface ChannelSession {
  /** VAD events cut turns and old silence is trimmed (turn_detection=server_vad, or opus_raw_16k). */
  readonly turnDetection: boolean;
  /** The session is over: nothing is trimmed any more. */
  readonly done: boolean;
}

/**
 * The energy VAD's "never speech below" level (dBFS) when the speech gate is on (-50 without it,
 * native energy-vad.h). Speech 30 dB quieter (about -50 dBFS active level) lost its edges under
 * -50: in bench/robustness.ts (6 held-out utterances, WebSocket, gate on) its CER was 57.6% at
 * -50 and 31.9% at -65, while clean and 10 dB SNR speech read the same and non-speech stayed at
 * 0 letters per minute (the gate drops the extra turns the lower floor opens).
 */
const GATED_MIN_ENERGY_DBFS = -65;

export interface ChannelOptions {
  readonly index: number;
  /** The channel's speaker name (channels=2); null for a mono session. */
  readonly name: string | null;
  readonly format: AudioFormat;
  readonly vadType: VadType;
  readonly maxBufferBytes: number;
  /** TRANSCRIBE and final spans longer than this are cut in pieces of at most this (the longest turn). */
  readonly maxPieceSamples: number;
  readonly endpointing: { readonly minSilenceMs: number; readonly maxSpeechMs: number };
  readonly silero: SileroVad | null;
  /** LIVE_SPEECH_GATE=on: the shared Silero that confirms speech before a piece is decoded (session-speech-gate.ts); null: off. */
  readonly speechGate: SileroVad | null;
  readonly session: ChannelSession;
  /** A speech start or end (the front end's, after an append; Silero's, when it answers). */
  readonly onVadEvent: (event: EndpointEvent) => void;
  /** The endpoint's event-loop time by part (front end, Silero); null: not timed. */
  readonly mainThread: MainThreadParts | null;
}

/** The fields a message about one channel carries (none in a mono session). */
export type ChannelLabel = { readonly channel: number; readonly speaker: string } | Record<string, never>;

/** The span of the open turn a `partial` is recognised from. */
export interface PartialSpan {
  readonly turnId: number;
  readonly start: number;
  readonly end: number;
}

export class SessionChannel {
  readonly index: number;
  readonly name: string | null;
  readonly label: ChannelLabel;
  /** Its final piece settled (or, when the session failed, nothing of it was left to wait for). */
  finished = false;
  readonly #frontEnd: StreamFrontEnd;
  readonly #silero: SileroFeed | null;
  readonly #gate: SpeechGate | null;
  readonly #parts: MainThreadParts | null;
  readonly #cutter: TurnCutter;
  readonly #pieces = new PieceQueue();
  /** Scratch list for the front end's endpoint events. */
  readonly #events: EndpointEvent[] = [];
  readonly #session: ChannelSession;
  readonly #onVadEvent: (event: EndpointEvent) => void;
  readonly #maxPieceSamples: number;
  #lastPartialAt = 0;
  #badStreamReported = false;

  constructor(options: ChannelOptions) {
    this.index = options.index;
    this.name = options.name;
    this.label = options.name === null ? {} : { channel: options.index, speaker: options.name };
    this.#session = options.session;
    this.#parts = options.mainThread;
    this.#onVadEvent = options.onVadEvent;
    this.#maxPieceSamples = Math.max(1, options.maxPieceSamples);
    this.#cutter = new TurnCutter(cutterOptionsFor(options.vadType));
    this.#frontEnd = new StreamFrontEnd({
      format: options.format,
      maxBufferBytes: options.maxBufferBytes,
      initialBufferSeconds: 4,
      energyVad: options.vadType === 'energy',
      // With the speech gate the energy VAD need not reject quiet sound itself (Silero confirms every turn).
      ...(options.speechGate === null ? {} : { vad: { minEnergyDbfs: GATED_MIN_ENERGY_DBFS } }),
      endpointing: options.endpointing,
    });
    const silero = options.silero;
    this.#silero =
      options.vadType === 'silero' && silero !== null
        ? new SileroFeed(silero.openStream({ endpointing: options.endpointing, onEvent: options.onVadEvent }), silero.maxQueuedWindowsPerStream)
        : null;
    const session = options.session;
    this.#gate = options.speechGate === null ? null : new SpeechGate(options.speechGate, this.#frontEnd, () => !session.turnDetection);
  }

  /** Where audio has arrived (the same on every channel). */
  get writePosition(): number {
    return this.#frontEnd.writePosition;
  }

  /** Position up to which audio was handed to recognition, cleared or dropped as silence. */
  get committed(): number {
    return this.#cutter.committed;
  }

  /** The turn whose speech started and has not ended; null when none is open. */
  get openTurnId(): number | null {
    return this.#cutter.openTurn?.id ?? null;
  }

  /** The front end was closed (the session completed). */
  get closed(): boolean {
    return this.#frontEnd.closed;
  }

  // ---- audio in -------------------------------------------------------------------------

  /** Decodes audio into the ring; the status says what went wrong, if anything. */
  push(audio: ChannelAudio): NativeStatus {
    this.#parts?.begin('front_end');
    try {
      return this.#frontEnd.push(audio);
    } finally {
      this.#parts?.end();
    }
  }

  /** A resampler's tail (the old format's, or the stream's end), when there is one. */
  pushTail(tail: Int16Array | undefined): void {
    if (tail !== undefined && tail.length > 0) this.#frontEnd.push(tail);
  }

  /**
   * The problem a push status reports, for an `invalid_audio_data` message; null when the push
   * went fine, or for a broken container already reported (it fails every later push: said
   * once, until FORMAT resets it).
   */
  audioProblem(status: NativeStatus): string | null {
    if (status === NativeStatus.Ok) {
      this.#badStreamReported = false;
      return null;
    }
    const info = describeNativeStatus(status);
    if (info.kind === 'bad_stream') {
      if (this.#badStreamReported) return null;
      this.#badStreamReported = true;
    }
    return info.message;
  }

  /** FORMAT: the front end reads `format` from now on. */
  setFormat(format: AudioFormat): NativeStatus {
    this.#badStreamReported = false;
    return this.#frontEnd.setFormat(format);
  }

  /** End of the stream: StreamInput's resampler tail for this channel (if any), then the front end's own. */
  flush(tail: Int16Array | undefined): void {
    this.pushTail(tail);
    this.#frontEnd.flush();
  }

  // ---- VAD and cutter -------------------------------------------------------------------

  /** After the front end appended audio (push, flush, format change): VAD events and trimming. */
  afterAppend(): void {
    if (this.#gate !== null || this.#silero !== null) {
      this.#parts?.begin('silero');
      try {
        this.#gate?.followMode();
        if (this.#silero !== null) this.feedSilero();
      } finally {
        this.#parts?.end();
      }
    }
    if (this.#frontEnd.pendingEvents > 0) {
      this.#events.length = 0;
      this.#frontEnd.takeEvents(this.#events);
      if (this.#session.turnDetection) for (const event of this.#events) this.#onVadEvent(event);
    }
    this.#trimSilence();
  }

  get hasSilero(): boolean {
    return this.#silero !== null;
  }

  /** Audio that Silero (its bounded queue full) was not given yet. */
  get sileroBehind(): boolean {
    return this.#silero !== null && this.#silero.fed < this.#frontEnd.writePosition;
  }

  /** A tick: Silero gets what it could not take before (the speech gate what is due), then silence is trimmed. */
  catchUpSilero(): void {
    this.#parts?.begin('silero');
    try {
      this.#gate?.tick(performance.now());
      if (!this.sileroBehind) return;
      this.feedSilero();
    } finally {
      this.#parts?.end();
    }
    this.#trimSilence();
  }

  /** Silero gets the new audio (turn detection on) or skips it (off: it restarts when back on). */
  feedSilero(): void {
    if (!this.#session.turnDetection) this.#silero!.skipTo(this.#frontEnd.writePosition);
    else this.#silero!.feed(this.#frontEnd);
  }

  /** The end of the stream: Silero's last events for what it was given. */
  async finishSilero(): Promise<void> {
    await this.#silero!.stream.finish();
  }

  /** Drops old silence while no turn is open (turn-detection mode only). */
  #trimSilence(): void {
    if (!this.#session.turnDetection || this.#session.done) return;
    // Only audio the VAD has judged (Silero answers asynchronously) may be trimmed as silence.
    const analysed = this.#silero !== null ? this.#silero.analysed : this.#frontEnd.writePosition;
    const until = this.#cutter.trim(analysed);
    if (until !== null) this.#discardUntil(until);
  }

  /** Lets the ring drop audio before `position`, but never what a queued piece still reads from it. */
  #discardUntil(position: number): void {
    const floor = this.#pieces.ringFloor;
    this.#frontEnd.discardUntil(floor === null ? position : Math.min(position, floor));
  }

  /** A span of the ring as float samples (a copy the pool may read until the piece settles). */
  #copy(start: number, end: number): Float32Array {
    const audio = new Float32Array(end - start);
    if (audio.length > 0) this.#frontEnd.peek(start, audio);
    return audio;
  }

  /** A VAD event through the cutter: a turn started (partials wait from now on), or a piece to queue. */
  cutterStep(event: EndpointEvent): CutterStep {
    const step = this.#cutter.onEvent(event, this.#frontEnd.writePosition);
    if (step.type === 'speech_started') {
      this.#lastPartialAt = performance.now();
      this.#gate?.turnStarted(step.turnId, step.start, event.position);
    }
    return step;
  }

  /** The client left without END: events not handled yet are dropped (the final piece takes the audio). */
  dropVadEvents(): void {
    this.#events.length = 0;
    this.#frontEnd.takeEvents(this.#events);
  }

  /** TRANSCRIBE / END: everything not yet handed to recognition; null once the final piece was cut. */
  cutBuffer(kind: 'transcribe' | 'final'): CutPiece | null {
    return this.#cutter.cutBuffer(kind, this.#frontEnd.writePosition);
  }

  /**
   * Copies a cut span out of the ring, lets the ring discard it, and queues it. A TRANSCRIBE or
   * final span longer than the longest turn becomes pieces of equal length at most that long:
   * TRANSCRIBE pieces, the last of a final span the final piece; they stay in the ring and are
   * copied one at a time as they start. False when the channel then holds more than its buffer
   * (ring + pieces), unless it is the final piece.
   */
  queue(cut: CutPiece, automatic: boolean): boolean {
    const frontEnd = this.#frontEnd;
    const cutAt = performance.now();
    const span = cut.end - cut.start;
    if (cut.kind === 'turn' || span <= this.#maxPieceSamples) {
      const audio = this.#copy(cut.start, cut.end);
      this.#pieces.push({ ...cut, audio, cutAt, automatic });
      this.#gate?.pieceCut(cut, audio);
    } else {
      this.#gate?.pieceCut(cut, null);
      const count = Math.ceil(span / this.#maxPieceSamples);
      for (let i = 0; i < count; i++) {
        const start = cut.start + Math.round((span * i) / count);
        const end = cut.start + Math.round((span * (i + 1)) / count);
        const kind = i === count - 1 ? cut.kind : 'transcribe';
        this.#pieces.push({ kind, turnId: null, start, end, audio: null, cutAt, forcedSplit: false, automatic });
      }
    }
    this.#discardUntil(this.#cutter.committed);
    const held = frontEnd.buffered + this.#pieces.heldSamples;
    return held <= frontEnd.maxBufferSamples || cut.kind === 'final';
  }

  /** CLEAR: the ring is emptied; the cutter and Silero go on from the write position. */
  clear(): void {
    // Pieces still in the ring are copied out first: TRANSCRIBE before CLEAR is still answered.
    this.#pieces.copyQueued((piece) => this.#copy(piece.start, piece.end));
    this.#frontEnd.clear();
    const position = this.#frontEnd.writePosition;
    this.#cutter.clear(position);
    this.#silero?.reset(position);
    this.#gate?.clear(position);
  }

  /**
   * The session failed: queued pieces are dropped. A turn or TRANSCRIBE piece in flight is
   * followed by an empty final piece (the channel finishes when it settles); with nothing else
   * in flight the channel is finished now.
   */
  abandon(): void {
    const pieces = this.#pieces;
    const cutter = this.#cutter;
    pieces.dropQueued();
    // Nothing reads the ring any more: its storage goes back to the initial size.
    this.#frontEnd.clear();
    const inFlight = pieces.inFlight;
    if (inFlight === null || inFlight.kind === 'partial') this.finished = true;
    else if (inFlight.kind !== 'final') {
      cutter.cutBuffer('final', cutter.committed);
      const at = cutter.committed;
      pieces.push({ kind: 'final', turnId: null, start: at, end: at, audio: new Float32Array(0), cutAt: performance.now(), forcedSplit: false });
    }
  }

  // ---- pieces ---------------------------------------------------------------------------

  /** The next queued piece, now in flight (overtaking a partial: `overtakenPartial`); null while one owed an answer is in flight or none waits. */
  nextPiece(): Piece | null {
    let fromRing = false;
    const piece = this.#pieces.next((queued: QueuedPiece) => {
      fromRing = true;
      return this.#copy(queued.start, queued.end);
    });
    if (fromRing) this.#discardUntil(this.#cutter.committed);
    return piece;
  }

  /** `piece` settled (the one in flight, or the partial it overtook). */
  settle(piece: Piece): void {
    if (piece.kind !== 'partial' && piece === this.#pieces.inFlight) this.#gate?.settled(piece);
    this.#pieces.settle(piece);
  }

  /** The partial the piece in flight overtook, until it settles (piece-queue.ts). */
  get overtakenPartial(): Piece | null {
    return this.#pieces.overtaken;
  }

  /** Whether a piece holds speech (LIVE_SPEECH_GATE: Silero confirms it, maybe after a wait); null without the gate. */
  hasSpeech(piece: Piece): Promise<boolean> | null {
    return this.#gate === null ? null : this.#gate.verdict(piece, piece.audio);
  }

  /** The spans of a piece to decode (manual mode with the gate: its speech, padded); null: the whole piece. */
  speechSpans(piece: Piece): SampleSpan[] | null {
    return this.#gate?.decodeSpans(piece) ?? null;
  }

  /** Whether the open turn may show partials: without the gate always, with it once confirmed as speech. */
  get partialsAllowed(): boolean {
    const open = this.openTurnId;
    return this.#gate === null || (open !== null && this.#gate.confirmed(open));
  }

  /**
   * The open turn's latest audio (at most `maxTurnMs`) for a partial now; null when no turn is
   * open, a piece waits, the last partial is under `intervalMs` old or the span is too short.
   * A span returned counts as the channel's latest partial.
   */
  partialSpan(now: number, intervalMs: number, maxTurnMs: number): PartialSpan | null {
    const open = this.#cutter.openTurn;
    if (open === null || !this.#pieces.idle) return null;
    if (now - this.#lastPartialAt < intervalMs) return null;
    const end = this.#frontEnd.writePosition;
    const start = Math.max(open.start, end - maxTurnMs * SAMPLES_PER_MS);
    if (end - start < MIN_PARTIAL_MS * SAMPLES_PER_MS) return null;
    this.#lastPartialAt = now;
    return { turnId: open.id, start, end };
  }

  /**
   * The span copied out of the ring (from `audioStart`: a live stream has what comes before),
   * in flight as a partial piece; null when another piece came first.
   */
  startPartial(span: PartialSpan, now: number, audioStart = span.start): Piece | null {
    const audio = new Float32Array(span.end - audioStart);
    this.#frontEnd.peek(audioStart, audio);
    const piece: Piece = { kind: 'partial', turnId: span.turnId, start: span.start, end: span.end, audio, cutAt: now, forcedSplit: false, audioStart };
    return this.#pieces.startPartial(piece) ? piece : null;
  }

  /** Audio samples waiting for an answer that counts (partials excluded). */
  get pendingSamples(): number {
    return this.#pieces.pendingSamples;
  }

  /** Bytes of memory the channel's audio takes: the ring's storage (16-bit) and the pieces' copies (32-bit float). */
  get heldBytes(): number {
    return this.#frontEnd.closed ? 0 : this.#frontEnd.capacity * 2 + this.#pieces.heldSamples * 4;
  }

  /** Pieces queued plus the one in flight. */
  get pendingPieces(): number {
    return this.#pieces.count;
  }

  /** When the oldest piece still owed an answer was cut (performance.now()); undefined when none is. */
  get oldestCutAt(): number | undefined {
    return this.#pieces.oldest?.cutAt;
  }

  /** Audio Silero has not judged yet (0 without Silero). Only while the front end is open. */
  get vadBehindSamples(): number {
    return this.#silero?.behindSamples(this.#frontEnd.writePosition) ?? 0;
  }

  // ---- figures and the end --------------------------------------------------------------

  /** Adds the native front end's counters into `counters`; nothing once it is closed. */
  addCounters(counters: FrontEndCounters): void {
    const frontEnd = this.#frontEnd;
    if (frontEnd.closed) return;
    counters.decodedSamples += frontEnd.writePosition;
    counters.packetsDecoded += frontEnd.packetsDecoded;
    counters.packetsRejected += frontEnd.packetsRejected;
    counters.droppedSamples += frontEnd.droppedTotal + (this.#silero?.droppedSamples ?? 0);
  }

  /** Samples dropped: the buffer full (read while the front end is open) and Silero's full queue. */
  get droppedSamples(): number {
    return (this.#frontEnd.closed ? 0 : this.#frontEnd.droppedTotal) + (this.#silero?.droppedSamples ?? 0);
  }

  /** The session completed: the Silero stream and the native front end are freed. */
  close(): void {
    this.#gate?.close();
    this.#silero?.stream.close();
    this.#frontEnd.close();
  }
}
