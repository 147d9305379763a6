// One audio channel of a streaming session: its front end (ring buffer, energy VAD), its
// Silero feed, its turn cutter and its piece queue. A mono session has one; channels=2 has
// two, fed with the de-interleaved audio, each cutting and recognising its own turns. The
// session (ws-session.ts) drives them; this holds the per-channel state.
import { StreamFrontEnd, type AudioFormat, type EndpointEvent } from '../engines/signal/signal.js';
import type { SileroVad } from '../engines/vad/vad.js';
import { PieceQueue } from './piece-queue.js';
import { SileroFeed } from './silero-feed.js';
import { cutterOptionsFor, TurnCutter } from './turn-cutter.js';
import type { VadType } from './ws-query.js';

export interface ChannelOptions {
  readonly index: number;
  /** The channel's speaker name (channels=2); null for a mono session. */
  readonly name: string | null;
  readonly format: AudioFormat;
  readonly vadType: VadType;
  readonly maxBufferBytes: number;
  readonly endpointing: { readonly minSilenceMs: number; readonly maxSpeechMs: number };
  readonly silero: SileroVad | null;
  readonly onVadEvent: (event: EndpointEvent) => void;
}

/** The fields a message about one channel carries (none in a mono session). */
export type ChannelLabel = { readonly channel: number; readonly speaker: string } | Record<string, never>;

export class SessionChannel {
  readonly index: number;
  readonly name: string | null;
  readonly frontEnd: StreamFrontEnd;
  readonly silero: SileroFeed | null;
  readonly cutter: TurnCutter;
  readonly pieces = new PieceQueue();
  /** Scratch list for the front end's endpoint events. */
  readonly events: EndpointEvent[] = [];
  readonly label: ChannelLabel;
  lastPartialAt = 0;
  badStreamReported = false;
  /** Its final piece settled (or, when the session failed, nothing of it was left to wait for). */
  finished = false;

  constructor(options: ChannelOptions) {
    this.index = options.index;
    this.name = options.name;
    this.label = options.name === null ? {} : { channel: options.index, speaker: options.name };
    this.cutter = new TurnCutter(cutterOptionsFor(options.vadType));
    this.frontEnd = new StreamFrontEnd({
      format: options.format,
      maxBufferBytes: options.maxBufferBytes,
      initialBufferSeconds: 4,
      energyVad: options.vadType === 'energy',
      endpointing: options.endpointing,
    });
    const silero = options.silero;
    this.silero =
      options.vadType === 'silero' && silero !== null
        ? new SileroFeed(silero.openStream({ endpointing: options.endpointing, onEvent: options.onVadEvent }), silero.maxQueuedWindowsPerStream)
        : null;
  }
}
