/**
 * Keyterm boosting for the CTC prefix beam search (contextual biasing): the request's keyterms
 * become a prefix trie with failure links (Aho-Corasick, as k2/icefall's and sherpa-onnx's
 * `ContextGraph`), walked by the characters every beam prefix emits. Pure: no I/O, no clocks.
 *
 * Rules:
 * - Unit. The trie is over characters in one folded form (`foldForBias`): NFC, zero-width marks
 *   removed, apostrophe variants as `'`, lower case, every other punctuation mark or symbol a
 *   word break, whitespace collapsed. Each vocabulary token is folded the same way (so casing
 *   and punctuation never decide a match): the word delimiter and whitespace or punctuation-only
 *   tokens are one space, the blank and `<unk>`-style specials are transparent (no step), a
 *   multi-character token steps once per character. A keyterm character the vocabulary cannot
 *   write is replaced by its ALFFA homophone (ሐ→ሀ, ሠ→ሰ, ዐ→አ, ፀ→ጸ: small-am-v2 writes only the
 *   merged letters) when the vocabulary writes that; a keyterm still unwritable is dropped.
 * - Matching. A term matches anywhere (also inside a longer word: Amharic attaches prepositions
 *   and suffixes to names); a space in a term needs a word delimiter there; repeated delimiters
 *   count as one; a delimiter where no term goes on leaves the trie (back to the root).
 * - Scores (added to the prefix's log score). While a prefix's last characters follow a trie
 *   path of depth d, it holds `perChar` x d. A character that leaves the path falls back along
 *   the failure links to the longest suffix that is still a path (d'), and the bonus becomes
 *   `perChar` x d': what the abandoned part earned is taken back. Reaching the end of a term locks
 *   in `completion` + `perChar` x its length for good (the term was written); a term with no
 *   longer term behind it then continues from its failure node. At the end of the utterance the
 *   unfinished path's bonus is taken back (`final`), so only written terms keep a bonus.
 * - Limits of a request (KEYTERM_LIMITS): at most 100 terms, each 1..50 characters after NFC,
 *   trimming and collapsing whitespace (`checkKeyterms`); duplicates are dropped.
 */
import { mergeAmharicHomophones } from '../text/alffa-scoring.js';
import type { CtcVocabulary } from './ctc-types.js';

export const KEYTERM_LIMITS = { maxTerms: 100, maxChars: 50 } as const;

/** Bonus weights in the log domain (nats), the same scale as the decoder's `beta`. */
export interface KeytermWeights {
  /** Per character while a prefix follows a term's path; taken back when it leaves the path. */
  readonly perChar: number;
  /** Per written term, on top of locking in its per-character bonus. */
  readonly completion: number;
}

/** A prefix's place in the trie and the bonus it holds. */
export interface BiasState {
  readonly node: number;
  /** Locked-in bonuses plus `perChar` x the depth of `node`. */
  readonly score: number;
}

