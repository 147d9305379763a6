// CTC score matrices written by hand for the decoder tests: each frame names the probability of a
// few tokens and spreads the rest evenly over the others. Pure.
import type { CtcScores } from '../../src/engines/asr/decoding/ctc-types.js';

/**
 * Frames of probabilities over `tokens` (each row: token -> p, the rest spread evenly over the
 * tokens it does not name, at least 1e-6), as log-probabilities.
 */
export function ctcFrames(tokens: readonly string[], rows: Array<Record<string, number>>): CtcScores {
  const V = tokens.length;
  const data = new Float32Array(rows.length * V);
  rows.forEach((row, t) => {
    const named = Object.values(row).reduce((a, b) => a + b, 0);
    const rest = (1 - named) / (V - Object.keys(row).length);
    for (let v = 0; v < V; v++) data[t * V + v] = Math.log(row[tokens[v]!] ?? Math.max(rest, 1e-6));
  });
  return { data, frames: rows.length, vocabSize: V };
}
