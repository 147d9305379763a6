// The live speech gate of one channel (LIVE_SPEECH_GATE=on; docs/streaming.md "Speech gate"):
// nothing is decoded, and no text is sent, for audio that the shared Silero VAD does not
// confirm as speech. Tones, music and noise open energy-VAD turns; without the gate each such
// turn was decoded and its invented letters sent as a turn.
//
// Rules:
// - The gate has its own stream on the shared, batched Silero VAD (vad.ts), whatever the
//   session's vad_type, and keeps what it learns in a SpeechEvidence (speech-evidence.ts): a
//   run of GATE_MIN_RUN_WINDOWS windows (256 ms) at GATE_THRESHOLD or above is speech.
// - With turn detection, each turn is a region from its padded start; Silero hears it from
//   the VAD's first speech frame until a speech run confirms it, then stops (a spoken turn
//   costs about 10 Silero windows; silence costs nothing). A turn not confirmed is heard to
//   its end. A turn piece is decoded only when its region was confirmed; other pieces
//   (TRANSCRIBE, the final piece) when they overlap a confirmed turn or a speech run, and one
//   that overlaps no turn is heard whole first (speech too quiet for the energy VAD).
// - Without turn detection (manual mode) Silero hears all the audio; a piece is decoded only
//   where it holds speech runs (padded, see `decodeSpans`).
// - Silero reads the channel's ring, and a piece's own copy once the ring has let it go; audio
//   that is in neither (CLEAR) is skipped. It is fed from the session ticker every PUMP_MS, on
//   the same ticks for all sessions, so their windows meet in the worker's batches (fed on each
//   audio message, a stream's windows went alone), within the stream's bounded queue; while a
//   piece waits for its verdict, on each answer. What Silero hears has its DC offset removed
//   (DC_POLE) and is levelled up (LEVEL_*: quiet speech is raised toward a normal level, as the
//   file gate levels each piece, src/engines/asr/recognition/speech-gate.ts).
// - A partial of the open turn is allowed only once the turn is confirmed.
// - Fails open: when the Silero stream is closed or failed, every piece counts as speech
//   (the session goes on as without the gate).
import type { StreamFrontEnd } from '../engines/signal/signal.js';
import { SILERO_INPUT_LEVEL_DBFS, SILERO_MAX_INPUT_GAIN_DB, SILERO_WINDOW, type SileroVad, type SileroVadStream } from '../engines/vad/vad.js';
import { paddedSpans, type SampleSpan, SpeechEvidence } from './speech-evidence.js';

const WINDOW = SILERO_WINDOW;
/** Silero probability at which a window counts as speech. */
export const GATE_THRESHOLD = 0.5;
/**
 * Consecutive speech windows (32 ms each) that confirm speech: 256 ms. Measured (10 s each, the
 * shipped Silero v5): pink noise, 425 Hz tones, ringback, busy, DTMF never had a window at 0.5;
 * a synthetic chord melody at -30 to -12 dBFS at most 5 in a row; 24 held-out ALFFA and
 * synthetic am/om/ti utterances at least 24 in a row.
 */
export const GATE_MIN_RUN_WINDOWS = 8;
/**
 * Silero starts at the VAD's first speech frame: the endpointer's speech start is 200 ms before it
 * (its pre-pad). Measured (bench/ws-live-streams.ts audio, 33 turns): from the padded start a turn
 * took 19 windows to confirm, from the first speech frame 9 (the 8 of the run and one more).
 */
const ONSET_PAD = 200 * 16;
/**
 * How often the ticker feeds Silero. Measured (bench/ws-live-streams.ts, 100 streams, 500 turns):
 * fed on every 50 ms tick the gate's windows ran 1.4 to a batch.
 */
const PUMP_MS = 200;
/**
 * Silero hears the audio without its DC offset: ALFFA recordings carry about -0.125 (-18 dBFS), and
 * a Silero stream started on such audio mid-utterance scored 0.1 to 0.3 where the same audio without
 * the offset scored 0.9 and more (a stream that starts in the silence before the speech adapts).
 * With the offset removed, on bench/robustness-corpus.ts's speech (24 utterances per condition:
 * clean, 30 dB quieter, pink, white, hum, music and keyboard noise at 5 dB SNR) every utterance had
 * a run of 15 windows or more, and none of its non-speech (noises, hum, telephone tones, music,
 * clicks, keyboard, room tone) more than 2.
 */
