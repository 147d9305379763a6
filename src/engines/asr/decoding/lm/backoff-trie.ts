/**
 * The n-gram lookup shared by the character LM (HNLM files) and the word LM (HWLM files): one
 * level per order, each entry's children sorted by symbol id in the next level (`next[i]` to
 * `next[i + 1]`), found by binary search. ln p(w | h) backs off over the context's suffixes,
 * longest first: for each, one descent finds the context entry and then the n-gram; an unseen
 * context has backoff weight 1 (ln 0). Views over the file's bytes: the owner keeps the buffer.
 */

/** One order's arrays; `bows` and `next` are null for the highest order. */
export interface TrieLevel {
  readonly words: Uint16Array | Uint32Array;
  readonly probs: Float32Array;
  readonly bows: Float32Array | null;
  readonly next: Uint32Array | null;
}

export class BackoffTrie {
  readonly order: number;
  /** Context suffix (single-threaded use). */
  private readonly scratch: Uint32Array;

  /** Ids at or above `vocabularySize` read as `unk`. */
  constructor(
    private readonly levels: readonly TrieLevel[],
    private readonly vocabularySize: number,
    private readonly unk: number,
  ) {
    this.order = levels.length;
    this.scratch = new Uint32Array(Math.max(1, levels.length));
  }

  /** ln p(symbol | context); context: the preceding ids, oldest first (only the last order-1 are used). */
  logProb(context: ArrayLike<number>, symbol: number): number {
    const word = symbol < this.vocabularySize ? symbol : this.unk;
    const k = Math.min(context.length, this.order - 1);
    const h = this.scratch;
    for (let i = 0; i < k; i++) {
      const s = context[context.length - k + i]!;
      h[i] = s < this.vocabularySize ? s : this.unk;
    }
    let backoff = 0;
    for (let start = 0; start < k; start++) {
      // Descend h[start..k) to the context entry.
      let index = h[start]!;
      let level = 0;
      for (let i = start + 1; i < k && index >= 0; i++, level++) index = this.child(level, index, h[i]!);
      if (index < 0) continue; // context unseen: bow 1
      const ngram = this.child(level, index, word);
      if (ngram >= 0) return backoff + this.levels[level + 1]!.probs[ngram]!;
      backoff += this.levels[level]!.bows![index]!;
    }
    return backoff + this.levels[0]!.probs[word]!;
  }

  /** Entries per order (for reports). */
  counts(): number[] {
    return this.levels.map((l) => l.words.length);
  }

  /** Index of the child `target` of entry `index` at level `level` (0-based), or -1. */
  private child(level: number, index: number, target: number): number {
    const parent = this.levels[level]!.next!;
    const words = this.levels[level + 1]!.words;
    let lo = parent[index]!;
    const end = parent[index + 1]!;
    let hi = end;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (words[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    return lo < end && words[lo] === target ? lo : -1;
  }
}
