// Recognition of a session's pieces and the answers it sends: `partial`, `turn_detected`,
// `transcription` and `caption` messages, and the `error` of a turn or TRANSCRIBE piece that
// failed (the session goes on). Each channel's pieces run one at a time, in order
// (piece-queue.ts), on the shared pool.
//
// Rules: two passes. A partial comes from the channel's live stream (issue 30; a model with a
// streaming step graph and LIVE_INCREMENTAL_PARTIALS=on): only the audio since the last partial
// is fed, the stream's model state and beam are kept between partials, and `stable_text` is
// what every beam prefix starts with; a stream whose state was lost restarts from the turn's
// start. Without one, a partial is one model run over the open turn. Partials run only while
// the session is open and its socket attached; under overload one due partial in `partialEvery`
// runs (stream-capacity.ts), the others skipped and charged as demand once per stretch of audio.
// A turn, TRANSCRIBE or final piece cut while its channel's partial computes does not wait for
// it: the partial is stale and is cancelled (its live stream closed, its pool request aborted)
// unless the turn's text comes from that stream (LIVE_FINAL_PASS=stream), which then waits for
// the step only.
// A turn, TRANSCRIBE or the final piece is decoded from its whole (padded) audio the way REST
// decodes a file, so its text equals the REST text for that audio (the second pass; with
// LIVE_FINAL_PASS=stream a turn with a live stream of the session's own model is transcribed
// from the stream's frames instead; LIVE_PARTIAL_MODELS may give a session's partials to another
// model's stream, whose frames never make a turn's text). Text sent in turn_detected never
// changes. With the speech gate (LIVE_SPEECH_GATE=on, session-speech-gate.ts) a piece is decoded
// only once Silero has confirmed speech in it (a turn, TRANSCRIBE or final piece without speech
// gives no text; in manual mode only its speech spans are decoded), and a partial only for a
// confirmed open turn. Owns the session's language and model: a session opened without a model
// gets both from language detection on its first piece (pieces that start meanwhile share that
// detection); a partial is that piece only once its turn holds DETECTION_MIN_PARTIAL_MS. When a channel's final piece settles, the channel is
// finished and the session is told (it completes once every channel is).
import { performance } from 'node:perf_hooks';
import { audioBandOf, type InferenceCost, type LiveTurnStream, type PieceOptions, type PieceTranscription } from '../engines/asr/asr.js';
import { STREAM_FORMAT_SAMPLE_RATE } from '../engines/signal/signal.js';
import type { Segment, SegmentWord } from '../platform/db/job-records.js';
import type { ApiError } from '../platform/errors/api-error.js';
import type { Piece } from './piece-queue.js';
import { SessionCaptions } from './session-captions.js';
import type { SessionChannel } from './session-channel.js';
import { errorMessage, toApiError } from './session-errors.js';
import type { SessionStats } from './session-stats.js';
import { SAMPLES_PER_MS, toMs } from './session-time.js';
import type { SessionTranscript } from './session-transcript.js';
import type { SessionDeps } from './session-types.js';
import type { SessionSettings } from './ws-query.js';
import type { SessionSink } from './ws-sender.js';

/** A session opened without a model: the shortest open turn whose partial may detect its language. */
export const DETECTION_MIN_PARTIAL_MS = 3_000;

export interface RecognitionOptions {
  readonly sessionId: string;
  readonly settings: SessionSettings;
  readonly channels: readonly SessionChannel[];
  readonly sink: SessionSink;
  readonly deps: SessionDeps;
  readonly transcript: SessionTranscript;
  readonly statistics: SessionStats;
  /** Whether the session is still open (a partial that settles later is not sent). */
  readonly isOpen: () => boolean;
  /** A channel's final piece settled (that channel is finished now). */
  readonly onFinalSettled: () => void;
}

/**
 * A channel's live stream: its open turn, the sample its audio starts at, and the sample up to
 * which it was fed (null: restart it from the turn's start).
 */
interface LivePartials {
  readonly turnId: number;
  readonly stream: LiveTurnStream;
  from: number;
  fedTo: number | null;
  /** The last step (settles, never rejects; already settled when none is in flight). */
  stepping: Promise<void>;
}

/** What a piece's recognition gave (a turn's segments; a partial's stable words). */
interface PieceRecognition {
  readonly text: string;
  readonly confidence: number | null;
  readonly inference: InferenceCost | null;
  readonly segments?: readonly Segment[];
  readonly stableText?: string;
}

