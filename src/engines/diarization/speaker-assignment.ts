import type { Segment } from '../../platform/db/job-records.js';
import type { SpeakerTurn } from './diarize.js';

/** A word with its time, as the CTC decoder gives it. */
export interface AssignableWord {
  readonly text: string;
  readonly start_ms: number;
  readonly end_ms: number;
}

export interface SpeakerSummary {
  readonly count: number;
  readonly labels: string[];
}

/** `SPEAKER_00`, `SPEAKER_01`, ...: zero-padded to two digits (at most 20 speakers). */
export const speakerLabel = (n: number): string => `SPEAKER_${String(n).padStart(2, '0')}`;

/**
 * Puts speaker turns onto transcript segments. Each word takes the speaker it overlaps most
 * (the nearest turn when it overlaps none); a segment whose words change speaker is split at
 * those word boundaries, so every segment has one speaker (and the segment's `words` with it); it is
 * also split where no turn covers PAUSE_SPLIT_MS or more between two words (non-speech is nobody's;
 * the parts end at the word before and start at the word after). Labels are renumbered by first
 * appearance in the transcript (speakers with turns but no segment after them, by first turn);
 * segments with no words and no overlap get `speaker: null` (non-speech). Ids are renumbered from 0.
 */
export function assignSpeakers(
  segments: readonly Segment[],
  words: readonly (readonly AssignableWord[])[],
  turns: readonly SpeakerTurn[],
): { segments: Segment[]; speakers: SpeakerSummary } {
  const numbering = new Map<number, number>();
  const label = (speaker: number): string => {
    let n = numbering.get(speaker);
    if (n === undefined) {
      n = numbering.size;
      numbering.set(speaker, n);
    }
    return speakerLabel(n);
  };
  const out: Segment[] = [];
  const push = (segment: Omit<Segment, 'id'>): void => {
    out.push({ id: out.length, ...segment });
  };
  segments.forEach((segment, index) => {
    const segmentWords = words[index] ?? [];
    if (segmentWords.length === 0 || turns.length === 0) {
      const speaker = speakerOf(segment.start_ms, segment.end_ms, turns, false);
      push({ ...withoutId(segment), speaker: speaker === null ? null : label(speaker) });
      return;
    }
    const speakers = segmentWords.map((w) => speakerOf(w.start_ms, w.end_ms, turns, true)!);
    // The segment's own words (the record's shape) split with it; they pair with `segmentWords` one to one.
    const own = segment.words !== undefined && segment.words.length === segmentWords.length ? segment.words : null;
    // Issue 29: a stretch between two words that no turn covers for PAUSE_SPLIT_MS is not speech:
    // the segment splits there too, so the pause is nobody's (the parts end and start at the words).
    const pauseBefore = segmentWords.map((w, i) => i > 0 && uncoveredMs(segmentWords[i - 1]!.end_ms, w.start_ms, turns) >= PAUSE_SPLIT_MS);
    let from = 0;
    for (let i = 1; i <= segmentWords.length; i++) {
      if (i < segmentWords.length && speakers[i] === speakers[from] && !pauseBefore[i]) continue;
      const first = from === 0;
      const last = i === segmentWords.length;
      const startMs = first ? segment.start_ms : segmentWords[from]!.start_ms;
      const endMs = last ? segment.end_ms : pauseBefore[i] ? segmentWords[i - 1]!.end_ms : segmentWords[i]!.start_ms;
      push({
        start_ms: startMs,
        end_ms: endMs,
        duration_ms: endMs - startMs,
        text:
          first && last
            ? segment.text
            : segmentWords
                .slice(from, i)
                .map((w) => w.text)
                .join(' '),
        speaker: label(speakers[from]!),
        confidence: segment.confidence,
        ...(own !== null ? { words: own.slice(from, i) } : {}),
      });
      from = i;
    }
  });
  // Speakers the diarization found whose turns hold no transcript segment still count (the
  // speaker bounds apply to what is reported): they are numbered last, in order of their first turn.
  for (const turn of [...turns].sort((a, b) => a.startMs - b.startMs)) label(turn.speaker);
  const labels = [...numbering.values()].sort((a, b) => a - b).map(speakerLabel);
  return { segments: out, speakers: { count: labels.length, labels } };
}

/** A pause between words at least this long that no speaker turn covers splits a segment (issue 29). */
export const PAUSE_SPLIT_MS = 1000;

/** The longest stretch of [startMs, endMs) that no turn covers. */
function uncoveredMs(startMs: number, endMs: number, turns: readonly SpeakerTurn[]): number {
  if (endMs <= startMs) return 0;
  const inside = turns
    .filter((t) => t.endMs > startMs && t.startMs < endMs)
    .map((t) => [Math.max(startMs, t.startMs), Math.min(endMs, t.endMs)] as const)
    .sort((a, b) => a[0] - b[0]);
  let longest = 0;
  let at = startMs;
  for (const [a, b] of inside) {
    longest = Math.max(longest, a - at);
    at = Math.max(at, b);
  }
  return Math.max(longest, endMs - at);
}

/** The turn's speaker with the most overlap; with `nearest`, the closest turn when none overlaps. */
function speakerOf(startMs: number, endMs: number, turns: readonly SpeakerTurn[], nearest: boolean): number | null {
  const overlap = new Map<number, number>();
  let closest: SpeakerTurn | null = null;
  let closestGap = Number.POSITIVE_INFINITY;
  for (const turn of turns) {
    const shared = Math.min(endMs, turn.endMs) - Math.max(startMs, turn.startMs);
    if (shared > 0) overlap.set(turn.speaker, (overlap.get(turn.speaker) ?? 0) + shared);
    const gap = Math.max(turn.startMs - endMs, startMs - turn.endMs, 0);
    if (gap < closestGap) {
      closestGap = gap;
      closest = turn;
    }
  }
  let best: number | null = null;
  let most = 0;
  for (const [speaker, ms] of overlap) {
    if (ms > most) {
      most = ms;
      best = speaker;
    }
  }
  if (best !== null) return best;
  return nearest && closest !== null ? closest.speaker : null;
}

function withoutId(segment: Segment): Omit<Segment, 'id'> {
  const { id: _id, ...rest } = segment;
  return rest;
}
