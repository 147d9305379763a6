// The turn cutter of one streaming session: VAD/endpoint events and stream positions in,
// pieces (spans of absolute 16 kHz sample positions) out. Pure: no audio, no socket, no clock;
// the session copies each piece's span out of its ring and discards what the cutter committed.
//
// Rules:
// - `committed` only moves forward. Audio before it was handed to recognition, cleared, or
//   judged silence; no piece ever starts before it.
// - While no turn is open, audio older than `keepBeforeTurnSamples` before the analysed
//   position is silence (the VAD saw it and opened no turn) and is committed by trim().
// - A speech_start opens a turn; its speech_end cuts [turnStart, end) as a `turn` piece,
//   padded beyond the endpointer's own padding: `preRollSamples` before (never before
//   `committed`, so turns never overlap) and up to `postRollSamples` after (only audio that
//   has arrived: never beyond `write`; none after a forced split, whose next turn starts
//   there). Speech the VAD scored just under its threshold at a turn's edges stays inside it.
// - A gap shorter than `joinGapSamples` between `committed` and a padded turn start is not cut
//   off as silence: the turn starts at `committed` (a stream's first turn whose onset the VAD
//   placed late, while it was still learning the stream, keeps the audio before it).
// - TRANSCRIBE cuts everything not yet committed; an open turn continues after it.
// - The `final` piece is cut once; nothing is cut after it.
import type { EndpointEvent } from '../engines/signal/signal.js';

export type CutKind = 'turn' | 'transcribe' | 'final';

export interface CutPiece {
  readonly kind: CutKind;
  /** The turn's id for `turn` pieces; null for TRANSCRIBE and the final piece. */
  readonly turnId: number | null;
  readonly start: number;
  readonly end: number;
  readonly forcedSplit: boolean;
}

export type CutterStep =
  | { readonly type: 'speech_started'; readonly turnId: number; readonly start: number }
  | { readonly type: 'piece'; readonly piece: CutPiece }
  | { readonly type: 'none' };

export interface TurnCutterOptions {
  /** Audio kept before the analysed position while no turn is open (a late speech_start's onset). */
  readonly keepBeforeTurnSamples: number;
  /** Extra audio before each turn's start (default 0). Must not exceed keepBeforeTurnSamples. */
  readonly preRollSamples?: number;
  /** Extra audio after each turn's end, as far as it has arrived (default 0). */
  readonly postRollSamples?: number;
  /** A shorter gap before a padded turn start joins the turn (default 0). */
  readonly joinGapSamples?: number;
}

const NONE: CutterStep = { type: 'none' };
const SAMPLES_PER_MS = 16;
/** Audio kept before `write` while no turn is open, so a late speech_start still finds its onset. */
const KEEP_BEFORE_TURN_MS = { energy: 2_000, silero: 4_000 } as const;
/**
 * Turn padding beyond the endpointer's (200 ms before, 300 ms after). Before: 700 ms more
 * (never into the previous turn), so a turn is decoded with leading context as a file upload
 * of the same speech is, and speech the VAD scored just under its threshold at the onset stays
 * in the turn. Measured (bench/live-accuracy.ts, 20 ALFFA utterances, docs/streaming.md): 300 ms
 * left energy turns 4 points worse than REST with first words lost; 700 ms is within 0.5 point
 * of REST with none lost; 1,500 ms matched REST exactly but feeds the model more audio per turn.
 * After: 500 ms in all, audio that has already arrived when the endpoint fires (the endpoint
 * silence, 500 ms by default, covers it), so it adds no latency.
 */
const PRE_ROLL_MS = 700;
const POST_ROLL_MS = 200;
/**
 * Gaps under 1 s before a padded turn start are not silence worth cutting. Measured: Silero placed
 * the onset of one held-out recording that starts in speech (tr_10667) 1.1 s in, so its first turn
 * began at 444 ms with the 700 ms pre-roll and the audio before it was outside every turn.
 */
const JOIN_GAP_MS = 1_000;

