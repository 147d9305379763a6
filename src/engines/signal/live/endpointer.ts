// Speech start/end detection from per-frame speech probabilities (energy VAD or Silero).
import { decodeEvents, EVENT_STRIDE, type EndpointEvent } from './endpoint-event.js';
import { nativeAddon, type EndpointerNativeOptions } from '../../runtime/native-addon.js';
import { NativeHandle } from '../../runtime/native-handle.js';

export type EndpointerOptions = EndpointerNativeOptions;

export class Endpointer extends NativeHandle {
  readonly #stats = new Float64Array(4);
  #events = new Float64Array(EVENT_STRIDE * 16);

  constructor(options: EndpointerOptions = {}) {
    const addon = nativeAddon();
    super(addon.endpointerCreate(options), addon.endpointerClose);
  }

  /** Feeds one probability per hop; appends the events it produces to `into`. */
  process(probabilities: Float32Array, into: EndpointEvent[] = []): EndpointEvent[] {
    // Up to 3 events per frame (end + forced split restart + start) in the worst case.
    const need = EVENT_STRIDE * (3 * probabilities.length + 2);
    if (this.#events.length < need) this.#events = new Float64Array(need);
    const n = nativeAddon().endpointerProcess(this.handle, probabilities, this.#events);
    return decodeEvents(this.#events, n, into);
  }

  /** End of stream: closes an open turn. */
  flush(into: EndpointEvent[] = []): EndpointEvent[] {
    const n = nativeAddon().endpointerFlush(this.handle, this.#events);
    return decodeEvents(this.#events, n, into);
  }

  /** Forgets any turn in progress and continues from absolute sample `position`. */
  resetAt(position: number): void {
    nativeAddon().endpointerResetAt(this.handle, position);
  }

  /** Absolute sample position after the last probability. */
  get position(): number {
    nativeAddon().endpointerStats(this.handle, this.#stats);
    return this.#stats[0]!;
  }

  get inSpeech(): boolean {
    nativeAddon().endpointerStats(this.handle, this.#stats);
    return this.#stats[1] === 1;
  }
}
