/**
 * CTC prefix beam search with an optional character n-gram LM (shallow fusion).
 *
 * Score of a prefix: ln P_ctc(prefix) + alpha * ln P_lm(prefix) + beta * tokens, where tokens
 * counts the emitted non-blank tokens (a per-character insertion bonus that offsets the LM's
 * per-character cost). At the end of the utterance ln P_lm(</s> | prefix) is added too.
 * Tokens map to LM symbols through their characters (lower-cased for a lower-cased LM); the word
 * delimiter is a space (LM-transparent when the LM has no space symbol: a letters-only LM); marks the LM does not know (punctuation for a no-punctuation LM) and
 * `<unk>`-style specials cost nothing in the LM and leave its context unchanged.
 *
 * Word fusion (optional `lm.word`, a word n-gram LM with an open vocabulary): a word ends at a word
 * delimiter (and at the end of the utterance); its letters since the previous delimiter are looked
 * up and `weight` x ln P_word(word | previous words) is added (`<unk>` for a word outside the
 * vocabulary), plus `bonus` per word. Mode `add` keeps the character LM over every letter (log-linear
 * combination: the character LM scores the spelling, the word LM the word sequence). Mode `replace`
 * is a word LM with a character fallback: inside a word the character LM is the look-ahead, and at
 * the word's end its character score is taken back when the word is in the vocabulary, so an
 * in-vocabulary word costs ln P_word(w | h) and an unknown one ln P_word(<unk> | h) plus its
 * character spelling (weights: `alpha` for characters, `weight` for words).
 *
 * Keyterm boosting (optional `keyterms`, keyterm-bias.ts): a prefix's keyterm bonus is added to its
 * score; for the final choice the bonus of a term left unfinished is taken back.
 *
 * Pruning, per frame: only tokens with ln p >= `tokenMinLogProb` (plus the prefix's own last token,
 * for its repeat) are tried, at most `maxCandidates` of them; prefixes more than `beamPruneLogProb`
 * below the best are dropped before the top `beamWidth` are kept.
 *
 * Timing and confidence: the best label sequence is force-aligned to the frames (Viterbi over the
 * CTC topology, ctc-alignment.ts), which gives every token its frames; a token's probability is its
 * mean posterior over them, as in the greedy decoder, so words keep start/end frames and a confidence.
 *
 * Cost: `decode` runs on the calling thread, about 1 ms per 3 s of speech at beam 8 + LM; the
 * gateway calls it in the inference workers (src/engines/asr/inference/inference-worker.ts), never on the
 * event loop. The same search runs frame by frame for live turns: CtcBeamStream (ctc-beam-stream.ts).
 */
import type { CharNgramLm } from './lm/char-ngram-lm.js';
import { BOS, EOS, UNK } from './lm/char-ngram-lm.js';
import type { WordNgramLm } from './lm/word-ngram-lm.js';
import { WORD_BOS, WORD_EOS, WORD_UNK } from './lm/word-ngram-lm.js';
import { alignTokens } from './ctc-alignment.js';
import { buildHypothesis } from './ctc-greedy-decoder.js';
import type { BiasState, KeytermBias } from './keyterm-bias.js';
import type { CtcDecoder, CtcHypothesis, CtcScores, CtcVocabulary } from './ctc-types.js';

export interface BeamWordLm {
  readonly model: WordNgramLm;
  /** Weight of ln P_word at each word end. */
  readonly weight: number;
  /** `add`: character LM over every letter plus the word LM; `replace`: word LM with a character fallback. */
  readonly mode: 'add' | 'replace';
  /** Added per completed word. Default 0. */
  readonly bonus?: number;
}

export interface BeamLm {
  readonly model: CharNgramLm;
  readonly alpha: number;
  readonly beta: number;
  /** Word-level fusion on top of the character LM; see the module comment. */
  readonly word?: BeamWordLm | null;
}

