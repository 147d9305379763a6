/**
 * Character error rate: Levenshtein distance (substitutions, insertions, deletions, each 1) over
 * Unicode code points, divided by the reference length. Corpus CER sums edits and reference
 * lengths over utterances (not a mean of per-utterance rates).
 */

/** Edit distance between two code point sequences; O(len(a) * len(b)) time, O(len(b)) memory. */
export function editDistance(a: readonly number[] | string, b: readonly number[] | string): number {
  const x = typeof a === 'string' ? codePoints(a) : a;
  const y = typeof b === 'string' ? codePoints(b) : b;
  if (x.length === 0) return y.length;
  if (y.length === 0) return x.length;
  let prev = new Uint32Array(y.length + 1);
  let cur = new Uint32Array(y.length + 1);
  for (let j = 0; j <= y.length; j++) prev[j] = j;
  for (let i = 1; i <= x.length; i++) {
    cur[0] = i;
    const xi = x[i - 1];
    for (let j = 1; j <= y.length; j++) {
      const sub = prev[j - 1]! + (xi === y[j - 1] ? 0 : 1);
      const del = prev[j]! + 1;
      const ins = cur[j - 1]! + 1;
      cur[j] = sub < del ? (sub < ins ? sub : ins) : del < ins ? del : ins;
    }
    [prev, cur] = [cur, prev];
  }
  return prev[y.length]!;
}

export function codePoints(text: string): number[] {
  return Array.from(text, (ch) => ch.codePointAt(0)!);
}

/** CER of one hypothesis against one reference; an empty reference gives 0 (empty hyp) or 1. */
export function characterErrorRate(reference: string, hypothesis: string): number {
  const ref = codePoints(reference);
  const edits = editDistance(ref, codePoints(hypothesis));
  if (ref.length === 0) return edits === 0 ? 0 : 1;
  return edits / ref.length;
}

/** Accumulates edits and reference characters over a corpus. */
export class CerAccumulator {
  edits = 0;
  referenceChars = 0;
  utterances = 0;

  add(reference: string, hypothesis: string): number {
    const ref = codePoints(reference);
    const edits = editDistance(ref, codePoints(hypothesis));
    this.edits += edits;
    this.referenceChars += ref.length;
    this.utterances++;
    return edits;
  }

  get cer(): number {
    return this.referenceChars === 0 ? 0 : this.edits / this.referenceChars;
  }
}
