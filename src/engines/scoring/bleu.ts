/**
 * Corpus BLEU (Papineni et al. 2002) as sacreBLEU computes it by default: sentences tokenised
 * with the 13a (mteval-v13a) rules, extended so that the Ethiopic punctuation marks
 * (U+1361 to U+1368: ፡ ። ፣ ፤ ፥ ፦ ፧ ፨) are split off like ASCII punctuation; clipped n-gram
 * matches and hypothesis n-gram counts summed over the corpus for n = 1..4; brevity penalty
 * BP = 1 when the hypothesis total length c exceeds the reference total r, else exp(1 - r / c);
 *   BLEU = 100 * BP * exp(mean over n of log p_n),
 * with sacreBLEU's default "exp" smoothing: the k-th order that has no match gets
 * p_n = 1 / (2^k * hypothesis n-grams). An order with no hypothesis n-grams at all, or no
 * match anywhere, gives 0. One reference per hypothesis. Pure.
 */

const MAX_ORDER = 4;

/** 13a tokenisation (plus Ethiopic punctuation): the tokens of one sentence. */
import { ngramCounts } from './chrf.js';

export function tokenize13a(line: string): string[] {
  let text = line
    .replace(/<skipped>/g, '')
    .replace(/-\n/g, '')
    .replace(/\n/g, ' ');
  if (text.includes('&'))
    text = text
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, '&')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>');
  text = ` ${text} `;
  text = text.replace(/([{-~[-` -&(-+:-@/\u1361-\u1368])/gu, ' $1 ');
  text = text.replace(/([^0-9])([.,])/g, '$1 $2 ');
  text = text.replace(/([.,])([^0-9])/g, ' $1 $2');
  text = text.replace(/([0-9])(-)/g, '$1 $2 ');
  return text.split(/\s+/u).filter((t) => t.length > 0);
}

export interface BleuResult {
  /** 0 to 100. */
  readonly score: number;
  /** Modified n-gram precisions p_1..p_4 (0 to 1, smoothed as used in the score). */
  readonly precisions: readonly number[];
  readonly brevityPenalty: number;
  readonly hypothesisLength: number;
  readonly referenceLength: number;
}

export function corpusBleu(hypotheses: readonly string[], references: readonly string[]): BleuResult {
  if (hypotheses.length !== references.length) throw new RangeError(`${hypotheses.length} hypotheses for ${references.length} references`);
  const matches = new Array<number>(MAX_ORDER).fill(0);
  const totals = new Array<number>(MAX_ORDER).fill(0);
  let c = 0;
  let r = 0;
  hypotheses.forEach((hypothesis, i) => {
    const hyp = tokenize13a(hypothesis);
    const ref = tokenize13a(references[i]!);
    c += hyp.length;
    r += ref.length;
    for (let n = 1; n <= MAX_ORDER; n++) {
      const refCounts = ngramCounts(ref, n);
      for (const [gram, count] of ngramCounts(hyp, n)) matches[n - 1]! += Math.min(count, refCounts.get(gram) ?? 0);
      totals[n - 1]! += Math.max(0, hyp.length - n + 1);
    }
  });
  const brevityPenalty = c === 0 ? 0 : c > r ? 1 : Math.exp(1 - r / c);
  const precisions: number[] = [];
  let smooth = 1;
  for (let n = 0; n < MAX_ORDER; n++) {
    if (totals[n] === 0) precisions.push(0);
    else if (matches[n] === 0) {
      smooth *= 2;
      precisions.push(1 / (smooth * totals[n]!));
    } else precisions.push(matches[n]! / totals[n]!);
  }
  const noMatch = matches.every((m) => m === 0);
  const score =
    noMatch || precisions.some((p) => p === 0) ? 0 : 100 * brevityPenalty * Math.exp(precisions.reduce((sum, p) => sum + Math.log(p), 0) / MAX_ORDER);
  return { score, precisions, brevityPenalty, hypothesisLength: c, referenceLength: r };
}
