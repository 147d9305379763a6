/**
 * The event loop's time on live sessions, by part (issue 30: CPU seconds per stream-hour by
 * component), for `gateway_ws_main_thread_seconds_total{part}` and bench/ws-live-streams.ts.
 * Parts (exclusive: a part timed inside another is taken out of the outer one):
 * - `front_end`: the native front end's push (decode, resample, energy VAD and endpointing);
 * - `silero`: audio handed to the Silero VAD and the speech gate (copies, posting to their worker);
 * - `json`: server messages serialised and written to the socket (JSON.stringify, the write, the
 *   queued ones on drain);
 * - `session`: the rest of handling a client message (limits, acks, cutting turns, scheduling
 *   recognition);
 * - `results`: a recognised piece's result delivered (messages built, the next piece started);
 * - `ticks`: the endpoint's 50 ms ticker (the capacity estimate; each session's acks, lag, partials due).
 * What no part covers (the sockets' I/O in uWebSockets.js, the workers' messages deserialised,
 * promise continuations up to a timed part, GC) is the event loop's busy time less these.
 * Rules: `begin`/`end` pair up synchronously (end in a `finally`); two `performance.now()` calls a
 * timed call and no allocation; nesting deeper than MAX_DEPTH is counted in the outer part.
 */

export const MAIN_THREAD_PARTS = ['session', 'front_end', 'silero', 'json', 'results', 'ticks'] as const;
export type MainThreadPart = (typeof MAIN_THREAD_PARTS)[number];

const PART_INDEX = Object.fromEntries(MAIN_THREAD_PARTS.map((part, i) => [part, i])) as Readonly<Record<MainThreadPart, number>>;
const MAX_DEPTH = 8;

export class MainThreadParts {
  readonly #ms = new Float64Array(MAIN_THREAD_PARTS.length);
  readonly #part = new Int8Array(MAX_DEPTH);
  readonly #started = new Float64Array(MAX_DEPTH);
  /** Time spent in parts nested inside each open level. */
  readonly #nested = new Float64Array(MAX_DEPTH);
  #depth = 0;
  #skipped = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  begin(part: MainThreadPart): void {
    if (this.#depth === MAX_DEPTH) {
      this.#skipped++;
      return;
    }
    this.#part[this.#depth] = PART_INDEX[part];
    this.#started[this.#depth] = this.now();
    this.#nested[this.#depth] = 0;
    this.#depth++;
  }

  end(): void {
    if (this.#skipped > 0) {
      this.#skipped--;
      return;
    }
    if (this.#depth === 0) return;
    this.#depth--;
    const elapsed = this.now() - this.#started[this.#depth]!;
    this.#ms[this.#part[this.#depth]!]! += elapsed - this.#nested[this.#depth]!;
    if (this.#depth > 0) this.#nested[this.#depth - 1]! += elapsed;
  }

  /** Seconds by part since the start (exclusive). */
  seconds(): Record<MainThreadPart, number> {
    const out = {} as Record<MainThreadPart, number>;
    for (const part of MAIN_THREAD_PARTS) out[part] = this.#ms[PART_INDEX[part]]! / 1000;
    return out;
  }
}
