/**
 * Room tone from real recordings (issue 28's non-speech corpus): the quietest stretches of read
 * speech files (the pauses before and after the speaker reads), joined into clips.
 *
 * A stretch is a run of 10 ms frames whose level (energy with the DC offset removed) is at most
 * `aboveFloorDb` (6) over the file's floor (its 10th-percentile frame level), with no speech frame
 * (bench/speech-onset.ts: above the floor by a third of the floor-to-speech gap, at least 10 dB)
 * within `guardMs` (150), shortened by `marginMs` (30) at both ends and kept when at least `minMs`
 * (150) remain. Each stretch loses its mean (ALFFA recordings carry a DC offset of about -0.125,
 * which differs between recordings and would step at every join; room tone is what varies) and the
 * stretches are joined with 10 ms equal-power cross-fades, so no join clicks. Pure.
 */
import { frameLevels, speechFrames } from './speech-onset.js';

export interface QuietOptions {
  readonly aboveFloorDb?: number;
  readonly guardMs?: number;
  readonly marginMs?: number;
  readonly minMs?: number;
}

const FRAME = 160; // 10 ms at 16 kHz

/** The quiet stretches of 16 kHz `samples` as [start, end) sample ranges. */
export function quietStretches(samples: Float32Array, options: QuietOptions = {}): Array<readonly [number, number]> {
  const aboveFloorDb = options.aboveFloorDb ?? 6;
  const guard = Math.round((options.guardMs ?? 150) / 10);
  const margin = Math.round((options.marginMs ?? 30) / 10);
  const minFrames = Math.round((options.minMs ?? 150) / 10);
  const levels = frameLevels(samples);
  if (levels.length === 0) return [];
  const floor = [...levels].sort((a, b) => a - b)[Math.floor(0.1 * (levels.length - 1))]!;
  const speech = speechFrames(samples);
  const nearSpeech = levels.map((_, f) => speech.slice(Math.max(0, f - guard), f + guard + 1).some(Boolean));
  const quiet = levels.map((level, f) => level <= floor + aboveFloorDb && !nearSpeech[f]);
  const out: Array<readonly [number, number]> = [];
  for (let f = 0; f < quiet.length; ) {
    if (!quiet[f]) {
      f++;
      continue;
    }
    let end = f;
    while (end < quiet.length && quiet[end]) end++;
    const a = f + margin;
    const b = end - margin;
    if (b - a >= minFrames) out.push([a * FRAME, b * FRAME]);
    f = end;
  }
  return out;
}

/** `pieces` joined end to end with `fadeMs` equal-power cross-fades (pieces shorter than two fades are skipped). */
export function joinWithCrossfades(pieces: readonly Float32Array[], fadeMs = 10): Float32Array {
  const fade = Math.round((fadeMs / 1000) * 16_000);
  const usable = pieces.filter((p) => p.length >= 2 * fade);
  const total = usable.reduce((n, p) => n + p.length, 0) - Math.max(0, usable.length - 1) * fade;
  const out = new Float32Array(Math.max(0, total));
  let at = 0;
  for (const [index, piece] of usable.entries()) {
    for (let i = 0; i < piece.length; i++) {
      const fadingIn = index > 0 && i < fade;
      const gain = fadingIn ? Math.sin((Math.PI / 2) * ((i + 0.5) / fade)) : 1;
      if (fadingIn) {
        // The previous piece's tail, already in `out`, fades out with the cosine.
        out[at + i] = out[at + i]! * Math.cos((Math.PI / 2) * ((i + 0.5) / fade)) + gain * piece[i]!;
      } else out[at + i] = piece[i]!;
    }
    at += piece.length - fade;
  }
  return out;
}