/** A prefix's word-LM state (word fusion only). */
interface WordState {
  /** Last order-1 word ids, oldest first. */
  readonly context: readonly number[];
  /** Letters since the last word delimiter. */
  readonly partial: string;
  /** Sum of ln P_word over the completed words. */
  readonly score: number;
  /** Completed words. */
  readonly count: number;
  /** Character-LM score of the completed in-vocabulary words (taken back in `replace` mode). */
  readonly replaced: number;
  /** The prefix's character-LM score where the current word began. */
  readonly charAtStart: number;
}

const ROOT_WORDS: WordState = { context: [WORD_BOS], partial: '', score: 0, count: 0, replaced: 0, charAtStart: 0 };

/** The word state after completing the current word (at a word delimiter or the end of the utterance). */
function completeWord(lm: BeamWordLm, state: WordState, charScore: number): WordState {
  if (state.partial === '') return state.charAtStart === charScore ? state : { ...state, charAtStart: charScore };
  const id = lm.model.id(state.partial);
  const lp = lm.model.logProb(state.context, id);
  const keep = lm.model.order - 1;
  const context = keep === 0 ? [] : [...state.context, id].slice(-keep);
  return {
    context,
    partial: '',
    score: state.score + lp,
    count: state.count + 1,
    replaced: id !== WORD_UNK && lm.mode === 'replace' ? state.replaced + charScore - state.charAtStart : state.replaced,
    charAtStart: charScore,
  };
}

export interface BeamSearchOptions {
  readonly beamWidth: number;
  readonly lm?: BeamLm | null;
  /** Tokens below this log posterior in a frame are not tried. Default ln(1e-3). */
  readonly tokenMinLogProb?: number;
  /** Most tokens tried per frame (the most probable). Default 8. */
  readonly maxCandidates?: number;
  /** Prefixes this far below the best (log domain) are dropped. Default 10. */
  readonly beamPruneLogProb?: number;
  /** Keyterm boosting (keyterm-bias.ts): each prefix's bonus is added to its score. */
  readonly keyterms?: KeytermBias | null;
}

const NEG = -Infinity;

function logAdd(a: number, b: number): number {
  if (a === NEG) return b;
  if (b === NEG) return a;
  return a > b ? a + Math.log1p(Math.exp(b - a)) : b + Math.log1p(Math.exp(a - b));
}

/**
 * One prefix. Only the beam and the prefixes reached in the current frame are held (plus the
 * ancestors of those, through `parent`): equal prefixes are merged through a per-frame index
 * keyed by a 53-bit hash of the label sequence, so pruned prefixes become garbage at once.
 */
class Prefix {
  pb = NEG;
  pnb = NEG;
  nextPb = NEG;
  nextPnb = NEG;
  stamp = -1;
  score = NEG;
  constructor(
    readonly parent: Prefix | null,
    readonly token: number,
    readonly length: number,
    /** Two 32-bit hashes of the label sequence. */
    readonly h1: number,
    readonly h2: number,
    /** Last order-1 LM symbols, oldest first. */
    readonly lmContext: readonly number[],
    /** Sum of ln P_lm over the prefix's symbols. */
    readonly lmScore: number,
    /** Word-LM state (null without word fusion). */
    readonly words: WordState | null = null,
    /** Keyterm state (null without keyterms). */
    readonly bias: BiasState | null = null,
  ) {}

  get key(): number {
    return prefixKey(this.h1, this.h2);
  }
}

const prefixKey = (h1: number, h2: number): number => h1 * 2097152 + (h2 >>> 11);
const nextH1 = (h1: number, token: number): number => Math.imul(h1 ^ (token + 1), 0x01000193) >>> 0;
const nextH2 = (h2: number, token: number): number => Math.imul(h2 ^ Math.imul(token + 1, 0x9e3779b1), 0x85ebca6b) >>> 0;