export class SessionRecognition {
  #language: string;
  #model: string | null;
  readonly #captions: SessionCaptions;
  readonly #live = new Map<SessionChannel, LivePartials>();
  /** Partials computing as one model run over the open turn, to abort when a turn overtakes them. */
  readonly #partialRuns = new Map<Piece, AbortController>();
  /** Language detection in flight (or done) for a session opened without a model. */
  #detecting: Promise<string> | null = null;
  /** Per channel, the turn of the last partials skipped in a row, how many, and the sample up to which their audio was counted as shed. */
  readonly #shedTo = new Map<SessionChannel, { readonly turnId: number; readonly to: number; readonly skipped: number }>();
  /** Whether this session's partials come from live streams (as configured until a stream was opened or refused). */
  #partialsStream: boolean;

  constructor(private readonly options: RecognitionOptions) {
    this.#language = options.settings.language;
    this.#model = options.settings.model;
    this.#captions = new SessionCaptions(options.settings.captions);
    this.#partialsStream = options.deps.streaming.incrementalPartials && options.deps.recognizer.openPartialStream !== undefined;
  }

  get language(): string {
    return this.#language;
  }

  /** null until detected (a session opened without a model). */
  get model(): string | null {
    return this.#model;
  }

  /** partial_results=true: a partial of the channel's open turn when one is due and the pool is free for it. */
  maybePartial(channel: SessionChannel, now: number): void {
    const { settings, sink, deps } = this.options;
    // No partials for a session without a socket (parked): nobody would read them.
    if (!settings.partialResults || !sink.open || !channel.partialsAllowed) return;
    const span = channel.partialSpan(now, deps.streaming.partialIntervalMs, deps.streaming.maxTurnMs);
    if (span === null) return;
    // language=auto: the first piece decides the session's language, so a partial may be that
    // piece only once its turn holds enough audio to tell (half a second named the wrong one)
    if (this.#model === null && this.#detecting === null && span.end - span.start < DETECTION_MIN_PARTIAL_MS * SAMPLES_PER_MS) return;
    const current = this.#live.get(channel);
    const fedTo = current?.turnId === span.turnId ? current.fedTo : null;
    // nothing new since the last partial: nothing to compute
    if (fedTo === span.end) return;
    const audioStart = fedTo !== null && fedTo >= span.start && fedTo < span.end ? fedTo : span.start;
    // overload: one due partial in `every` is computed (0: none), the others skipped
    const every = deps.partialEvery?.() ?? 1;
    const shed = this.#shedTo.get(channel);
    const own = shed !== undefined && shed.turnId === span.turnId ? shed : null;
    if (every === 0 || (own?.skipped ?? 0) + 1 < every) {
      // what the skipped partial would have decoded that no earlier partial or skip counted: a
      // skip every interval charges each stretch of audio once (a partial that re-runs the open
      // turn would have decoded all of it)
      const from = !this.#partialsStream ? span.start : own !== null ? Math.max(audioStart, own.to) : audioStart;
      this.#shedTo.set(channel, { turnId: span.turnId, to: span.end, skipped: (own?.skipped ?? 0) + 1 });
      if (span.end > from) deps.observe?.partialSkipped?.((span.end - from) / (SAMPLES_PER_MS * 1000));
      return;
    }
    this.#shedTo.delete(channel);
    this.#livePartials(channel, span.turnId);
    const piece = channel.startPartial(span, now, audioStart);
    if (piece !== null) void this.#run(channel, piece);
  }

  /** Ends every channel's live stream (the session is over). Idempotent. */
  close(): void {
    for (const live of this.#live.values()) live.stream.close();
    this.#live.clear();
    this.#shedTo.clear();
  }

  /** The channel's live stream for `turnId` (a new one for a new turn); null when partials re-run the turn. */
  #livePartials(channel: SessionChannel, turnId: number): LivePartials | null {
    const { deps, settings } = this.options;
    const current = this.#live.get(channel);
    if (current?.turnId === turnId) return current;
    if (current !== undefined) {
      current.stream.close();
      this.#live.delete(channel);
    }
    if (!deps.streaming.incrementalPartials || this.#model === null || deps.recognizer.openPartialStream === undefined) return null;
    const stream = deps.recognizer.openPartialStream(this.#model, settings.keyterms ?? null);
    this.#partialsStream = stream !== null;
    if (stream === null) return null;
    const live: LivePartials = { turnId, stream, from: -1, fedTo: null, stepping: Promise.resolve() };
    this.#live.set(channel, live);
    return live;
  }

  /** A turn's recognition settled: its live stream (if any) is over; `null`: whatever stream the channel has. */
  #endLivePartials(channel: SessionChannel, turnId: number | null): void {
    const live = this.#live.get(channel);
    if (live === undefined || (turnId !== null && live.turnId !== turnId)) return;
    live.stream.close();
    this.#live.delete(channel);
  }

  /** A partial from the channel's live stream: `piece.audio` (from `audioStart`) is what the stream has not had yet. */
  async #streamPartial(live: LivePartials, piece: Piece): Promise<{ text: string; stableText: string; confidence: null; inference: InferenceCost }> {
    const restart = (piece.audioStart ?? piece.start) === piece.start;
    if (!restart && live.fedTo !== piece.audioStart) throw new Error('the partial does not follow what the live stream was fed');
    live.fedTo = null;
    if (restart) live.from = piece.start;
    // the worker takes a copy; the piece keeps its audio until it settles
    const step = live.stream.step(piece.audio.slice(), restart).then((partial) => {
      live.fedTo = piece.end;
      return partial;
    });
    // what a turn's stream final waits for: fedTo is set before it settles
    live.stepping = step.then(ignore, ignore);
    const partial = await step;
    return {
      text: partial.text,
      stableText: partial.stableText,
      confidence: null,
      inference: { workerMs: partial.workerMs, batchSize: partial.batchSize, queueWaitMs: partial.queueWaitMs },
    };
  }

  /** Starts the channel's next queued piece, unless one owed an answer is in flight (a partial in flight is overtaken). */
  pump(channel: SessionChannel): void {
    const computing = channel.overtakenPartial;
    const piece = channel.nextPiece();
    if (piece === null) return;
    const overtaken = channel.overtakenPartial;
    if (overtaken !== null && overtaken !== computing) this.#cancelPartial(channel, overtaken, piece);
    void this.#run(channel, piece);
  }

  /**
   * `partial` was overtaken by `piece`: its answer will not be sent, so its work is withdrawn
   * (a step still waiting in the pool, a model run still queued); what already runs settles on
   * its own. A turn whose text comes from the same live stream keeps it (#streamFinal waits for the step).
   */
  #cancelPartial(channel: SessionChannel, partial: Piece, piece: Piece): void {
    this.#partialRuns.get(partial)?.abort(new PartialOvertakenError());
    const live = this.#live.get(channel);
    if (live === undefined || live.turnId !== partial.turnId) return;
    if (this.#streamGivesTurn(live, piece)) return;
    live.stream.close();
    this.#live.delete(channel);
  }

  /** Whether `piece`'s text comes from the live stream's frames (LIVE_FINAL_PASS=stream, the session's own model). */
  #streamGivesTurn(live: LivePartials, piece: Piece): boolean {
    return piece.kind === 'turn' && live.turnId === piece.turnId && this.options.deps.streaming.finalPass === 'stream' && live.stream.model === this.#model;
  }