/** The live sessions' cutter settings for a VAD. */
export function cutterOptionsFor(vadType: 'energy' | 'silero'): TurnCutterOptions {
  return {
    keepBeforeTurnSamples: KEEP_BEFORE_TURN_MS[vadType] * SAMPLES_PER_MS,
    preRollSamples: PRE_ROLL_MS * SAMPLES_PER_MS,
    postRollSamples: POST_ROLL_MS * SAMPLES_PER_MS,
    joinGapSamples: JOIN_GAP_MS * SAMPLES_PER_MS,
  };
}

export class TurnCutter {
  #committed = 0;
  #open: { id: number; start: number } | null = null;
  #turnCounter = 0;
  #finalCut = false;

  readonly #preRoll: number;
  readonly #postRoll: number;
  readonly #joinGap: number;

  constructor(private readonly options: TurnCutterOptions) {
    this.#preRoll = options.preRollSamples ?? 0;
    this.#postRoll = options.postRollSamples ?? 0;
    this.#joinGap = options.joinGapSamples ?? 0;
  }

  /** Position up to which audio is handed to recognition, cleared or judged silence. */
  get committed(): number {
    return this.#committed;
  }

  get openTurn(): { readonly id: number; readonly start: number } | null {
    return this.#open;
  }

  /** The final piece was cut: nothing more will be. */
  get finalCut(): boolean {
    return this.#finalCut;
  }

  /**
   * One speech start/end event from the endpointer (energy VAD or Silero); `write` is the
   * position up to which audio has arrived (the limit of post-roll).
   */
  onEvent(event: EndpointEvent, write: number = event.position): CutterStep {
    if (this.#finalCut) return NONE;
    if (event.type === 'speech_start') {
      const start = this.#paddedStart(event.position);
      this.#open = { id: ++this.#turnCounter, start };
      return { type: 'speech_started', turnId: this.#open.id, start };
    }
    const turnId = this.#open?.id ?? ++this.#turnCounter;
    const start = this.#paddedStart(event.turnStart);
    this.#open = null;
    const end = event.forcedSplit ? event.position : Math.max(event.position, Math.min(event.position + this.#postRoll, write));
    if (end <= start) return NONE;
    return { type: 'piece', piece: this.#cut('turn', turnId, start, end, event.forcedSplit) };
  }

  /** A turn's first sample: the onset less the pre-roll, never before `committed`, and `committed` itself when the gap to it is short. */
  #paddedStart(onset: number): number {
    const start = Math.max(onset - this.#preRoll, this.#committed);
    return start - this.#committed < this.#joinGap ? this.#committed : start;
  }

  /**
   * While no turn is open: commits audio older than the keep window before `analysed` (the
   * position up to which the VAD has seen the stream). Returns the new committed position
   * when it moved, else null.
   */
  trim(analysed: number): number | null {
    if (this.#open !== null || this.#finalCut) return null;
    const until = analysed - this.options.keepBeforeTurnSamples;
    if (until <= this.#committed) return null;
    this.#committed = until;
    return until;
  }

  /** TRANSCRIBE or the end of the stream: everything from `committed` to `write`. */
  cutBuffer(kind: 'transcribe' | 'final', write: number): CutPiece | null {
    if (this.#finalCut) return null;
    const start = this.#committed;
    if (kind === 'transcribe' && this.#open !== null) this.#open = { id: this.#open.id, start: write };
    if (kind === 'final') this.#open = null;
    return this.#cut(kind, null, start, Math.max(start, write), false);
  }

  /** CLEAR: the buffer up to `position` is gone, and with it any open turn. */
  clear(position: number): void {
    this.#committed = Math.max(this.#committed, position);
    this.#open = null;
  }

  /** The stream ends: an open turn is not closed by an event any more (the final piece takes it). */
  closeTurn(): void {
    this.#open = null;
  }

  #cut(kind: CutKind, turnId: number | null, start: number, end: number, forcedSplit: boolean): CutPiece {
    if (kind === 'final') this.#finalCut = true;
    this.#committed = Math.max(this.#committed, end);
    return { kind, turnId, start, end, forcedSplit };
  }
}