/** The label sequence of `p`, first label first. */
function labelsOf(p: Prefix): number[] {
  const labels: number[] = [];
  for (let q: Prefix | null = p; q && q.token >= 0; q = q.parent) labels.push(q.token);
  return labels.reverse();
}

/** LM symbols per vocabulary token; null entries are LM-transparent. */
function mapTokens(vocabulary: CtcVocabulary, lm: CharNgramLm): (number[] | null)[] {
  const space = lm.symbol(' ');
  return vocabulary.tokens.map((token, id) => {
    if (id === vocabulary.blankId) return null;
    // An LM built without spaces (letters only) leaves word delimiters to the acoustic model.
    if (token === vocabulary.wordDelimiter || token.trim() === '') return space === UNK ? null : [space];
    if (/^<[^<>]+>$|^\[[^[\]]+\]$/.test(token)) return null; // <unk>, <pad>, [UNK]-style specials
    const symbols: number[] = [];
    for (const ch of token) {
      const symbol = lm.symbol(ch);
      // Marks and symbols the LM never saw (all punctuation for a no-punctuation LM) are skipped;
      // letters and digits it never saw cost <unk>; Oromo's apostrophe is in the LM and counts.
      if (symbol === UNK && !/[\p{L}\p{M}\p{Nd}]/u.test(ch)) continue;
      symbols.push(symbol);
    }
    return symbols.length > 0 ? symbols : null;
  });
}

/** Log-softmax of one row into `out`. */
function logSoftmax(data: Float32Array, offset: number, size: number, out: Float32Array): void {
  let max = NEG;
  for (let v = 0; v < size; v++) if (data[offset + v]! > max) max = data[offset + v]!;
  let sum = 0;
  for (let v = 0; v < size; v++) sum += Math.exp(data[offset + v]! - max);
  const norm = max + Math.log(sum);
  for (let v = 0; v < size; v++) out[v] = data[offset + v]! - norm;
}

/** Per token for word fusion: null (no effect on words), '' (word delimiter) or its letters. */
function mapWordTokens(vocabulary: CtcVocabulary): (string | null)[] {
  return vocabulary.tokens.map((token, id) => {
    if (id === vocabulary.blankId) return null;
    if (token === vocabulary.wordDelimiter || token.trim() === '') return '';
    if (/^<[^<>]+>$|^\[[^[\]]+\]$/.test(token)) return null;
    const letters = [...token].filter((ch) => /[\p{L}\p{M}\p{Nd}]/u.test(ch)).join('');
    return letters === '' ? null : letters;
  });
}

export class CtcBeamDecoder implements CtcDecoder {
  private readonly tokenSymbols: (number[] | null)[] | null;
  private readonly wordTokens: (string | null)[] | null;
  private readonly space: number;
  readonly options: Required<Omit<BeamSearchOptions, 'lm' | 'keyterms'>> & { lm: BeamLm | null; keyterms: KeytermBias | null };

  constructor(
    readonly vocabulary: CtcVocabulary,
    options: BeamSearchOptions,
  ) {
    if (!Number.isInteger(options.beamWidth) || options.beamWidth < 1) throw new RangeError('beamWidth must be an integer >= 1');
    this.options = {
      beamWidth: options.beamWidth,
      lm: options.lm ?? null,
      tokenMinLogProb: options.tokenMinLogProb ?? Math.log(1e-3),
      maxCandidates: options.maxCandidates ?? 8,
      beamPruneLogProb: options.beamPruneLogProb ?? 10,
      keyterms: options.keyterms ?? null,
    };
    this.tokenSymbols = this.options.lm ? mapTokens(vocabulary, this.options.lm.model) : null;
    this.space = this.options.lm ? this.options.lm.model.symbol(' ') : UNK;
    this.wordTokens = this.options.lm?.word ? mapWordTokens(vocabulary) : null;
  }

