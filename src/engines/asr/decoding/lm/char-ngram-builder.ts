/**
 * Builds a CharNgramLm file from sentences: interpolated Witten-Bell smoothing, stored in backoff
 * form. For a context h with c(h) continuations of T(h) distinct symbols,
 *   p(w | h) = (c(hw) + T(h) p(w | h')) / (c(h) + T(h)),   h' = h without its oldest symbol,
 * and the unigram level interpolates with a uniform distribution over every symbol but <s>.
 * N-grams of order n >= 2 seen fewer than `minCounts[n]` times are pruned; each context's backoff
 * weight is then recomputed from the kept entries so that every distribution still sums to 1:
 *   bow(h) = (1 - sum_kept p(w | h)) / (1 - sum_kept p_bo(w | h')).
 * Keys are strings of UTF-16 units, one unit per symbol id, so JS string order is trie order.
 */
import { BOS, EOS, FIRST_CHAR_SYMBOL, LM_HEADER_BYTES, LM_LAYOUT, LM_MAX_ORDER, UNK } from './char-ngram-lm.js';
import { align4, writeLmChecksum, writeLmHeader } from './lm-file.js';

export interface BuildOptions {
  readonly order: number;
  /** Characters seen fewer times become <unk>. Default 2. */
  readonly minCharCount?: number;
  /** Least count kept per order (index n-1 for order n; orders 1 and 2 are never pruned). Default 1 everywhere. */
  readonly minCounts?: readonly number[];
  readonly flags?: number;
}

export interface BuildReport {
  readonly sentences: number;
  readonly characters: number;
  readonly symbols: number;
  readonly unkCharacters: number;
  readonly counts: readonly number[];
  readonly bytes: number;
}

