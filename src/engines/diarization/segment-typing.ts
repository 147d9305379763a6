import type { Segment } from '../../platform/db/job-records.js';
import type { MusicRegion } from './music-detector.js';
import type { AudioTypes, SegmentType } from './segment-type.js';

/** Music left between transcript segments shorter than this does not become a segment of its own (ms). */
export const MIN_MUSIC_SEGMENT_MS = 1000;
/** A transcript segment at least this share inside music is typed `music` (its text and speaker dropped). */
const MUSIC_SHARE = 0.5;

function overlapMs(startMs: number, endMs: number, spans: readonly { readonly startMs: number; readonly endMs: number }[]): number {
  let total = 0;
  for (const span of spans) total += Math.max(0, Math.min(endMs, span.endMs) - Math.max(startMs, span.startMs));
  return total;
}

/** The type of the typed turn overlapping [startMs, endMs) most; null when no turn overlaps. */
function dominantType(startMs: number, endMs: number, turns: AudioTypes['turns']): SegmentType | null {
  let best: SegmentType | null = null;
  let most = 0;
  for (const turn of turns) {
    const shared = Math.min(endMs, turn.endMs) - Math.max(startMs, turn.startMs);
    if (shared > most) {
      most = shared;
      best = turn.type;
    }
  }
  return best;
}

/** The parts of `region` no segment covers, each at least MIN_MUSIC_SEGMENT_MS long. */
function uncovered(region: MusicRegion, segments: readonly Segment[]): MusicRegion[] {
  let pieces: MusicRegion[] = [region];
  for (const segment of segments) {
    if (segment.end_ms <= region.startMs || segment.start_ms >= region.endMs) continue;
    pieces = pieces.flatMap((p) => {
      const out: MusicRegion[] = [];
      if (segment.start_ms > p.startMs) out.push({ startMs: p.startMs, endMs: Math.min(p.endMs, segment.start_ms) });
      if (segment.end_ms < p.endMs) out.push({ startMs: Math.max(p.startMs, segment.end_ms), endMs: p.endMs });
      return out.filter((o) => o.endMs > o.startMs);
    });
  }
  return pieces.filter((p) => p.endMs - p.startMs >= MIN_MUSIC_SEGMENT_MS);
}

/**
 * Gives every segment its `type`: a segment mostly inside detected music is `music`, with
 * speaker null and text "" (what the recogniser made of music is noise; the price is the speech
 * the detector mistakes for music, see docs/diarization.md); a segment with a speaker takes the
 * type of the turn overlapping it most (segment-type.ts typeTurns: the turn's own voice when it
 * is long enough to judge, else its speaker's; `speech` when unsure); anything else is `speech`. Music that no segment covers becomes segments of its own
 * (`type: "music"`, `text: ""`, `speaker: null`). Segments come back in time order, ids from 0.
 */
export function typeSegments(segments: readonly Segment[], types: AudioTypes): Segment[] {
  const typed: Segment[] = segments.map((segment) => {
    const length = Math.max(1, segment.end_ms - segment.start_ms);
    if (overlapMs(segment.start_ms, segment.end_ms, types.music) / length >= MUSIC_SHARE) {
      const { words: _words, ...rest } = segment; // no text, no words
      return { ...rest, text: '', speaker: null, confidence: null, type: 'music' };
    }
    if (segment.speaker === null) return { ...segment, type: 'speech' };
    return { ...segment, type: dominantType(segment.start_ms, segment.end_ms, types.turns) ?? 'speech' };
  });
  const music: Segment[] = types.music.flatMap((region) =>
    uncovered(region, segments).map((p) => ({
      id: 0,
      start_ms: p.startMs,
      end_ms: p.endMs,
      duration_ms: p.endMs - p.startMs,
      text: '',
      speaker: null,
      confidence: null,
      type: 'music' as const,
    })),
  );
  return [...typed, ...music].sort((a, b) => a.start_ms - b.start_ms).map((s, id) => ({ ...s, id }));
}
