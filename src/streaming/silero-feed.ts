// Feeds one session's audio from its ring to its stream on the shared batched Silero VAD.
// The Silero stream's endpointer reports speech events asynchronously (onEvent).
//
// Rules: audio is fed in order and never skipped: what a fast sender delivers beyond the
// stream's bounded queue waits in the ring (the session keeps it: `fed` is the analysed
// position) and is fed on later ticks. Audio that left the ring unseen (manual mode,
// TRANSCRIBE, CLEAR) restarts the stream at the ring's start.
import type { StreamFrontEnd } from '../engines/signal/signal.js';
import type { SileroVadStream } from '../engines/vad/vad.js';

const SILERO_WINDOW = 512;

export class SileroFeed {
  /** Position up to which audio went to the Silero stream. */
  #fed = 0;
  #stale = false;
  #dropped = 0;
  /** Feed buffer, grown on demand. */
  #scratch = new Float32Array(0);

  constructor(
    readonly stream: SileroVadStream,
    private readonly maxQueuedWindows: number,
  ) {}

  get fed(): number {
    return this.#fed;
  }

  /**
   * Position up to which the VAD has judged the audio (its answers are asynchronous, so this
   * trails `fed`): only audio before it may be discarded as silence.
   */
  get analysed(): number {
    return Math.min(this.#fed, this.stream.analysedPosition);
  }

  /** Samples the VAD could not take (its queue was full): not analysed. */
  get droppedSamples(): number {
    return this.#dropped;
  }

  /** Audio not yet analysed: queued windows plus what waits in the ring. */
  behindSamples(write: number): number {
    return this.stream.pending * SILERO_WINDOW + Math.max(0, write - this.#fed);
  }

  /** Turn detection off (manual mode): the audio is not analysed; restart when it comes back on. */
  skipTo(write: number): void {
    this.#fed = write;
    this.#stale = true;
  }

  /** Feeds from the ring as far as the stream's bounded queue takes. */
  feed(frontEnd: StreamFrontEnd): void {
    const write = frontEnd.writePosition;
    const ringStart = frontEnd.readPosition;
    if (this.#stale || this.#fed < ringStart) {
      this.#fed = Math.max(this.#fed, ringStart);
      this.stream.reset(this.#fed);
      this.#stale = false;
    }
    const room = (this.maxQueuedWindows - this.stream.pending - 1) * SILERO_WINDOW;
    const take = Math.min(room, write - this.#fed);
    if (take <= 0) return;
    if (this.#scratch.length < take) this.#scratch = new Float32Array(take);
    const view = this.#scratch.subarray(0, take);
    frontEnd.peek(this.#fed, view);
    if (this.stream.feed(view) === 'full') this.#dropped += take;
    this.#fed += take;
  }

  /** CLEAR: the stream continues at `position`. */
  reset(position: number): void {
    this.stream.reset(position);
    this.#fed = position;
  }
}
