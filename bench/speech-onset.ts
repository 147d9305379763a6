/**
 * Where speech is in a recording, for tests and benchmarks that need a stream which
 * starts in speech at sample 0 (a call joined mid-sentence, a file that starts with a word).
 *
 * 10 ms frames, energy with the DC offset removed; noise and speech levels are the 10th and
 * 95th percentiles of the frame levels; the onset is the first frame above the noise by a
 * third of the gap (at least 10 dB). Pure: samples in, a sample index out.
 */
export function speechOnset(samples: Float32Array, sampleRate = 16_000): number {
  const frames = speechFrames(samples, sampleRate);
  const first = frames.findIndex((speech) => speech);
  return first < 0 ? 0 : first * Math.round(sampleRate / 100);
}

/** Per whole 10 ms frame: its level in dB (10 log10 of the variance, the mean removed; at least -120). */
export function frameLevels(samples: Float32Array, sampleRate = 16_000): number[] {
  const frame = Math.round(sampleRate / 100);
  const levels: number[] = [];
  for (let at = 0; at + frame <= samples.length; at += frame) {
    let sum = 0;
    let sumSquares = 0;
    for (let i = at; i < at + frame; i++) {
      sum += samples[i]!;
      sumSquares += samples[i]! * samples[i]!;
    }
    const mean = sum / frame;
    const variance = Math.max(sumSquares / frame - mean * mean, 1e-12);
    levels.push(10 * Math.log10(variance));
  }
  return levels;
}

/** Per 10 ms frame: above the speech threshold described above. */
export function speechFrames(samples: Float32Array, sampleRate = 16_000): boolean[] {
  const levels = frameLevels(samples, sampleRate);
  if (levels.length === 0) return [];
  const sorted = [...levels].sort((a, b) => a - b);
  const noise = sorted[Math.floor(0.1 * (sorted.length - 1))]!;
  const speech = sorted[Math.floor(0.95 * (sorted.length - 1))]!;
  const threshold = noise + Math.max(10, (speech - noise) / 3);
  return levels.map((level) => level > threshold);
}