const ZERO_WIDTH = /[\u200b-\u200d\u2060\ufeff\u00ad]/gu;
const APOSTROPHES = /[\u2018\u2019\u02bc\u02bb`\u2032\u00b4]/gu;

/** The form terms and tokens are compared in (see the module comment); not trimmed. */
export function foldForBias(text: string): string {
  return text
    .normalize('NFC')
    .replace(ZERO_WIDTH, '')
    .replace(APOSTROPHES, "'")
    .toLowerCase()
    .replace(/(?<=\p{L})'(?=\p{L})/gu, '\u0001')
    .replace(/[^\p{L}\p{M}\p{Nd}\s\u0001]/gu, ' ')
    .replace(/\u0001/gu, "'")
    .replace(/[\s\u2581]+/gu, ' ');
}

/** Why a request's keyterms were refused: too many, or the one at `index` empty or too long. */
export type KeytermProblem =
  | { readonly reason: 'too_many'; readonly problem: string }
  | { readonly reason: 'empty' | 'too_long'; readonly problem: string; readonly index: number };

/**
 * A request's keyterms, cleaned (NFC, trimmed, inner whitespace collapsed, exact duplicates
 * dropped), or the first problem with KEYTERM_LIMITS.
 */
export function checkKeyterms(raw: readonly string[]): { readonly keyterms: string[] } | KeytermProblem {
  if (raw.length > KEYTERM_LIMITS.maxTerms) {
    return { reason: 'too_many', problem: `must hold at most ${KEYTERM_LIMITS.maxTerms} items` };
  }
  const out: string[] = [];
  for (let index = 0; index < raw.length; index++) {
    const term = raw[index]!.normalize('NFC').trim().replace(/\s+/gu, ' ');
    const length = [...term].length;
    if (length === 0) return { reason: 'empty', problem: 'must not be empty', index };
    if (length > KEYTERM_LIMITS.maxChars) {
      return { reason: 'too_long', problem: `must be at most ${KEYTERM_LIMITS.maxChars} characters long`, index };
    }
    if (!out.includes(term)) out.push(term);
  }
  return { keyterms: out };
}

/**
 * A refusal in the words of the APIs' field checks: the field (`keyterms`, or `keyterms.<index>`
 * for one term) and "Invalid value for '<field>': <problem>.".
 */
export function keytermProblemText(problem: KeytermProblem, field = 'keyterms'): { readonly param: string; readonly message: string } {
  const param = problem.reason === 'too_many' ? field : `${field}.${problem.index}`;
  return { param, message: `Invalid value for '${param}': ${problem.problem}.` };
}

/** Per token: its folded characters, or null when it is transparent (blank, specials). */
function tokenCharacters(vocabulary: CtcVocabulary): (string | null)[] {
  return vocabulary.tokens.map((token, id) => {
    if (id === vocabulary.blankId || /^<[^<>]+>$|^\[[^[\]]+\]$/.test(token)) return null;
    if (token === vocabulary.wordDelimiter) return ' ';
    // An apostrophe token is a letter (Oromo's hudhaa), as it is inside a folded word.
    if (token.replace(APOSTROPHES, "'") === "'") return "'";
    const folded = foldForBias(token);
    // Whitespace and punctuation-only tokens break words; a token that folds to letters keeps them.
    return folded.trim() === '' ? ' ' : folded;
  });
}

/** The trie with failure links over the folded terms; node 0 is the root. */
class KeytermTrie {
  readonly children: Map<string, number>[] = [new Map()];
  readonly depth: number[] = [0];
  readonly fail: number[] = [0];
  readonly end: boolean[] = [false];
  /** The character that leads into each node ('' for the root). */
  readonly char: string[] = [''];
  private readonly moves: Map<string, number>[] = [new Map()];

  constructor(terms: readonly string[]) {
    for (const term of terms) {
      let node = 0;
      for (const ch of term) {
        let next = this.children[node]!.get(ch);
        if (next === undefined) {
          next = this.children.length;
          this.children.push(new Map());
          this.depth.push(this.depth[node]! + 1);
          this.fail.push(0);
          this.end.push(false);
          this.char.push(ch);
          this.moves.push(new Map());
          this.children[node]!.set(ch, next);
        }
        node = next;
      }
      this.end[node] = true;
    }
    // Failure links breadth first: the longest proper suffix of a node's path that is a path.
    const queue = [...this.children[0]!.values()];
    for (let i = 0; i < queue.length; i++) {
      const node = queue[i]!;
      for (const [ch, child] of this.children[node]!) {
        this.fail[child] = node === 0 ? 0 : this.move(this.fail[node]!, ch);
        queue.push(child);
      }
    }
  }

  /** The node after `ch` from `node`: its child, else the failure node's move, else the root. */
  move(node: number, ch: string): number {
    const known = this.moves[node]!.get(ch);
    if (known !== undefined) return known;
    let at = node;
    let next = this.children[at]!.get(ch);
    while (next === undefined && at !== 0) {
      at = this.fail[at]!;
      next = this.children[at]!.get(ch);
    }
    const result = next ?? 0;
    this.moves[node]!.set(ch, result);
    return result;
  }
}

/** The bias of one request's keyterms over one vocabulary; see the module comment. */
export class KeytermBias {
  /** The folded terms in the trie. */
  readonly terms: readonly string[];
  /** Requested terms the vocabulary cannot write (or that fold to nothing): never boosted. */
  readonly dropped: readonly string[];
  readonly root: BiasState = { node: 0, score: 0 };
  private readonly trie: KeytermTrie;
  private readonly tokens: (string | null)[];

  constructor(
    keyterms: readonly string[],
    vocabulary: CtcVocabulary,
    readonly weights: KeytermWeights,
  ) {
    this.tokens = tokenCharacters(vocabulary);
    const alphabet = new Set<string>();
    for (const chars of this.tokens) if (chars !== null) for (const ch of chars) alphabet.add(ch);
    const terms: string[] = [];
    const dropped: string[] = [];
    for (const keyterm of keyterms) {
      const term = writable(foldForBias(keyterm).trim(), alphabet);
      if (term === null) dropped.push(keyterm);
      else if (!terms.includes(term)) terms.push(term);
    }
    this.terms = terms;
    this.dropped = dropped;
    this.trie = new KeytermTrie(terms);
  }

  /** The state after the prefix emits `token`. */
  next(state: BiasState, token: number): BiasState {
    const chars = this.tokens[token];
    if (chars === null || chars === undefined) return state;
    const { perChar, completion } = this.weights;
    const trie = this.trie;
    let { node, score } = state;
    for (const ch of chars) {
      // Repeated word breaks count once; a break at the root changes nothing.
      if (ch === ' ' && (node === 0 || trie.char[node] === ' ')) continue;
      const to = trie.move(node, ch);
      score += perChar * (trie.depth[to]! - trie.depth[node]!);
      node = to;
      if (trie.end[node]) {
        score += completion + perChar * trie.depth[node]!;
        if (trie.children[node]!.size === 0) {
          const back = trie.fail[node]!;
          score += perChar * (trie.depth[back]! - trie.depth[node]!);
          node = back;
        }
      }
    }
    return node === state.node && score === state.score ? state : { node, score };
  }

  /** The bonus a finished prefix keeps: the unfinished path's part is taken back. */
  final(state: BiasState): number {
    return state.score - this.weights.perChar * this.trie.depth[state.node]!;
  }
}

/** `term` in characters the vocabulary writes (homophone fallback), or null when it cannot be written. */
function writable(term: string, alphabet: ReadonlySet<string>): string | null {
  if (term === '') return null;
  let out = '';
  for (const ch of term) {
    if (ch === ' ' || alphabet.has(ch)) out += ch;
    else {
      const merged = mergeAmharicHomophones(ch);
      if (!alphabet.has(merged)) return null;
      out += merged;
    }
  }
  return out;
}
