// The pieces of one session waiting for recognition, and the one in flight. Pieces run one at
// a time per session, in order (different sessions' pieces meet in the pool's batches); a
// partial runs only when nothing else waits. A piece that is owed an answer (turn, TRANSCRIBE,
// final) does not wait for a partial in flight: it overtakes it (issue 30: the partial of a turn
// just cut is stale, and waiting for it made late turns). The overtaken partial keeps computing
// until it settles (its caller may cancel it); its answer is never sent, and no new partial
// starts before it settles, so a session has at most one partial computing. A queued piece's
// audio is a copy out of the ring that the pool reads until its recognition settles, so it
// counts against the buffer limit; or it is still in the ring (a long buffer cut in bounded
// pieces: each is copied when it starts, so the ring must keep it until then: see `ringFloor`).

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
  /**
   * A partial fed to a live stream (issue 30): `audio` starts here, after what the stream has
   * already been fed, not at `start` (which stays the open turn's start). Absent: at `start`.
   */
  readonly audioStart?: number;
}

/** A piece as queued: its audio copied out of the ring, or null while it is still there. */
export type QueuedPiece = Omit<Piece, 'audio'> & { readonly audio: Float32Array | null };

export class PieceQueue {
  readonly #queue: QueuedPiece[] = [];
  /** Samples the queued pieces span. */
  #queuedSamples = 0;
  /** Samples of the queued pieces' own copies. */
  #queuedCopied = 0;
  #inFlight: Piece | null = null;
  /** A partial that a piece owed an answer overtook, still computing. */
  #overtaken: Piece | null = null;

  push(piece: QueuedPiece): void {
    this.#queue.push(piece);
    this.#queuedSamples += piece.end - piece.start;
    this.#queuedCopied += piece.audio?.length ?? 0;
  }

  /**
   * The next queued piece, now in flight (`copy` reads a piece still in the ring); null while a
   * piece owed an answer is in flight or none waits. A partial in flight is overtaken (`overtaken`).
   */
  next(copy: (piece: QueuedPiece) => Float32Array): Piece | null {
    if (this.#queue.length === 0) return null;
    if (this.#inFlight !== null) {
      if (this.#inFlight.kind !== 'partial') return null;
      this.#overtaken = this.#inFlight;
      this.#inFlight = null;
    }
    const queued = this.#queue.shift()!;
    this.#queuedSamples -= queued.end - queued.start;
    this.#queuedCopied -= queued.audio?.length ?? 0;
    const piece: Piece = { ...queued, audio: queued.audio ?? copy(queued) };
    this.#inFlight = piece;
    return piece;
  }

  /** Starts a partial (only when idle: nothing in flight, nothing queued). */
  startPartial(piece: Piece): boolean {
    if (!this.idle) return false;
    this.#inFlight = piece;
    return true;
  }

  /** `piece` (the one in flight, or the overtaken partial) settled. */
  settle(piece: Piece): void {
    if (piece === this.#overtaken) this.#overtaken = null;
    else if (piece === this.#inFlight) this.#inFlight = null;
  }

  /** Drops what waits (the piece in flight settles on its own). */
  dropQueued(): void {
    this.#queue.length = 0;
    this.#queuedSamples = 0;
    this.#queuedCopied = 0;
  }

  /** Copies every queued piece still in the ring (before the ring is cleared). */
  copyQueued(copy: (piece: QueuedPiece) => Float32Array): void {
    for (let i = 0; i < this.#queue.length; i++) {
      const piece = this.#queue[i]!;
      if (piece.audio !== null) continue;
      const audio = copy(piece);
      this.#queue[i] = { ...piece, audio };
      this.#queuedCopied += audio.length;
    }
  }

  /** The first position a queued piece still reads from the ring; null when none does. */
  get ringFloor(): number | null {
    for (const piece of this.#queue) if (piece.audio === null) return piece.start;
    return null;
  }

  /** Nothing in flight (an overtaken partial included) and nothing queued: a partial may start. */
  get idle(): boolean {
    return this.#inFlight === null && this.#overtaken === null && this.#queue.length === 0;
  }

  get inFlight(): Piece | null {
    return this.#inFlight;
  }

  /** The partial overtaken by the piece in flight, until it settles. */
  get overtaken(): Piece | null {
    return this.#overtaken;
  }

  /** Queued pieces plus the one in flight (and an overtaken partial still computing). */
  get count(): number {
    return this.#queue.length + (this.#inFlight !== null ? 1 : 0) + (this.#overtaken !== null ? 1 : 0);
  }

  /** Audio samples copied out of the ring by queued pieces and those computing (partials included). */
  get heldSamples(): number {
    return this.#queuedCopied + (this.#inFlight?.audio.length ?? 0) + (this.#overtaken?.audio.length ?? 0);
  }

  /** Audio samples waiting for an answer that counts (partials excluded). */
  get pendingSamples(): number {
    const inFlight = this.#inFlight !== null && this.#inFlight.kind !== 'partial' ? this.#inFlight.audio.length : 0;
    return this.#queuedSamples + inFlight;
  }

  /** The oldest piece still owed an answer (partials excluded). */
  get oldest(): Pick<Piece, 'cutAt'> | undefined {
    return this.#inFlight !== null && this.#inFlight.kind !== 'partial' ? this.#inFlight : this.#queue[0];
  }
}