const DC_POLE = 0.995;
/**
 * Levelling before Silero: a gain of at most SILERO_MAX_INPUT_GAIN_DB (never below 1) brings the
 * signal's envelope (its power, following rises within LEVEL_ATTACK and falls within LEVEL_RELEASE)
 * up to SILERO_INPUT_LEVEL_DBFS, the level the file gate raises each piece to. In bench/robustness.ts
 * without levelling, 4 of 6 held-out utterances 30 dB quieter (about -50 dBFS) gave no speech run;
 * the file gate, levelled so, still hears 98.6% of non-speech clips as nothing (noise from -70
 * dBFS, tones, music), so a raised floor does not make noise speech.
 */
const LEVEL_TARGET = 10 ** (SILERO_INPUT_LEVEL_DBFS / 20);
const LEVEL_MAX_GAIN = 10 ** (SILERO_MAX_INPUT_GAIN_DB / 20);
const LEVEL_ATTACK = 1 - Math.exp(-1 / (0.005 * 16_000));
const LEVEL_RELEASE = 1 - Math.exp(-1 / (1.5 * 16_000));
/** The region id of a TRANSCRIBE or final piece heard outside every turn (turn ids start at 1). */
const UNCUT = -1;
/** A verdict without progress this long (and nothing queued in Silero) counts as speech. */
const STALL_MS = 5_000;
/**
 * Manual-mode pieces decode their speech runs padded like live turns (turn-cutter.ts): 700 ms
 * before, 500 ms after; gaps under 3 s are joined (decoded with the speech around them: in noise
 * Silero loses words inside an utterance, and a word cut off its sentence reads worse).
 */
const SPAN_PADDING = { before: 700 * 16, after: 500 * 16, joinGap: 3_000 * 16 };

/** What the gate asks about a piece. */
export interface GatePiece {
  readonly kind: 'turn' | 'transcribe' | 'final' | 'partial';
  readonly turnId: number | null;
  readonly start: number;
  readonly end: number;
}

interface Region {
  readonly turnId: number;
  readonly start: number;
  /** Where Silero starts hearing it (the VAD's onset). */
  readonly feedFrom: number;
  /** null while the turn is open. */
  end: number | null;
  state: 'pending' | 'speech' | 'none';
}

export class SpeechGate {
  readonly #vad: SileroVad;
  readonly #stream: SileroVadStream;
  readonly #evidence = new SpeechEvidence({ windowSamples: WINDOW, threshold: GATE_THRESHOLD, minRunWindows: GATE_MIN_RUN_WINDOWS });
  readonly #frontEnd: Pick<StreamFrontEnd, 'readPosition' | 'writePosition' | 'peek'>;
  readonly #maxQueuedWindows: number;
  readonly #manual: () => boolean;
  /** Turns in stream order (turn detection only). */
  readonly #regions: Region[] = [];
  /** Copies of pieces whose audio the ring may have let go, until the gate has heard them. */
  readonly #sources: Array<{ readonly start: number; readonly end: number; readonly audio: Float32Array }> = [];
  readonly #waiters: Array<() => void> = [];
  /** Position up to which audio went to the Silero stream. */
  #fed = 0;
  /** Manual mode: Silero hears everything from here on. */
  #manualFrom: number | null = null;
  #failed = false;
  /** The DC blocker's and leveller's state (last input and output, power envelope; `fresh`: restart at the next sample). */
  readonly #dc = { x: 0, y: 0, envelope: 0, fresh: true };
  /** Where the gate started (the stream position when the channel opened). */
  readonly #startPosition: number;
  #modeKnown = false;
  #lastPump = -1;
  #scratch = new Float32Array(0);

