// Speech start/end events from the endpointer, decoded from the native 4-number layout.

export type EndpointEventType = 'speech_start' | 'speech_end';

export interface EndpointEvent {
  type: EndpointEventType;
  /** Absolute 16 kHz sample position of the (padded) start or end. */
  position: number;
  /** For speech_end: the matching start position, so [turnStart, position) is the turn. */
  turnStart: number;
  /** The turn hit the maximum speech duration and was split here. */
  forcedSplit: boolean;
  /** Emitted by flush() at the end of the stream. */
  endOfStream: boolean;
}

export const EVENT_STRIDE = 4;

/**
 * The endpointer's own padding around speech (native/src/dsp/endpointer.h pre_pad_ms and
 * post_pad_ms defaults, which the streaming sessions use): a speech_start position is the
 * onset minus `beforeMs`, a speech_end position the last speech plus `afterMs`.
 */
export const ENDPOINT_PADDING_MS = { before: 200, after: 300 } as const;

export function decodeEvents(raw: Float64Array, count: number, into: EndpointEvent[]): EndpointEvent[] {
  for (let i = 0; i < count; i++) {
    const o = i * EVENT_STRIDE;
    const flags = raw[o + 1]!;
    into.push({
      type: raw[o] === 1 ? 'speech_start' : 'speech_end',
      position: raw[o + 2]!,
      turnStart: raw[o + 3]!,
      forcedSplit: (flags & 1) !== 0,
      endOfStream: (flags & 2) !== 0,
    });
  }
  return into;
}
