/**
 * Which words of a hypothesis are the reference's words: an edit-distance alignment of the two
 * word sequences (unit costs for substitution, insertion and deletion; among the alignments of
 * least cost, one with the most equal pairs), of which the pairs with equal keys are the matches.
 * Used to compare per-word properties (times) of the words both sides agree on. Pure; O(n x m).
 */
export interface WordMatch {
  readonly reference: number;
  readonly hypothesis: number;
}

export function matchWords(reference: readonly string[], hypothesis: readonly string[]): WordMatch[] {
  const n = reference.length;
  const m = hypothesis.length;
  const width = m + 1;
  // Cost and matches so far, compared as one number: cost first, more matches better.
  const scale = n + m + 1;
  const score = new Float64Array((n + 1) * width);
  for (let i = 0; i <= n; i++) score[i * width] = i * scale;
  for (let j = 0; j <= m; j++) score[j] = j * scale;
  const diagonal = (i: number, j: number): number => score[(i - 1) * width + j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? -1 : scale);
  for (let i = 1; i <= n; i++) {
    for (let j = 1; j <= m; j++) {
      score[i * width + j] = Math.min(diagonal(i, j), score[(i - 1) * width + j]! + scale, score[i * width + j - 1]! + scale);
    }
  }
  const matches: WordMatch[] = [];
  let i = n;
  let j = m;
  while (i > 0 && j > 0) {
    const here = score[i * width + j]!;
    if (here === diagonal(i, j)) {
      if (reference[i - 1] === hypothesis[j - 1]) matches.push({ reference: i - 1, hypothesis: j - 1 });
      i--;
      j--;
    } else if (here === score[(i - 1) * width + j]! + scale) i--;
    else j--;
  }
  return matches.reverse();
}
