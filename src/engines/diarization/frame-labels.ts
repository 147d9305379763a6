/**
 * A speaker per 20 ms speaker frame (Int32Array, -1: no speaker) from the labelled windows: the
 * vote of the windows covering each speech frame, changes of speaker moved into nearby pauses, short
 * pauses bridged, short runs merged into their neighbours, then speakers without a turn of
 * `minLongestTurnFrames` (turn onsets) merged into the turns they touch (never below min_speakers). Lengths are in
 * frames; the exported steps work in place on the labels they are given.
 */
import type { BackendParameters } from './diarization-backends.js';
import { SPEAKER_FRAME_MS } from './speaker-features.js';
import type { EmbeddedWindow } from './speaker-windows.js';

/** The file's speaker per frame (`frames` of them) from the windows and their cluster labels. */
export function speakerFrameLabels(
  frames: number,
  speech: Uint8Array,
  windows: readonly EmbeddedWindow[],
  labels: readonly number[],
  minSpeakers: number | null,
  parameters: BackendParameters,
): Int32Array {
  const frameLabels = labelFrames(frames, speech, windows, labels);
  if (parameters.pauseSnapFrames > 0) snapChangesToPauses(frameLabels, parameters.pauseSnapFrames, parameters.pauseSnapMinGapFrames);
  fillPauses(frameLabels, parameters.pauseFrames);
  const unsmoothed = frameLabels.slice();
  smooth(frameLabels, parameters.minTurnFrames);
  if (parameters.minLongestTurnFrames > 0) absorbSpeakersWithoutTurns(frameLabels, parameters.minLongestTurnFrames, minSpeakers ?? 1);
  // Merging short runs must not take the speaker count below min_speakers: keep the raw labels then.
  return minSpeakers !== null && speakerCount(frameLabels) < Math.min(minSpeakers, speakerCount(unsmoothed)) ? unsmoothed : frameLabels;
}

/** Speech frames take the vote of the windows covering them, nearer window centres weighing more; -1 is no speaker. */
function labelFrames(frames: number, speech: Uint8Array, windows: readonly EmbeddedWindow[], labels: readonly number[]): Int32Array {
  let k = 0;
  for (const label of labels) if (label + 1 > k) k = label + 1;
  const votes = new Float32Array(frames * k);
  windows.forEach((w, i) => {
    const centre = (w.startFrame + w.endFrame) / 2;
    const half = (w.endFrame - w.startFrame) / 2;
    for (let t = w.startFrame; t < w.endFrame; t++) votes[t * k + labels[i]!]! += 1 - Math.abs(t - centre) / (half + 1);
  });
  const out = new Int32Array(frames).fill(-1);
  let previous = -1;
  for (let t = 0; t < frames; t++) {
    if (speech[t] === 0) continue;
    let arg = -1;
    let top = 0;
    for (let c = 0; c < k; c++) {
      const v = votes[t * k + c]!;
      if (v > top) {
        top = v;
        arg = c;
      }
    }
    // Speech no window covers (edges, short islands) continues the previous speaker.
    out[t] = arg >= 0 ? arg : previous;
    if (out[t]! >= 0) previous = out[t]!;
  }
  return out;
}

/** Stretches of one speaker at most this far apart (0.5 s) count as one run when smoothing. */
const SAME_RUN_GAP_FRAMES = Math.round(500 / SPEAKER_FRAME_MS);

interface Run {
  start: number;
  end: number;
  label: number;
}

/** The speakers' runs in time order (stretches of one speaker at most SAME_RUN_GAP_FRAMES apart are one run). */
function speakerRuns(labels: Int32Array): Run[] {
  const runs: Run[] = [];
  for (let t = 0; t < labels.length; t++) {
    if (labels[t]! < 0) continue;
    const lastRun = runs[runs.length - 1];
    if (lastRun !== undefined && lastRun.label === labels[t] && lastRun.end >= t - SAME_RUN_GAP_FRAMES) lastRun.end = t + 1;
    else runs.push({ start: t, end: t + 1, label: labels[t]! });
  }
  return runs;
}

/** The longer of two neighbouring runs (the earlier on a tie), or the one that exists. */
function longerRun(before: Run | undefined, after: Run | undefined): Run | undefined {
  if (before === undefined || after === undefined) return before ?? after;
  return before.end - before.start >= after.end - after.start ? before : after;
}

/** The speech frames of `run` take `label`. */
function relabelRun(labels: Int32Array, run: Run, label: number): void {
  for (let t = run.start; t < run.end; t++) if (labels[t]! >= 0) labels[t] = label;
}

/**
 * While more than `minSpeakers` speakers remain: the speaker whose longest run is shortest, if
 * that run is under `minLongestFrames`, gives each of its runs to a neighbouring run's speaker:
 * the one it touches with no pause between (the turn it opens or ends), else the longer. In place.
 */
