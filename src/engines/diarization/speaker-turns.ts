/**
 * Speaker turns in ms from a speaker per 20 ms speaker frame (Int32Array, -1: no speaker): the runs
 * of each frame's speaker, then the runs of the second speakers of overlapped speech (frame regions
 * [start, end) from the overlap detector). Pure.
 */
import { SPEAKER_FRAME_MS } from './speaker-features.js';

/** A stretch of one speaker; `speaker` is 0.. in order of first appearance. */
export interface SpeakerTurn {
  readonly startMs: number;
  readonly endMs: number;
  readonly speaker: number;
}

/**
 * Runs of `labels` as turns, speakers numbered by first appearance, in time order; then the runs of
 * `second` (overlapped speech: second speakers of the same numbering), in time order.
 */
export function toTurns(labels: Int32Array, second?: Int32Array): SpeakerTurn[] {
  const turns: SpeakerTurn[] = [];
  const numbering = new Map<number, number>();
  const runs = (frames: Int32Array): void => {
    let t = 0;
    while (t < frames.length) {
      const label = frames[t]!;
      if (label < 0) {
        t++;
        continue;
      }
      let end = t + 1;
      while (end < frames.length && frames[end] === label) end++;
      let speaker = numbering.get(label);
      if (speaker === undefined) {
        speaker = numbering.size;
        numbering.set(label, speaker);
      }
      turns.push({ startMs: t * SPEAKER_FRAME_MS, endMs: end * SPEAKER_FRAME_MS, speaker });
      t = end;
    }
  };
  runs(labels);
  if (second !== undefined) runs(second);
  return turns;
}

/**
 * The second speaker of each overlap region (-1 elsewhere): where the region holds a change of
 * speaker, each side's frames get the other side's speaker; otherwise the nearest other speaker in
 * time, before or after the region (people overlap at turn changes: they start before the other
 * has finished, or answer into a turn).
 */
export function secondSpeakers(labels: Int32Array, regions: readonly { start: number; end: number }[]): Int32Array {
  const second = new Int32Array(labels.length).fill(-1);
  for (const { start, end } of regions) {
    const inside = [...new Set(labels.subarray(start, end))].filter((label) => label >= 0);
    if (inside.length === 2) {
      for (let t = start; t < end; t++) if (labels[t]! >= 0) second[t] = labels[t] === inside[0] ? inside[1]! : inside[0]!;
      continue;
    }
    if (inside.length !== 1) continue;
    const own = inside[0]!;
    let before = start - 1;
    while (before >= 0 && (labels[before]! < 0 || labels[before] === own)) before--;
    let after = end;
    while (after < labels.length && (labels[after]! < 0 || labels[after] === own)) after++;
    const beforeGap = before < 0 ? Number.POSITIVE_INFINITY : start - 1 - before;
    const afterGap = after >= labels.length ? Number.POSITIVE_INFINITY : after - end;
    if (beforeGap === Number.POSITIVE_INFINITY && afterGap === Number.POSITIVE_INFINITY) continue;
    second.fill(beforeGap <= afterGap ? labels[before]! : labels[after]!, start, end);
  }
  return second;
}