/** Sentences are already normalised text; each becomes <s> c1 .. cn </s>. Empty lines are skipped. */
export function buildCharNgramLm(sentences: readonly string[], options: BuildOptions): { bytes: Uint8Array; report: BuildReport } {
  const order = options.order;
  if (!Number.isInteger(order) || order < 1 || order > LM_MAX_ORDER) throw new RangeError(`order must be 1..${LM_MAX_ORDER}`);
  const minCounts = Array.from({ length: order }, (_, n) => (n < 2 ? 1 : Math.max(1, options.minCounts?.[n] ?? 1)));
  for (let n = 1; n < order; n++) minCounts[n] = Math.max(minCounts[n]!, minCounts[n - 1]!); // keeps prefixes of kept n-grams

  // Alphabet.
  const charCounts = new Map<number, number>();
  const lines: number[][] = [];
  for (const sentence of sentences) {
    if (sentence.length === 0) continue;
    const cps = Array.from(sentence, (c) => c.codePointAt(0)!);
    for (const cp of cps) charCounts.set(cp, (charCounts.get(cp) ?? 0) + 1);
    lines.push(cps);
  }
  const minChar = options.minCharCount ?? 2;
  const alphabet = [...charCounts]
    .filter(([, c]) => c >= minChar)
    .map(([cp]) => cp)
    .sort((a, b) => a - b);
  if (alphabet.length + FIRST_CHAR_SYMBOL > 0xd7ff) throw new RangeError('too many distinct characters for a u16 symbol id');
  const symbolOf = new Map<number, number>(alphabet.map((cp, i) => [cp, i + FIRST_CHAR_SYMBOL]));
  const symbols = alphabet.length + FIRST_CHAR_SYMBOL;

  // Counts of every n-gram, n = 1..order; <s> only starts n-grams, it is never predicted.
  const counts: Map<string, number>[] = Array.from({ length: order }, () => new Map());
  let characters = 0;
  let unkCharacters = 0;
  for (const cps of lines) {
    const seq = [BOS];
    for (const cp of cps) {
      const s = symbolOf.get(cp) ?? UNK;
      if (s === UNK) unkCharacters++;
      seq.push(s);
    }
    seq.push(EOS);
    characters += cps.length;
    const key = String.fromCharCode(...seq);
    for (let i = 1; i < seq.length; i++) {
      for (let n = 1; n <= order && i - n + 1 >= 0; n++) {
        const k = key.slice(i - n + 1, i + 1);
        const m = counts[n - 1]!;
        m.set(k, (m.get(k) ?? 0) + 1);
      }
    }
  }

  // Context statistics: c(h) and T(h) over the full (unpruned) counts.
  const ctxTotal: Map<string, number>[] = [];
  const ctxTypes: Map<string, number>[] = [];
  for (let n = 0; n < order; n++) {
    const total = new Map<string, number>();
    const types = new Map<string, number>();
    for (const [k, c] of counts[n]!) {
      const h = k.slice(0, -1);
      total.set(h, (total.get(h) ?? 0) + c);
      types.set(h, (types.get(h) ?? 0) + 1);
    }
    ctxTotal.push(total);
    ctxTypes.push(types);
  }

  // Interpolated probabilities of every seen n-gram, order by order.
  const uniform = 1 / (symbols - 1);
  const interp: Map<string, number>[] = [];
  {
    const level = new Map<string, number>();
    const c = ctxTotal[0]!.get('') ?? 0;
    const t = ctxTypes[0]!.get('') ?? 0;
    for (let s = 0; s < symbols; s++) {
      if (s === BOS) continue;
      const k = String.fromCharCode(s);
      level.set(k, c + t === 0 ? uniform : ((counts[0]!.get(k) ?? 0) + t * uniform) / (c + t));
    }
    interp.push(level);
  }
  for (let n = 1; n < order; n++) {
    const level = new Map<string, number>();
    for (const [k, c] of counts[n]!) {
      const h = k.slice(0, -1);
      const lower = interp[n - 1]!.get(k.slice(1))!;
      const total = ctxTotal[n]!.get(h)!;
      const types = ctxTypes[n]!.get(h)!;
      level.set(k, (c + types * lower) / (total + types));
    }
    interp.push(level);
  }

  // Pruning and backoff weights (natural logs stored).
  const kept: string[][] = [];
  const prob: Map<string, number>[] = [];
  const bow: Map<string, number>[] = [];
  const pBackoff = (k: string): number => {
    // Final (pruned) model probability of the last symbol of k given the rest.
    for (let start = 0, weight = 1; ; start++) {
      const sub = k.slice(start);
      const n = sub.length;
      const p = prob[n - 1]?.get(sub);
      if (p !== undefined) return weight * p;
      const b = bow[n - 2]?.get(sub.slice(0, -1));
      if (b !== undefined) weight *= b;
      if (n === 1) return weight * (prob[0]!.get(String.fromCharCode(UNK)) ?? uniform);
    }
  };
  for (let n = 0; n < order; n++) {
    const keys =
      n === 0 ? Array.from({ length: symbols }, (_, s) => String.fromCharCode(s)) : [...interp[n]!.keys()].filter((k) => counts[n]!.get(k)! >= minCounts[n]!);
    keys.sort();
    kept.push(keys);
    const p = new Map<string, number>();
    for (const k of keys) p.set(k, n === 0 && k.charCodeAt(0) === BOS ? 0 : interp[n]!.get(k)!);
    prob.push(p);
    bow.push(new Map());
    if (n === 0) continue;
    // Backoff weights of the order-n contexts (order n-1 entries) from the kept children.
    const sumP = new Map<string, number>();
    const sumLower = new Map<string, number>();
    for (const k of keys) {
      const h = k.slice(0, -1);
      sumP.set(h, (sumP.get(h) ?? 0) + p.get(k)!);
      sumLower.set(h, (sumLower.get(h) ?? 0) + pBackoff(k.slice(1)));
    }
    const weights = bow[n - 1]!;
    for (const h of kept[n - 1]!) {
      if (h.charCodeAt(h.length - 1) === EOS) continue; // nothing follows </s>
      const sp = sumP.get(h) ?? 0;
      const sl = sumLower.get(h) ?? 0;
      const left = Math.max(1 - sp, 1e-12);
      const right = Math.max(1 - sl, 1e-12);
      weights.set(h, left / right);
    }
  }

  // Serialise.
  const levelCounts = kept.map((k) => k.length);
  let size = LM_HEADER_BYTES + 4 * symbols;
  levelCounts.forEach((count, n) => {
    size += align4(2 * count) + 4 * count;
    if (n < order - 1) size += 8 * count + 4;
  });
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  writeLmHeader(view, LM_LAYOUT, order, symbols, options.flags ?? 0, levelCounts);
  let at = LM_HEADER_BYTES;
  for (let s = 0; s < symbols; s++, at += 4) view.setUint32(at, s < FIRST_CHAR_SYMBOL ? 0 : alphabet[s - FIRST_CHAR_SYMBOL]!, true);
  for (let n = 0; n < order; n++) {
    const keys = kept[n]!;
    for (let i = 0; i < keys.length; i++) view.setUint16(at + 2 * i, keys[i]!.charCodeAt(n), true);
    at += align4(2 * keys.length);
    for (let i = 0; i < keys.length; i++) {
      const p = prob[n]!.get(keys[i]!)!;
      view.setFloat32(at + 4 * i, p > 0 ? Math.log(p) : -99, true);
    }
    at += 4 * keys.length;
    if (n < order - 1) {
      for (let i = 0; i < keys.length; i++) {
        const b = bow[n]!.get(keys[i]!);
        view.setFloat32(at + 4 * i, b === undefined ? 0 : b > 0 ? Math.log(b) : -99, true);
      }
      at += 4 * keys.length;
      // Children are sorted the same way, so one pass assigns each child range.
      const children = kept[n + 1]!;
      let child = 0;
      for (let i = 0; i < keys.length; i++) {
        view.setUint32(at + 4 * i, child, true);
        const parent = keys[i]!;
        while (child < children.length && children[child]!.slice(0, -1) === parent) child++;
      }
      view.setUint32(at + 4 * keys.length, child, true);
      if (child !== children.length) throw new Error(`internal: order ${n + 2} entries without a parent`);
      at += 4 * (keys.length + 1);
    }
  }
  writeLmChecksum(bytes, LM_HEADER_BYTES);
  return { bytes, report: { sentences: lines.length, characters, symbols, unkCharacters, counts: levelCounts, bytes: size } };
}