  decode(scores: CtcScores): CtcHypothesis {
    if (scores.vocabSize !== this.vocabulary.tokens.length) {
      throw new Error(`scores have ${scores.vocabSize} classes, vocabulary has ${this.vocabulary.tokens.length}`);
    }
    const search = this.search(scores.frames);
    search.advance(scores.data, scores.frames);
    return search.hypothesis();
  }

  /** A fresh search with this decoder's options, room for `frames` frames (it grows); CtcBeamStream holds one. */
  search(frames = 0): BeamSearch {
    return new BeamSearch(this.vocabulary, this.options, this.tokenSymbols, this.space, this.wordTokens, frames);
  }
}

/**
 * The prefix beam search, frame by frame: `advance` searches more frames, `hypothesis` is the best
 * prefix as if the utterance ended there (end-of-sentence LM term, keyterm take-back, alignment).
 * `tentatively` runs a function (say, advance over a provisional tail, then hypothesis) and puts
 * the search back as it was: between frames the state is the beam (at most beamWidth prefixes,
 * whose pb/pnb are saved) and the frame count; ancestors and LM/word/keyterm states are immutable.
 */
export class BeamSearch {
  /** Frames searched. */
  private frames = 0;
  /** Stamp of the frame being searched: grows every frame, tentative ones included, so never repeats. */
  private stamp = 0;
  private beam: Prefix[];
  private readonly root: Prefix;
  /** Log-softmax of every searched frame, row-major; room for more rows than `frames`. The aligner reads it. */
  private logProbs: Float32Array;
  private readonly vocabSize: number;
  private readonly touched: Prefix[] = [];
  private readonly candidates: number[] = [];
  /** This frame's prefixes by key: the beam, then every prefix reached. */
  private readonly index = new Map<number, Prefix>();
  private readonly lmOrder: number;
  /** pb, pnb of the beam saved by `tentatively`. */
  private readonly saved: Float64Array;

  constructor(
    private readonly vocabulary: CtcVocabulary,
    private readonly options: CtcBeamDecoder['options'],
    private readonly tokenSymbols: (number[] | null)[] | null,
    private readonly space: number,
    private readonly wordTokens: (string | null)[] | null,
    capacityFrames: number,
  ) {
    this.lmOrder = options.lm?.model.order ?? 1;
    this.root = new Prefix(null, -1, 0, 0x811c9dc5, 0x12345678, [BOS], 0, wordTokens ? ROOT_WORDS : null, options.keyterms?.root ?? null);
    this.root.pb = 0;
    this.beam = [this.root];
    this.vocabSize = vocabulary.tokens.length;
    this.logProbs = new Float32Array(capacityFrames * this.vocabSize);
    this.saved = new Float64Array(2 * options.beamWidth);
  }

  private child(parent: Prefix, token: number): Prefix {
    const h1 = nextH1(parent.h1, token);
    const h2 = nextH2(parent.h2, token);
    const key = prefixKey(h1, h2);
    let node = this.index.get(key);
    if (node) return node;
    let context = parent.lmContext;
    let lmScore = parent.lmScore;
    const symbols = this.tokenSymbols?.[token];
    if (this.options.lm && symbols) {
      const lm = this.options.lm.model;
      const ctx = [...context];
      for (const s of symbols) {
        const last = ctx[ctx.length - 1];
        // Collapsed whitespace: a space at the start or after a space costs nothing.
        if (s === this.space && (last === BOS || last === this.space)) continue;
        lmScore += lm.logProb(ctx, s);
        ctx.push(s);
      }
      context = ctx.length >= this.lmOrder ? ctx.slice(ctx.length - (this.lmOrder - 1)) : ctx;
    }
    let words = parent.words;
    const wordLm = this.options.lm?.word;
    if (words && wordLm) {
      const letters = this.wordTokens![token];
      if (letters === '') words = completeWord(wordLm, words, lmScore);
      else if (letters) words = { ...words, partial: words.partial + letters };
    }
    const bias = parent.bias && this.options.keyterms ? this.options.keyterms.next(parent.bias, token) : null;
    node = new Prefix(parent, token, parent.length + 1, h1, h2, context, lmScore, words, bias);
    this.index.set(key, node);
    return node;
  }

