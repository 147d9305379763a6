// captions=webvtt|srt on a live session: `caption` messages for the text each turn commits.
// Cues (caption-cues.ts, broadcast rules) are numbered on from the last cue sent and never start
// before its end, across the whole session.
import { BROADCAST_CAPTION_RULES, buildCaptionCues } from '../jobs/caption-cues.js';
import { type CaptionFormat, renderCaptionCues } from '../jobs/caption-formats.js';
import type { Segment } from '../platform/db/job-records.js';
import type { CaptionMessage } from './ws-messages.js';

export class SessionCaptions {
  /** Caption cues sent so far, and where the last one ended (stream ms). */
  #cues = 0;
  #lastCueEndMs: number | null = null;

  /** `format`: the session's `captions` setting (null: no captions). */
  constructor(private readonly format: CaptionFormat | null) {}

  /** The caption message for the segments just committed; null without captions or cues. */
  next(segments: readonly Segment[]): CaptionMessage | null {
    const format = this.format;
    if (format === null || segments.length === 0) return null;
    const cues = buildCaptionCues(segments, BROADCAST_CAPTION_RULES, { firstIndex: this.#cues + 1, previousEndMs: this.#lastCueEndMs });
    if (cues.length === 0) return null;
    this.#cues += cues.length;
    this.#lastCueEndMs = cues[cues.length - 1]!.endMs;
    return {
      type: 'caption',
      format: format === 'vtt' ? 'webvtt' : 'srt',
      cues: cues.map((cue) => ({ index: cue.index, start_ms: cue.startMs, end_ms: cue.endMs, lines: [...cue.lines], speaker: cue.speaker })),
      text: renderCaptionCues(cues, format),
    };
  }
}
