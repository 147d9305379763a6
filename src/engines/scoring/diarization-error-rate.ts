/** A labelled stretch of time, as in an RTTM `SPEAKER` line. Speakers are any strings. */
export interface LabelledTurn {
  readonly startMs: number;
  readonly endMs: number;
  readonly speaker: string;
}

export interface DiarizationScore {
  /** (missed + false alarm + confusion) / reference speech, all in speaker-time. */
  readonly der: number;
  readonly missedMs: number;
  readonly falseAlarmMs: number;
  readonly confusionMs: number;
  readonly referenceMs: number;
  /** Reference speaker → hypothesis speaker under the optimal one-to-one mapping. */
  readonly mapping: ReadonlyMap<string, string>;
}

/**
 * Diarization error rate as NIST md-eval defines it, with no collar and overlap scored: on a
 * `resolutionMs` grid, each instant adds max(Nref, Nhyp) − Ncorrect to the error, where Ncorrect
 * counts reference speakers whose mapped hypothesis speaker is also active. The mapping is the
 * one-to-one assignment of speakers that maximises the overlapping time (Hungarian method).
 */
export function diarizationErrorRate(reference: readonly LabelledTurn[], hypothesis: readonly LabelledTurn[], resolutionMs = 10): DiarizationScore {
  const end = Math.max(0, ...reference.map((t) => t.endMs), ...hypothesis.map((t) => t.endMs));
  const frames = Math.ceil(end / resolutionMs);
  const refSpeakers = [...new Set(reference.map((t) => t.speaker))];
  const hypSpeakers = [...new Set(hypothesis.map((t) => t.speaker))];
  const activity = (turns: readonly LabelledTurn[], speakers: string[]): Uint8Array[] =>
    speakers.map((speaker) => {
      const active = new Uint8Array(frames);
      for (const t of turns) {
        if (t.speaker !== speaker) continue;
        active.fill(1, Math.round(t.startMs / resolutionMs), Math.round(t.endMs / resolutionMs));
      }
      return active;
    });
  const ref = activity(reference, refSpeakers);
  const hyp = activity(hypothesis, hypSpeakers);
  const overlap = ref.map((r) => hyp.map((h) => r.reduce((sum, v, i) => sum + (v & h[i]!), 0)));
  const assignment = maximumAssignment(overlap);
  const mapping = new Map<string, string>();
  assignment.forEach((h, r) => {
    if (h >= 0) mapping.set(refSpeakers[r]!, hypSpeakers[h]!);
  });
  let missed = 0;
  let falseAlarm = 0;
  let confusion = 0;
  let referenceFrames = 0;
  for (let i = 0; i < frames; i++) {
    let nRef = 0;
    let nHyp = 0;
    let correct = 0;
    for (let r = 0; r < ref.length; r++) {
      if (ref[r]![i] === 0) continue;
      nRef++;
      const h = assignment[r]!;
      if (h >= 0 && hyp[h]![i] === 1) correct++;
    }
    for (const h of hyp) nHyp += h[i]!;
    referenceFrames += nRef;
    missed += Math.max(0, nRef - nHyp);
    falseAlarm += Math.max(0, nHyp - nRef);
    confusion += Math.min(nRef, nHyp) - correct;
  }
  const ms = (f: number): number => f * resolutionMs;
  return {
    der: referenceFrames === 0 ? (falseAlarm > 0 ? 1 : 0) : (missed + falseAlarm + confusion) / referenceFrames,
    missedMs: ms(missed),
    falseAlarmMs: ms(falseAlarm),
    confusionMs: ms(confusion),
    referenceMs: ms(referenceFrames),
    mapping,
  };
}

/**
 * Row → column (or -1) maximising the summed weights, one-to-one (Kuhn-Munkres on the padded
 * square cost matrix, O(n³)). Written here rather than taken from npm: about 50 lines for matrices
 * of at most 20 x 20, smaller than the dependency would be.
 */
export function maximumAssignment(weights: readonly (readonly number[])[]): number[] {
  const rows = weights.length;
  const cols = Math.max(0, ...weights.map((r) => r.length));
  const n = Math.max(rows, cols);
  if (n === 0) return [];
  const max = Math.max(0, ...weights.flat());
  const cost = (i: number, j: number): number => max - (i < rows && j < cols ? (weights[i]![j] ?? 0) : 0);
  // Potentials u (rows), v (columns), 1-based with a virtual column 0 (e-maxx formulation).
  const u = new Float64Array(n + 1);
  const v = new Float64Array(n + 1);
  const match = new Int32Array(n + 1);
  const way = new Int32Array(n + 1);
  for (let i = 1; i <= n; i++) {
    match[0] = i;
    let j0 = 0;
    const minv = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
    const used = new Uint8Array(n + 1);
    do {
      used[j0] = 1;
      const i0 = match[j0]!;
      let delta = Number.POSITIVE_INFINITY;
      let j1 = 0;
      for (let j = 1; j <= n; j++) {
        if (used[j]) continue;
        const cur = cost(i0 - 1, j - 1) - u[i0]! - v[j]!;
        if (cur < minv[j]!) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j]! < delta) {
          delta = minv[j]!;
          j1 = j;
        }
      }
      for (let j = 0; j <= n; j++) {
        if (used[j]) {
          u[match[j]!]! += delta;
          v[j]! -= delta;
        } else minv[j]! -= delta;
      }
      j0 = j1;
    } while (match[j0] !== 0);
    do {
      const j1 = way[j0]!;
      match[j0] = match[j1]!;
      j0 = j1;
    } while (j0 !== 0);
  }
  const result = new Array<number>(rows).fill(-1);
  for (let j = 1; j <= n; j++) {
    const i = match[j]! - 1;
    if (i < rows && j - 1 < cols) result[i] = j - 1;
  }
  return result;
}

/** RTTM `SPEAKER <file> 1 <start s> <duration s> <NA> <NA> <speaker> <NA> <NA>` lines. */
export function parseRttm(text: string): LabelledTurn[] {
  return text
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[0] === 'SPEAKER' && f.length >= 8)
    .map((f) => {
      const startMs = Math.round(Number(f[3]) * 1000);
      return { startMs, endMs: startMs + Math.round(Number(f[4]) * 1000), speaker: f[7]! };
    });
}

export function toRttm(file: string, turns: readonly LabelledTurn[]): string {
  return turns
    .map((t) => `SPEAKER ${file} 1 ${(t.startMs / 1000).toFixed(3)} ${((t.endMs - t.startMs) / 1000).toFixed(3)} <NA> <NA> ${t.speaker} <NA> <NA>\n`)
    .join('');
}