export function absorbSpeakersWithoutTurns(labels: Int32Array, minLongestFrames: number, minSpeakers: number): void {
  for (;;) {
    const runs = speakerRuns(labels);
    const longest = new Map<number, number>();
    for (const run of runs) longest.set(run.label, Math.max(longest.get(run.label) ?? 0, run.end - run.start));
    if (longest.size <= Math.max(1, minSpeakers)) return;
    let speaker = -1;
    let shortest = Number.POSITIVE_INFINITY;
    for (const [label, frames] of longest) {
      if (frames < shortest) {
        shortest = frames;
        speaker = label;
      }
    }
    if (shortest >= minLongestFrames) return;
    runs.forEach((run, i) => {
      if (run.label !== speaker) return;
      let before: Run | undefined;
      for (let j = i - 1; j >= 0 && before === undefined; j--) if (runs[j]!.label !== speaker) before = runs[j];
      let after: Run | undefined;
      for (let j = i + 1; j < runs.length && after === undefined; j++) if (runs[j]!.label !== speaker) after = runs[j];
      // A run that touches one neighbour (no pause between) belongs to that turn: an onset or an ending.
      const touchesBefore = before?.end === run.start;
      const touchesAfter = after?.start === run.end;
      const target = touchesBefore === touchesAfter ? longerRun(before, after) : touchesBefore ? before : after;
      if (target !== undefined) relabelRun(labels, run, target.label);
    });
  }
}

/** Speaker runs shorter than `minFrames` between speech take the longer neighbour's speaker. */
function smooth(labels: Int32Array, minFrames: number): void {
  for (let pass = 0; pass < 2; pass++) {
    const runs = speakerRuns(labels);
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i]!;
      if (run.end - run.start >= minFrames) continue;
      const target = longerRun(runs[i - 1], runs[i + 1]);
      if (target === undefined) continue;
      relabelRun(labels, run, target.label);
      run.label = target.label;
    }
  }
}

/**
 * Runs of -1 (no speech) of at most `maxFrames` between two speech frames are filled: with the
 * speaker on both sides, or split at their middle between two different speakers. In place.
 */
export function fillPauses(labels: Int32Array, maxFrames: number): void {
  let t = 0;
  while (t < labels.length) {
    if (labels[t]! >= 0) {
      t++;
      continue;
    }
    let end = t;
    while (end < labels.length && labels[end]! < 0) end++;
    if (t > 0 && end < labels.length && end - t <= maxFrames) {
      const middle = t + Math.ceil((end - t) / 2);
      labels.fill(labels[t - 1]!, t, middle);
      labels.fill(labels[end]!, middle, end);
    }
    t = end;
  }
}

/** The number of distinct speakers in `labels`. */
export function speakerCount(labels: Int32Array): number {
  return new Set(labels.filter((label) => label >= 0)).size;
}

/**
 * A change of speaker between two speech frames with no pause between them moves into the nearest
 * pause (a run of at least `minGap` frames without speech, -1) at most `reach` frames away that
 * lies inside either speaker's run, with that speaker's speech on its far side too (so no run
 * vanishes): people mostly take turns at pauses, and the 3 s windows place a change only roughly. In place.
 */
export function snapChangesToPauses(labels: Int32Array, reach: number, minGap: number): void {
  for (let c = 1; c < labels.length; c++) {
    const left = labels[c - 1]!;
    const right = labels[c]!;
    if (left < 0 || right < 0 || left === right) continue;
    const leftGap = pauseInside(labels, c - 1, -1, left, Math.max(0, c - reach), minGap);
    const rightGap = pauseInside(labels, c, 1, right, Math.min(labels.length - 1, c + reach - 1), minGap);
    const leftDistance = leftGap < 0 ? Number.POSITIVE_INFINITY : c - leftGap;
    const rightDistance = rightGap < 0 ? Number.POSITIVE_INFINITY : rightGap - c;
    if (leftDistance === Number.POSITIVE_INFINITY && rightDistance === Number.POSITIVE_INFINITY) continue;
    if (leftDistance <= rightDistance) {
      for (let t = leftGap; t < c; t++) if (labels[t]! >= 0) labels[t] = right;
    } else {
      for (let t = c; t < rightGap; t++) if (labels[t]! >= 0) labels[t] = left;
      c = rightGap;
    }
  }
}

/**
 * From `from` stepping by `step` (±1) through `speaker`'s frames and pauses, up to `limit`: the
 * first pause of at least `minGap` frames with `speaker`'s speech beyond it, as the change point
 * it gives (stepping back: the frame after the pause; forward: its first frame); -1 when there is none.
 */
function pauseInside(labels: Int32Array, from: number, step: 1 | -1, speaker: number, limit: number, minGap: number): number {
  let gap = 0;
  for (let t = from; step < 0 ? t >= limit : t <= limit; t += step) {
    const label = labels[t]!;
    if (label === -1) {
      gap++;
      continue;
    }
    if (label !== speaker) return -1;
    // The pause's frames lie between t and `from`: the change goes to its edge nearer `from`.
    if (gap >= minGap) return step < 0 ? t + gap + 1 : t - gap;
    gap = 0;
  }
  return -1;
}