  /** The LM part of a prefix's score (without the end of the utterance). */
  private fused(p: Prefix): number {
    const lm = this.options.lm;
    if (!lm) return 0;
    const w = p.words;
    if (!w || !lm.word) return lm.alpha * p.lmScore;
    return lm.alpha * (p.lmScore - w.replaced) + lm.word.weight * w.score + (lm.word.bonus ?? 0) * w.count;
  }

  /** The LM part of a finished prefix's score: the last word and both end-of-sentence terms. */
  private fusedAtEnd(p: Prefix): number {
    const lm = this.options.lm!;
    const charEnd = p.length > 0 ? lm.model.logProb(p.lmContext, EOS) : 0;
    if (!p.words || !lm.word) return lm.alpha * (p.lmScore + charEnd);
    const w = completeWord(lm.word, p.words, p.lmScore);
    const wordEnd = p.length > 0 ? lm.word.model.logProb(w.context, WORD_EOS) : 0;
    return lm.alpha * (p.lmScore + charEnd - w.replaced) + lm.word.weight * (w.score + wordEnd) + (lm.word.bonus ?? 0) * w.count;
  }

  private touch(p: Prefix): void {
    if (p.stamp !== this.stamp) {
      p.stamp = this.stamp;
      p.nextPb = NEG;
      p.nextPnb = NEG;
      this.touched.push(p);
    }
  }

  /**
   * Searches `frames` more rows of raw scores (`data`, row-major, vocabSize wide: logits or
   * log-probabilities). `beamWidth` narrows the beam for these frames only (a live partial's
   * provisional tail, searched tentatively); it is never wider than the decoder's.
   */
  advance(data: Float32Array, frames: number, beamWidth: number = this.options.beamWidth): void {
    if (!Number.isInteger(beamWidth) || beamWidth < 1 || beamWidth > this.options.beamWidth)
      throw new RangeError(`beamWidth must be an integer from 1 to the decoder's ${this.options.beamWidth}`);
    const vocabSize = this.vocabSize;
    const blank = this.vocabulary.blankId;
    const { tokenMinLogProb, maxCandidates, beamPruneLogProb } = this.options;
    const beta = this.options.lm?.beta ?? 0;
    const needed = (this.frames + frames) * vocabSize;
    if (needed > this.logProbs.length) {
      const grown = new Float32Array(Math.max(needed, 2 * this.logProbs.length));
      grown.set(this.logProbs.subarray(0, this.frames * vocabSize));
      this.logProbs = grown;
    }
    for (let f = 0; f < frames; f++, this.frames++, this.stamp++) {
      const row = this.logProbs.subarray(this.frames * vocabSize, (this.frames + 1) * vocabSize);
      logSoftmax(data, f * vocabSize, vocabSize, row);
      const cands = this.candidates;
      cands.length = 0;
      // Top maxCandidates tokens above tokenMinLogProb, best first (insertion into a short list).
      for (let v = 0; v < vocabSize; v++) {
        const lp = row[v]!;
        if (v === blank || lp < tokenMinLogProb) continue;
        if (cands.length === maxCandidates && lp <= row[cands[maxCandidates - 1]!]!) continue;
        let i = cands.length < maxCandidates ? cands.length : maxCandidates - 1;
        while (i > 0 && row[cands[i - 1]!]! < lp) {
          cands[i] = cands[i - 1]!;
          i--;
        }
        cands[i] = v;
      }
      const lpBlank = row[blank]!;
      this.touched.length = 0;
      this.index.clear();
      for (const p of this.beam) this.index.set(p.key, p);
      for (const p of this.beam) {
        const total = logAdd(p.pb, p.pnb);
        this.touch(p);
        p.nextPb = logAdd(p.nextPb, total + lpBlank);
        if (p.token >= 0) p.nextPnb = logAdd(p.nextPnb, p.pnb + row[p.token]!);
        for (const c of cands) {
          const q = this.child(p, c);
          this.touch(q);
          q.nextPnb = logAdd(q.nextPnb, (c === p.token ? p.pb : total) + row[c]!);
        }
      }
      let best = NEG;
      for (const p of this.touched) {
        p.pb = p.nextPb;
        p.pnb = p.nextPnb;
        p.score = logAdd(p.pb, p.pnb) + this.fused(p) + beta * p.length + (p.bias?.score ?? 0);
        if (p.score > best) best = p.score;
      }
      // Prefixes not touched this frame had no mass carried forward; only touched ones survive.
      const kept = this.touched.filter((p) => p.score >= best - beamPruneLogProb);
      kept.sort((a, b) => b.score - a.score);
      if (kept.length > beamWidth) kept.length = beamWidth;
      this.beam = kept;
    }
  }

