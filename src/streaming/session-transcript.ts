// The text of one streaming session: committed segments (the job record's), the texts that
// make `full_text`, and the last partial of the open turn (for stable/unstable words).
// Committed text never changes; a partial only describes the open turn.
import type { Segment } from '../platform/db/job-records.js';
import type { PartialMessage } from './ws-messages.js';

const SAMPLES_PER_MS = 16;
const toMs = (samples: number): number => Math.round(samples / SAMPLES_PER_MS);

export class SessionTranscript {
  readonly segments: Segment[] = [];
  readonly #texts: string[] = [];
  #lastPartial: { turnId: number; words: string[] } | null = null;

  /** A new turn opened or the open one closed: the next partial starts afresh. */
  resetPartial(): void {
    this.#lastPartial = null;
  }

  /** The partial message for the open turn's interim text; `stable_text` is what two partials in a row agree on. */
  partial(turnId: number, span: { start: number; end: number }, text: string): PartialMessage {
    const words = text.length > 0 ? text.split(/\s+/) : [];
    const previous = this.#lastPartial?.turnId === turnId ? this.#lastPartial.words : [];
    let agree = 0;
    while (agree < words.length && agree < previous.length && words[agree] === previous[agree]) agree++;
    this.#lastPartial = { turnId, words };
    return {
      type: 'partial',
      turn_id: turnId,
      start_ms: toMs(span.start),
      end_ms: toMs(span.end),
      text,
      stable_text: words.slice(0, agree).join(' '),
      unstable_text: words.slice(agree).join(' '),
    };
  }

  /** Commits a piece's text (nothing for empty text); returns the piece's segments. */
  commit(span: { start: number; end: number }, text: string, confidence: number | null): Segment[] {
    if (text.length === 0) return [];
    const startMs = toMs(span.start);
    const endMs = toMs(span.end);
    const segment: Segment = { id: this.segments.length, start_ms: startMs, end_ms: endMs, duration_ms: endMs - startMs, text, speaker: null, confidence };
    this.segments.push(segment);
    this.#texts.push(text);
    return [segment];
  }

  get fullText(): string {
    return this.#texts.join(' ');
  }
}
