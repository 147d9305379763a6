// The pieces of one session waiting for recognition, and the one in flight. Pieces run one at
// a time per session, in order (different sessions' pieces meet in the pool's batches); a
// partial runs only when nothing else waits. A queued piece's audio is a copy out of the ring
// that the pool reads until its recognition settles, so it counts against the buffer limit.

export type PieceKind = 'turn' | 'transcribe' | 'final' | 'partial';

export interface Piece {
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

export class PieceQueue {
  readonly #queue: Piece[] = [];
  #queuedSamples = 0;
  #inFlight: Piece | null = null;

  push(piece: Piece): void {
    this.#queue.push(piece);
    this.#queuedSamples += piece.audio.length;
  }

  /** The next queued piece, now in flight; null while one is in flight or none waits. */
  next(): Piece | null {
    if (this.#inFlight !== null || this.#queue.length === 0) return null;
    const piece = this.#queue.shift()!;
    this.#queuedSamples -= piece.audio.length;
    this.#inFlight = piece;
    return piece;
  }

  /** Starts a partial (only when idle: nothing in flight, nothing queued). */
  startPartial(piece: Piece): boolean {
    if (!this.idle) return false;
    this.#inFlight = piece;
    return true;
  }

  /** The piece in flight settled. */
  settle(): void {
    this.#inFlight = null;
  }

  /** Drops what waits (the piece in flight settles on its own). */
  dropQueued(): void {
    this.#queue.length = 0;
    this.#queuedSamples = 0;
  }

  get idle(): boolean {
    return this.#inFlight === null && this.#queue.length === 0;
  }

  get inFlight(): Piece | null {
    return this.#inFlight;
  }

  /** Queued pieces plus the one in flight. */
  get count(): number {
    return this.#queue.length + (this.#inFlight !== null ? 1 : 0);
  }

  /** Audio samples held by queued pieces and the one in flight (partials included). */
  get heldSamples(): number {
    return this.#queuedSamples + (this.#inFlight?.audio.length ?? 0);
  }

  /** Audio samples waiting for an answer that counts (partials excluded). */
  get pendingSamples(): number {
    const inFlight = this.#inFlight !== null && this.#inFlight.kind !== 'partial' ? this.#inFlight.audio.length : 0;
    return this.#queuedSamples + inFlight;
  }

  /** The oldest piece still owed an answer (partials excluded). */
  get oldest(): Piece | undefined {
    return this.#inFlight !== null && this.#inFlight.kind !== 'partial' ? this.#inFlight : this.#queue[0];
  }
}
