// channels=2: the `barge_in` and `overlap` messages of a session, from its channels' VAD
// events. OverlapTracker (overlap-tracker.ts) finds them; this places them on the speech
// itself (the endpointer's padding taken off its positions, none after a forced split, which
// ends where it cuts), names the channels' speakers, counts overlaps into the session's
// statistics and sends the messages. Never made for a mono session.
import { ENDPOINT_PADDING_MS, type EndpointEvent } from '../engines/signal/signal.js';
import { OverlapTracker } from './overlap-tracker.js';
import type { SessionChannel } from './session-channel.js';
import type { SessionStats } from './session-stats.js';
import { SAMPLES_PER_MS, toMs } from './session-time.js';
import type { SessionSink } from './ws-sender.js';

export class SessionOverlaps {
  readonly #tracker: OverlapTracker;
  readonly #overlaps: { count: number; ms: number };

  constructor(
    private readonly channels: readonly SessionChannel[],
    statistics: SessionStats,
    private readonly sink: SessionSink,
  ) {
    this.#tracker = new OverlapTracker(channels.length);
    this.#overlaps = { count: 0, ms: 0 };
    statistics.overlaps = this.#overlaps;
  }

  /**
   * A VAD event of `channel` the session handled: barge-ins when its speech starts (`turnId`:
   * the turn the cutter opened for it, null when none), overlaps once both spans ended.
   */
  onVadEvent(channel: SessionChannel, event: EndpointEvent, turnId: number | null): void {
    const before = ENDPOINT_PADDING_MS.before * SAMPLES_PER_MS;
    if (event.type === 'speech_start') {
      const onset = event.position + before;
      const interrupted = this.#tracker.speechStart(channel.index, onset);
      if (turnId === null) return;
      for (const { channel: other } of interrupted) {
        const them = this.channels[other]!;
        this.sink.send({
          type: 'barge_in',
          channel: channel.index,
          speaker: channel.name!,
          turn_id: turnId,
          interrupted_channel: other,
          interrupted_speaker: them.name!,
          interrupted_turn_id: them.openTurnId,
          at_ms: toMs(onset),
        });
      }
      return;
    }
    const end = event.forcedSplit ? event.position : event.position - ENDPOINT_PADDING_MS.after * SAMPLES_PER_MS;
    for (const overlap of this.#tracker.speechEnd(channel.index, event.turnStart + before, end)) {
      const [startMs, endMs] = [toMs(overlap.start), toMs(overlap.end)];
      if (endMs <= startMs) continue;
      this.#overlaps.count++;
      this.#overlaps.ms += endMs - startMs;
      this.sink.send({
        type: 'overlap',
        start_ms: startMs,
        end_ms: endMs,
        duration_ms: endMs - startMs,
        channels: [...overlap.channels],
        speakers: overlap.channels.map((index) => this.channels[index]!.name!),
      });
    }
  }

  /** CLEAR: spans so far are forgotten; tracking goes on from `position`. */
  clear(position: number): void {
    this.#tracker.clear(position);
  }
}