  async #run(channel: SessionChannel, piece: Piece): Promise<void> {
    const { deps } = this.options;
    let recognition: PieceRecognition | null = null;
    // the audio this piece's recognition computed (a stream final: only what the partials had not fed)
    let audioSeconds = piece.audio.length / (SAMPLES_PER_MS * 1000);
    let error: ApiError | null = null;
    const startedAt = performance.now();
    const kind = piece.kind;
    if (kind !== 'partial') deps.observe?.pieceWait?.(kind, 'session_queue', startedAt - piece.cutAt);
    try {
      const worth = piece.audio.length > 0 && (piece.kind !== 'final' || hasSignal(piece.audio));
      const verdict = worth && piece.kind !== 'partial' ? channel.hasSpeech(piece) : null;
      const speech = verdict === null ? true : await verdict;
      if (verdict !== null && kind !== 'partial') deps.observe?.pieceWait?.(kind, 'speech_verdict', performance.now() - startedAt);
      if (!speech) {
        deps.logger.debug({ kind: piece.kind, turnId: piece.turnId, startMs: toMs(piece.start), endMs: toMs(piece.end) }, 'piece without speech not decoded');
      } else if (worth) {
        const model = this.#model ?? (await this.#detectLanguage(piece.audio));
        const options = { model, startMs: toMs(piece.start), keyterms: this.options.settings.keyterms ?? null };
        const live = this.#live.get(channel);
        const own = live !== undefined && live.turnId === piece.turnId ? live : null;
        // overtaken while language detection ran: nothing of it is worth computing
        if (piece === channel.overtakenPartial) audioSeconds = 0;
        else if (piece.kind === 'partial' && own !== null) recognition = await this.#streamPartial(own, piece);
        else if (piece.kind === 'partial') recognition = await this.#runPartial(piece, options);
        // a stream of another model (LIVE_PARTIAL_MODELS) never gives the turn's text: the session's model decodes it
        else if (own !== null && this.#streamGivesTurn(own, piece))
          recognition = await this.#streamFinal(channel, own, piece, options, (samples) => {
            audioSeconds = samples / (SAMPLES_PER_MS * 1000);
          });
        else recognition = await this.#transcribe(channel, piece, options);
      }
    } catch (caught) {
      error = toApiError(caught);
      // an overtaken partial's cancelled work is no failure
      if (piece === channel.overtakenPartial) deps.logger.debug({ err: caught, turnId: piece.turnId }, 'stale partial ended');
      else deps.logger.warn({ err: caught, session: this.options.sessionId }, 'streaming recognition failed');
    }
    deps.mainThread?.begin('results');
    try {
      this.#settled(channel, piece, recognition, audioSeconds, error);
    } finally {
      deps.mainThread?.end();
    }
  }

  /** A session opened without a model: its language and model from its first piece (a piece that starts meanwhile waits for that answer). */
  #detectLanguage(pcm: Float32Array): Promise<string> {
    // an 8 kHz session runs on the detected language's telephone model, as ws-query.ts picks it for a named language
    const band = audioBandOf(STREAM_FORMAT_SAMPLE_RATE[this.options.settings.format]);
    this.#detecting ??= this.options.deps.recognizer.detectLanguage(pcm, undefined, band).then(
      (detected) => {
        this.#language = detected.language;
        this.#model = detected.model;
        return detected.model;
      },
      (error: unknown) => {
        // the next piece tries again
        this.#detecting = null;
        throw error;
      },
    );
    return this.#detecting;
  }

  /** A partial as one model run over the open turn, aborted if a turn overtakes it. */
  async #runPartial(piece: Piece, options: PieceOptions): Promise<PieceRecognition> {
    const controller = new AbortController();
    this.#partialRuns.set(piece, controller);
    try {
      return await this.options.deps.recognizer.recognizePiece(piece.audio, { ...options, signal: controller.signal });
    } finally {
      this.#partialRuns.delete(piece);
    }
  }

  /** A piece's recognition (or error) delivered, then the channel's next piece. */
  #settled(channel: SessionChannel, piece: Piece, recognition: PieceRecognition | null, audioSeconds: number, error: ApiError | null): void {
    const { deps, sink } = this.options;
    // an overtaken partial's answer is stale: never sent
    const stale = piece === channel.overtakenPartial;
    channel.settle(piece);
    if (piece.kind !== 'partial') this.#endLivePartials(channel, piece.kind === 'turn' ? piece.turnId : null);
    deps.observe?.piece?.(piece.kind, performance.now() - piece.cutAt, audioSeconds, recognition?.inference ?? null);
    if (error !== null && piece.kind !== 'final' && piece.kind !== 'partial') sink.send(errorMessage(error, null));
    // A turn's words: those of the segments its text joins (stream ms); partials carry none.
    const words = recognition?.segments?.flatMap((segment) => segment.words ?? []) ?? [];
    if (!stale) this.#deliver(channel, piece, recognition?.text.trim() ?? '', recognition?.confidence ?? null, words, recognition?.stableText);
    if (piece.kind === 'final') {
      channel.finished = true;
      this.options.onFinalSettled();
      return;
    }
    this.pump(channel);
  }

  /**
   * LIVE_FINAL_PASS=stream: a turn transcribed from the frames its live stream computed (the
   * audio after the last partial is fed, the last frames finished), no second pass. A stream
   * that does not cover the turn from its start, or that fails, gives way to the second pass.
   */
  async #streamFinal(
    channel: SessionChannel,
    live: LivePartials,
    piece: Piece,
    options: PieceOptions,
    onStreamed: (newSamples: number) => void,
  ): Promise<PieceTranscription | null> {
    // a partial this turn overtook may still be stepping the stream: its frames come first
    await live.stepping;
    const fedTo = live.fedTo;
    if (this.#live.get(channel) === live) this.#live.delete(channel);
    if (fedTo === null || live.from !== piece.start) {
      live.stream.close();
      return this.#transcribe(channel, piece, options);
    }
    const rest = fedTo < piece.end ? piece.audio.slice(fedTo - piece.start) : new Float32Array(0);
    try {
      // audio the partials fed past the turn's end (endpoint silence) stays in the stream; words are timed within the turn
      const final = await live.stream.finish(rest.slice(), false, { startMs: toMs(piece.start), samples: piece.end - piece.start });
      onStreamed(rest.length);
      return final;
    } catch (error) {
      this.options.deps.logger.debug({ err: error, turnId: piece.turnId }, 'live stream final failed; second pass');
      live.stream.close();
      return this.#transcribe(channel, piece, options);
    }
  }

  /** A turn, TRANSCRIBE or final piece decoded as REST decodes a file: whole, or (manual mode with the gate) its speech spans. */
  async #transcribe(channel: SessionChannel, piece: Piece, options: PieceOptions): Promise<PieceTranscription | null> {
    const { recognizer } = this.options.deps;
    const spans = channel.speechSpans(piece);
    if (spans === null) return recognizer.transcribePiece(piece.audio, options);
    if (spans.length === 0) return null;
    const parts = await Promise.all(
      spans.map((span) =>
        recognizer.transcribePiece(piece.audio.subarray(span.start - piece.start, span.end - piece.start), { ...options, startMs: toMs(span.start) }),
      ),
    );
    const segments = parts.flatMap((part) => part.segments);
    const scored = segments.filter((segment) => segment.confidence !== null);
    const costs = parts.flatMap((part) => (part.inference === null ? [] : [part.inference]));
    return {
      text: parts
        .map((part) => part.text.trim())
        .filter((text) => text.length > 0)
        .join(' '),
      confidence: scored.length === 0 ? null : scored.reduce((sum, segment) => sum + segment.confidence!, 0) / scored.length,
      segments,
      inference:
        costs.length === 0
          ? null
          : { workerMs: costs.reduce((sum, cost) => sum + cost.workerMs, 0), batchSize: 1, queueWaitMs: Math.max(...costs.map((cost) => cost.queueWaitMs)) },
    };
  }

  #deliver(channel: SessionChannel, piece: Piece, text: string, confidence: number | null, words: readonly SegmentWord[], stableText?: string): void {
    const { deps, sink, settings, transcript, statistics, channels } = this.options;
    const now = performance.now();
    if (piece.kind === 'partial') {
      const openTurnId = channel.openTurnId;
      if (openTurnId === null || openTurnId !== piece.turnId || !this.options.isOpen()) return;
      sink.send({ ...transcript.partial(openTurnId, piece, text, channel.index, stableText), ...channel.label });
      return;
    }
    // A turn with no words (noise, a cough, a click the VAD took for speech) is dropped: no
    // turn_detected, no automatic transcription; the client discards its partials when the
    // next speech_started comes.
    if (piece.kind === 'turn' && text.length === 0) {
      deps.logger.debug({ turnId: piece.turnId, startMs: toMs(piece.start), endMs: toMs(piece.end) }, 'turn without words dropped');
      return;
    }
    const segments = transcript.commit(piece, text, confidence, channel.name === null ? undefined : { channel: channel.index, speaker: channel.name }, words);
    const caption = this.#captions.next(segments);
    if (caption !== null) sink.send(caption);
    const latency = Math.max(0, Math.round(now - statistics.arrivalOf(piece.end, now)));
    const processing = Math.round(now - piece.cutAt);
    statistics.addLatency(latency);
    const common = {
      text,
      segments,
      start_ms: toMs(piece.start),
      end_ms: toMs(piece.end),
      language: this.#language,
      model: this.#model,
      latency_ms: latency,
      processing_ms: processing,
    };
    if (piece.kind === 'turn') {
      statistics.turns++;
      deps.observe?.turnLatency?.(latency);
      if (settings.serverVad) sink.send({ type: 'turn_detected', turn_id: piece.turnId!, ...common, forced_split: piece.forcedSplit, ...channel.label });
      // opus_raw_16k transcribes turns automatically (spec), with or without server_vad.
      if (!piece.automatic) return;
    }
    statistics.transcriptions++;
    // channels=2: every channel ends with its own final piece; the last one is the session's final.
    const final = piece.kind === 'final' && channels.every((other) => other === channel || other.finished);
    sink.send({
      type: 'transcription',
      ...common,
      is_final: final,
      turn_id: piece.turnId,
      ...(final ? { full_text: transcript.fullText } : {}),
      ...channel.label,
    });
  }
}

function ignore(): void {}

/** Whether a final piece is worth recognising (any sample above -60 dBFS). */
function hasSignal(audio: Float32Array): boolean {
  for (let i = 0; i < audio.length; i++) if (Math.abs(audio[i]!) > 0.001) return true;
  return false;
}

/** Ends the model run of a partial that a turn overtook (its answer would not be sent). */
class PartialOvertakenError extends Error {
  constructor() {
    super('the partial was overtaken by its turn');
    this.name = 'PartialOvertakenError';
  }
}
