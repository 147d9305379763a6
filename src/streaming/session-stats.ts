// Statistics of one streaming session: turn latencies, counts, the worst lag, and the
// arrival timeline (when the audio at a position reached the server) that latencies are
// measured from. Bounded: at most MAX_LATENCY_SAMPLES latencies and TIMELINE arrivals.
import type { SessionStatsMessage } from './ws-messages.js';

/** Arrival times kept per session: 1024 pushes (20 s of 20 ms Opus frames, more for larger messages). */
const TIMELINE = 1024;
const MAX_LATENCY_SAMPLES = 10_000;

export class SessionStats {
  readonly #latencies: number[] = [];
  readonly #timeline = new Float64Array(TIMELINE * 2);
  #timelineNext = 0;
  #timelineCount = 0;
  turns = 0;
  transcriptions = 0;
  maxLagMs = 0;
  /** channels=2: overlaps reported and their total length (null in a mono session: not reported). */
  overlaps: { count: number; ms: number } | null = null;

  /** A turn or transcription answered `latencyMs` after its last sample arrived. */
  addLatency(latencyMs: number): void {
    if (this.#latencies.length < MAX_LATENCY_SAMPLES) this.#latencies.push(latencyMs);
  }

  noteLag(ms: number): void {
    this.maxLagMs = Math.max(this.maxLagMs, ms);
  }

  /** Audio up to `writePosition` arrived at `now` (performance.now()). */
  noteArrival(writePosition: number, now: number): void {
    const at = this.#timelineNext * 2;
    this.#timeline[at] = writePosition;
    this.#timeline[at + 1] = now;
    this.#timelineNext = (this.#timelineNext + 1) % TIMELINE;
    this.#timelineCount = Math.min(TIMELINE, this.#timelineCount + 1);
  }

  /** performance.now() of the push that brought the sample just before `position` (`now` if not seen). */
  arrivalOf(position: number, now: number): number {
    let time = now;
    for (let i = 1; i <= this.#timelineCount; i++) {
      const at = ((this.#timelineNext - i + TIMELINE) % TIMELINE) * 2;
      if (this.#timeline[at]! < position) break;
      time = this.#timeline[at + 1]!;
    }
    return time;
  }

  message(audio: { audioMs: number; droppedAudioMs: number; droppedMessages: number }): SessionStatsMessage {
    const sorted = [...this.#latencies].sort((a, b) => a - b);
    const pick = (q: number): number | null => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
    return {
      type: 'session_stats',
      audio_ms: audio.audioMs,
      turns: this.turns,
      transcriptions: this.transcriptions,
      latency_ms: { count: sorted.length, p50: pick(0.5), p95: pick(0.95), max: sorted.length === 0 ? null : sorted[sorted.length - 1]! },
      max_lag_ms: this.maxLagMs,
      dropped_audio_ms: audio.droppedAudioMs,
      dropped_messages: audio.droppedMessages,
      ...(this.overlaps !== null ? { overlaps: this.overlaps.count, overlap_ms: this.overlaps.ms } : {}),
    };
  }
}