  constructor(vad: SileroVad, frontEnd: Pick<StreamFrontEnd, 'readPosition' | 'writePosition' | 'peek'>, manual: () => boolean) {
    this.#vad = vad;
    this.#frontEnd = frontEnd;
    this.#maxQueuedWindows = vad.maxQueuedWindowsPerStream;
    this.#manual = manual;
    this.#stream = vad.openStream({
      startPosition: frontEnd.writePosition,
      onProbability: (probability, end) => {
        this.#evidence.add(probability, end);
        this.#decide();
      },
    });
    this.#startPosition = frontEnd.writePosition;
    this.#fed = this.#startPosition;
    this.#evidence.reset(this.#fed);
  }

  // ---- what the channel tells it ---------------------------------------------------------

  /** A turn opened at `start` (padded); `onset`: the VAD's speech start (its first speech frame less ONSET_PAD). */
  turnStarted(turnId: number, start: number, onset: number): void {
    this.#regions.push({ turnId, start, feedFrom: Math.max(start, onset + ONSET_PAD), end: null, state: 'pending' });
  }

  /** A piece was cut (`audio`: its copy, when made at once). A turn's region ends with it, and the final piece ends any open one. */
  pieceCut(piece: GatePiece, audio: Float32Array | null): void {
    const region = piece.kind === 'turn' ? this.#region(piece.turnId) : piece.kind === 'final' ? this.#regions.find((r) => r.end === null) : undefined;
    if (piece.kind === 'turn' && region === undefined && piece.turnId !== null) {
      // A speech end without its start (the gate joined mid-turn): heard as a whole.
      this.#regions.push({ turnId: piece.turnId, start: piece.start, feedFrom: piece.start, end: piece.end, state: 'pending' });
    } else if (region !== undefined && region.end === null) {
      region.end = Math.max(region.start, piece.end);
    }
    if (audio !== null && this.#needs(piece)) this.#sources.push({ start: piece.start, end: piece.end, audio });
    this.#decide();
  }

  /** CLEAR: the open turn is gone; audio before `position` left the ring. */
  clear(position: number): void {
    const open = this.#regions.findIndex((r) => r.end === null);
    if (open >= 0) this.#regions.splice(open, 1);
    if (this.#manualFrom !== null) this.#manualFrom = Math.max(this.#manualFrom, position);
    this.#decide();
  }

  /** The piece settled: what lies before it is never asked about again. */
  settled(piece: GatePiece): void {
    this.#evidence.prune(piece.start);
    let drop = 0;
    while (drop < this.#regions.length && this.#regions[drop]!.state !== 'pending' && (this.#regions[drop]!.end ?? Infinity) <= piece.end) drop++;
    this.#regions.splice(0, drop);
  }

  /** The session completed: the Silero stream is closed; anyone still waiting is answered. */
  close(): void {
    this.#failed = true;
    this.#stream.close();
    this.#sources.length = 0;
    this.#wake();
  }

  // ---- what the session asks -------------------------------------------------------------

  /** Whether the open turn `turnId` has been confirmed as speech (a partial may show it). */
  confirmed(turnId: number): boolean {
    return this.#failed || this.#region(turnId)?.state === 'speech';
  }

  /** Whether `piece` holds speech; waits until Silero has heard enough of it. `audio`: its copy, for what the ring let go. */
  async verdict(piece: GatePiece, audio: Float32Array): Promise<boolean> {
    const source = { start: piece.start, end: piece.start + audio.length, audio };
    // TRANSCRIBE or the final piece outside every turn (speech the VAD did not take for a turn,
    // quiet speech for one): Silero hears it as a turn of its own.
    const outside = piece.kind !== 'turn' && this.#manualFrom === null && !this.#failed;
    if (outside && piece.end > piece.start && !this.#regions.some((r) => r.start < piece.end && (r.end ?? Infinity) > piece.start)) {
      this.#regions.push({ turnId: UNCUT, start: piece.start, feedFrom: piece.start, end: piece.end, state: 'pending' });
    }
    // A failed Silero worker answers nothing more: looked at now and then, not only on answers. A
    // verdict that makes no progress for STALL_MS with nothing in Silero's queue is given up: the
    // piece counts as speech (decoded as without the gate) rather than hold the session.
    let mark = -1;
    let still = 0;
    const watch = setInterval(() => {
      const now = this.#fed + this.#evidence.analysed;
      still = now === mark && this.#stream.pending === 0 ? still + 250 : 0;
      mark = now;
      this.#wake();
    }, 250);
    try {
      for (let registered = false; ; ) {
        if (this.#vad.closed) this.#fail();
        if (still >= STALL_MS) return true;
        const answer = this.#answer(piece);
        if (answer !== null) return answer;
        if (!registered && audio.length > 0) {
          this.#sources.push(source);
          registered = true;
        }
        this.pump();
        if (this.#answer(piece) !== null) continue;
        await new Promise<void>((resolve) => this.#waiters.push(resolve));
      }
    } finally {
      clearInterval(watch);
      const at = this.#sources.indexOf(source);
      if (at >= 0) this.#sources.splice(at, 1);
    }
  }

  /**
   * The spans of a confirmed non-turn piece to decode, in manual mode (where Silero heard it
   * all): its speech runs padded and joined; null: decode the whole piece.
   */
  decodeSpans(piece: GatePiece): SampleSpan[] | null {
    if (this.#failed || piece.kind === 'turn' || this.#manualFrom === null || piece.start < this.#manualFrom) return null;
    const spans = paddedSpans(this.#evidence.spans(piece.start, piece.end), piece, SPAN_PADDING);
    return spans.length === 1 && spans[0]!.start === piece.start && spans[0]!.end === piece.end ? null : spans;
  }

  // ---- feeding -----------------------------------------------------------------------------

  /**
   * The session ticker's feed: every PUMP_MS (the same ticks for every session, so their windows
   * share the worker's batches).
   */
  tick(now: number): void {
    const slot = Math.floor(now / PUMP_MS);
    if (slot === this.#lastPump) return;
    this.#lastPump = slot;
    this.pump();
  }

  /** Feeds Silero what it should hear next, as far as its bounded queue takes. */
  pump(): void {
    if (this.#failed) return;
    this.followMode();
    for (let guard = 0; guard < 4; guard++) {
      const target = this.#target();
      if (target === null) return;
      const range = this.#available(Math.max(this.#fed, target.from), target.to);
      if (range === null) return;
      if (range.from !== this.#fed) {
        this.#stream.reset(range.from);
        this.#evidence.reset(range.from);
        this.#fed = range.from;
        this.#dc.fresh = true;
      }
      const room = (this.#maxQueuedWindows - this.#stream.pending - 1) * WINDOW;
      const take = Math.min(room, range.to - range.from);
      if (take <= 0) return;
      if (this.#scratch.length < take) this.#scratch = new Float32Array(take);
      const view = this.#scratch.subarray(0, take);
      range.read(view);
      this.#condition(view);
      if (this.#stream.feed(view) === 'closed') return this.#fail();
      this.#fed += take;
    }
  }

  /**
   * What Silero hears, in place: the DC offset removed (a one-pole high-pass, about 13 Hz), then
   * levelled up (LEVEL_*). Both continue across contiguous feeds; a new stretch starts from its
   * first samples (its first input, the power of its first window), so no step is fed.
   */
  #condition(samples: Float32Array): void {
    const dc = this.#dc;
    if (dc.fresh && samples.length > 0) {
      dc.x = samples[0]!;
      dc.y = 0;
      let power = 0;
      const head = Math.min(samples.length, WINDOW);
      for (let i = 0; i < head; i++) power += (samples[i]! - dc.x) ** 2;
      dc.envelope = power / head;
      dc.fresh = false;
    }
    let { x, y, envelope } = dc;
    for (let i = 0; i < samples.length; i++) {
      const input = samples[i]!;
      y = input - x + DC_POLE * y;
      x = input;
      const power = y * y;
      envelope += (power > envelope ? LEVEL_ATTACK : LEVEL_RELEASE) * (power - envelope);
      const gain = envelope > 0 ? Math.min(LEVEL_MAX_GAIN, Math.max(1, LEVEL_TARGET / Math.sqrt(envelope))) : LEVEL_MAX_GAIN;
      samples[i] = y * gain;
    }
    dc.x = x;
    dc.y = y;
    dc.envelope = envelope;
  }

  /**
   * Manual mode (no turn detection) from the stream's start, or from a FORMAT command to or from
   * opus_raw_16k on. Looked at after every append (the channel calls it) and every feed.
   */
  followMode(): void {
    const manual = this.#manual();
    if (!this.#modeKnown) {
      this.#modeKnown = true;
      if (manual) this.#manualFrom = this.#startPosition;
      return;
    }
    if (manual === (this.#manualFrom !== null)) return;
    // Turns waiting for a verdict across a mode change count as speech (as without the gate).
    for (const region of this.#regions) if (region.state === 'pending') region.state = 'speech';
    this.#regions.length = 0;
    // After a change Silero hears what the ring still holds.
    this.#manualFrom = manual ? this.#frontEnd.readPosition : null;
    this.#wake();
  }

  /** The span Silero should hear next: all new audio (manual mode), or the first turn not yet decided. */
  #target(): { from: number; to: number } | null {
    if (this.#manualFrom !== null) {
      const to = Math.max(this.#frontEnd.writePosition, ...this.#sources.map((s) => s.end));
      return { from: this.#manualFrom, to };
    }
    const region = this.#regions.find((r) => r.state === 'pending');
    if (region === undefined) return null;
    return { from: region.feedFrom, to: region.end ?? this.#frontEnd.writePosition };
  }

  /** The first audio at or after `from` (before `to`) that the ring or a piece's copy still holds, with its reader. */
  #available(from: number, to: number): { from: number; to: number; read: (into: Float32Array) => void } | null {
    const ring = this.#frontEnd;
    const candidates: Array<{ from: number; to: number; read: (into: Float32Array) => void }> = [];
    const ringFrom = Math.max(from, ring.readPosition);
    if (ringFrom < Math.min(to, ring.writePosition)) {
      candidates.push({ from: ringFrom, to: Math.min(to, ring.writePosition), read: (into) => void ring.peek(ringFrom, into) });
    }
    for (const source of this.#sources) {
      const start = Math.max(from, source.start);
      const end = Math.min(to, source.end);
      if (start < end)
        candidates.push({ from: start, to: end, read: (into) => into.set(source.audio.subarray(start - source.start, start - source.start + into.length)) });
    }
    if (candidates.length === 0) return null;
    return candidates.reduce((best, c) => (c.from < best.from || (c.from === best.from && c.to > best.to) ? c : best));
  }

  // ---- decisions ---------------------------------------------------------------------------

  #region(turnId: number | null): Region | undefined {
    return turnId === null ? undefined : this.#regions.find((r) => r.turnId === turnId);
  }

  /** Whether the gate still waits to hear some of `piece` (or its region). */
  #needs(piece: GatePiece): boolean {
    return this.#answer(piece) === null;
  }

  /** Turns confirmed by a speech run, or heard to their end without one; whoever waits looks again. */
  #decide(): void {
    const evidence = this.#evidence;
    let confirmed = false;
    for (const region of this.#regions) {
      if (region.state !== 'pending') continue;
      if (evidence.hasSpeech(region.start, region.end ?? Infinity)) {
        region.state = 'speech';
        confirmed = true;
      } else if (region.end !== null && this.#heard(region.feedFrom, region.end)) region.state = 'none';
    }
    // A confirmed turn needs no more Silero: windows still queued for it are dropped (a fast sender queues seconds).
    if (confirmed && this.#stream.pending > 0) {
      this.#stream.reset(this.#fed);
      this.#evidence.reset(this.#fed);
    }
    if (this.#sources.length > 0) this.#dropHeardSources();
    this.#wake();
  }

  /**
   * Whether Silero has heard [from, to) to its last whole window: its answers reach there, or
   * everything fed up to there is answered (windows dropped with a confirmed turn never are).
   */
  #heard(from: number, to: number): boolean {
    if (to - from < WINDOW) return true;
    if (this.#fed < from) return false;
    const analysed = this.#evidence.analysed;
    return (analysed >= from && analysed > to - WINDOW) || (this.#stream.pending === 0 && this.#fed > to - WINDOW);
  }

  /** Forgets piece copies Silero has been given, or that no undecided turn needs. */
  #dropHeardSources(): void {
    for (let i = this.#sources.length - 1; i >= 0; i--) {
      const source = this.#sources[i]!;
      const needed =
        this.#fed < source.end &&
        (this.#manualFrom !== null || this.#regions.some((r) => r.state === 'pending' && r.start < source.end && (r.end ?? Infinity) > source.start));
      if (!needed) this.#sources.splice(i, 1);
    }
  }

  /** true: speech; false: none; null: not heard enough yet. */
  #answer(piece: GatePiece): boolean | null {
    if (this.#failed) return true;
    const region = piece.kind === 'turn' ? this.#region(piece.turnId) : undefined;
    if (region !== undefined) return region.state === 'pending' ? null : region.state === 'speech';
    const { start, end } = piece;
    // Manual mode: heard to its end first (its speech spans are what gets decoded); audio from
    // before a switch to manual mode was never heard and counts as speech.
    if (this.#manualFrom !== null) {
      if (end <= this.#manualFrom) return true;
      if (!this.#heard(Math.max(start, this.#manualFrom), end)) return null;
      return this.#evidence.hasSpeech(start, end);
    }
    const overlaps = (r: Region): boolean => r.start < end && (r.end ?? Infinity) > start;
    if (this.#evidence.hasSpeech(start, end) || this.#regions.some((r) => r.state === 'speech' && overlaps(r))) return true;
    const pending = this.#regions.filter((r) => r.state === 'pending' && overlaps(r));
    return pending.every((r) => this.#heard(Math.max(start, r.feedFrom), Math.min(end, r.end ?? end))) ? false : null;
  }

  #fail(): void {
    this.#failed = true;
    this.#wake();
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