  /** Runs `fn` and puts the search back as it was before it (beam, frame count), whatever `fn` searched. */
  tentatively<T>(fn: () => T): T {
    const beam = this.beam;
    const frames = this.frames;
    for (let i = 0; i < beam.length; i++) {
      this.saved[2 * i] = beam[i]!.pb;
      this.saved[2 * i + 1] = beam[i]!.pnb;
    }
    try {
      return fn();
    } finally {
      // Only the beam's own prefixes can have been touched since: the rest are new or unreachable.
      for (let i = 0; i < beam.length; i++) {
        beam[i]!.pb = this.saved[2 * i]!;
        beam[i]!.pnb = this.saved[2 * i + 1]!;
      }
      this.beam = beam;
      this.frames = frames;
    }
  }

  /** The best hypothesis as if the utterance ended after the frames searched: labels, then their alignment. */
  hypothesis(): CtcHypothesis {
    const tokens = alignTokens(this.bestLabels(), this.logProbs, this.frames, this.vocabSize, this.vocabulary.blankId);
    return buildHypothesis(tokens, this.vocabulary);
  }

  /**
   * The labels every prefix of the beam starts with (their common ancestor's); with `margin`,
   * only the prefixes whose search score (CTC, LM, length and keyterm terms, natural log) is
   * within `margin` of the best one's count.
   */
  commonLabels(margin = Number.POSITIVE_INFINITY): number[] {
    const scores = this.beam.map((p) => p.score);
    const best = Math.max(...scores);
    const cursor = this.beam.filter((_, i) => scores[i]! >= best - margin);
    if (cursor.length === 0) return [];
    let length = Math.min(...cursor.map((p) => p.length));
    for (let i = 0; i < cursor.length; i++) while (cursor[i]!.length > length) cursor[i] = cursor[i]!.parent!;
    // Equal hashes at equal length: equal label sequences (as the search's merging assumes).
    const same = (): boolean => cursor.every((p) => p.h1 === cursor[0]!.h1 && p.h2 === cursor[0]!.h2);
    for (; length > 0 && !same(); length--) for (let i = 0; i < cursor.length; i++) cursor[i] = cursor[i]!.parent!;
    return labelsOf(cursor[0]!);
  }

  /** The best prefix's labels (end-of-sentence LM score included). */
  bestLabels(): number[] {
    const lm = this.options.lm;
    let best: Prefix = this.root;
    let bestScore = NEG;
    for (const p of this.beam) {
      let score = logAdd(p.pb, p.pnb);
      if (lm) score += this.fusedAtEnd(p) + lm.beta * p.length;
      if (p.bias) score += this.options.keyterms!.final(p.bias);
      if (score > bestScore) {
        bestScore = score;
        best = p;
      }
    }
    return labelsOf(best);
  }
}
