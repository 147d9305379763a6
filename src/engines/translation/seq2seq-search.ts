/**
 * Decoding over an encoder-decoder model with a KV cache (onnx-seq2seq.ts): greedy (the text
 * endpoint) and beam search (file jobs), both over a batch of rows at once. The first step runs
 * the decoder without past on each row's prefix (decoder start, and the target-language token
 * for models that take it in the decoder); every later step feeds one token per row with the
 * past the previous step returned.
 *
 * Beam search keeps `beamSize` hypotheses per row (rows x beams decoder rows); each step scores
 * every beam's top 2 x beamSize continuations, an end-of-sentence among the best beamSize
 * closes a hypothesis with score sum(log p) / length^lengthPenalty (length counts the generated
 * tokens, end included), the rest become the next beams, and the self-attention past is
 * reordered by the beams' origins. A row is done when it holds beamSize finished hypotheses and
 * none of its running beams can beat the worst of them (the usual early-stop rule), or at its
 * output cap. In beam search, rows that finish keep their place in the batch (fed a dummy token)
 * until all do; greedy drops finished rows from the batch.
 *
 * With `guard` (degeneration-guard.ts), every hypothesis's next token is held to the guards'
 * step rules (repeated n-grams, token and letter runs, the row's letter cap, the repetition
 * penalty); without it (TRANSLATION_DECODING_GUARDS=off) decoding is exactly as above.
 */
import { penalised, stepConstraint, type GuardedRow, type GuardSettings, type PieceTable, type StepConstraint } from './degeneration-guard.js';
import { gatherRows, repeatEncoded, type DecoderPast, type EncodedBatch, type OnnxSeq2Seq, type StepOutput } from './onnx-seq2seq.js';

/** What the searches need of a model (OnnxSeq2Seq; tests drive them with a scripted one). */
export type Seq2SeqModel = Pick<OnnxSeq2Seq, 'encode' | 'start' | 'step'>;

export interface SearchRow {
  /** Source ids: language tokens, the sentence's pieces, end-of-sentence. */
  readonly source: readonly number[];
  /** Decoder prefix: decoder start (and a forced language token). */
  readonly prefix: readonly number[];
  /** Most tokens to generate (end excluded). */
  readonly maxNew: number;
}

export interface SearchSettings {
  readonly eos: number;
  /** Ids never generated (padding, language tokens, decoder start). */
  readonly banned: ReadonlySet<number>;
  readonly beamSize: number;
  readonly lengthPenalty: number;
  /** The decoding guards, per row of the search; null or absent: none. */
  readonly guard?: SearchGuard | null;
}

export interface SearchGuard {
  readonly table: PieceTable;
  readonly settings: GuardSettings;
  /** One per row of `rows`, in order. */
  readonly rows: readonly GuardedRow[];
}

/** One decoded hypothesis. */
export interface Hypothesis {
  /** Generated ids, end excluded. */
  readonly tokens: number[];
  /** Closed by end-of-sentence (not stopped by the output cap). */
  readonly finished: boolean;
  /** A better-scoring token was refused for the row's letter cap (guards only). */
  readonly capped: boolean;
  /** Beam search: the normalised score; greedy: 0. */
  readonly score: number;
}

function argmax(logits: Float32Array, offset: number, vocab: number, banned: ReadonlySet<number>): number {
  let best = -1;
  let bestValue = -Infinity;
  for (let v = 0; v < vocab; v++) {
    const value = logits[offset + v]!;
    if (value > bestValue && !banned.has(v)) {
      bestValue = value;
      best = v;
    }
  }
  return best;
}

/** The best token under a step constraint, and whether a better one was refused for the letter cap. */
function guardedArgmax(
  logits: Float32Array,
  offset: number,
  vocab: number,
  banned: ReadonlySet<number>,
  constraint: StepConstraint,
): { token: number; capped: boolean } {
  let best = -1;
  let bestValue = -Infinity;
  let cappedValue = -Infinity;
  for (let v = 0; v < vocab; v++) {
    if (banned.has(v) || constraint.blocked.has(v)) continue;
    const value = penalised(constraint, v, logits[offset + v]!);
    if (value <= bestValue) continue;
    const refusal = constraint.refuses(v);
    if (refusal !== null) {
      if (refusal === 'cap' && value > cappedValue) cappedValue = value;
      continue;
    }
    bestValue = value;
    best = v;
  }
  return { token: best, capped: cappedValue > bestValue };
}

/** Keeps only `keep` (batch row indices) of an encoded batch and its past. */
function compact(encoded: EncodedBatch, past: DecoderPast, keep: readonly number[]): { encoded: EncodedBatch; past: DecoderPast } {
  return {
    encoded: { rows: keep.length, sourceLength: encoded.sourceLength, hidden: gatherRows(encoded.hidden, keep), mask: gatherRows(encoded.mask, keep) },
    past: { self: past.self.map((t) => gatherRows(t, keep)), cross: past.cross.map((t) => gatherRows(t, keep)) },
  };
}

/**
 * Greedy decoding of every row; returns the generated ids (end excluded). Rows that finish
 * leave the batch (their encoder output and past are dropped), so a batch costs what its
 * longest row needs, not rows x the longest.
 */
export async function greedySearch(model: Seq2SeqModel, rows: readonly SearchRow[], settings: SearchSettings): Promise<number[][]> {
  return (await greedyHypotheses(model, rows, settings)).map((h) => h.tokens);
}

/** Greedy decoding with each row's end state (finished, capped). */
export async function greedyHypotheses(model: Seq2SeqModel, rows: readonly SearchRow[], settings: SearchSettings): Promise<Hypothesis[]> {
  const guard = settings.guard ?? null;
  let encoded = await model.encode(rows.map((r) => r.source));
  let out: StepOutput = await model.start(
    encoded,
    rows.map((r) => r.prefix),
  );
  const results = rows.map(() => [] as number[]);
  const finished = rows.map(() => false);
  const capped = rows.map(() => false);
  /** Batch row -> row of `rows`. */
  let active = rows.map((_, r) => r);
  for (;;) {
    const tokens: number[] = [];
    const keep: number[] = [];
    active.forEach((r, i) => {
      let token: number;
      if (guard === null) token = argmax(out.logits, i * out.vocab, out.vocab, settings.banned);
      else {
        const constraint = stepConstraint(results[r]!, guard.rows[r]!, guard.table, guard.settings);
        const choice = guardedArgmax(out.logits, i * out.vocab, out.vocab, settings.banned, constraint);
        token = choice.token;
        if (choice.capped) capped[r] = true;
      }
      if (token === settings.eos) {
        finished[r] = true;
        return;
      }
      results[r]!.push(token);
      if (results[r]!.length >= rows[r]!.maxNew) return;
      keep.push(i);
      tokens.push(token);
    });
    if (keep.length === 0) return results.map((t, r) => ({ tokens: t, finished: finished[r]!, capped: capped[r]!, score: 0 }));
    let past = out.past;
    if (keep.length < active.length) {
      ({ encoded, past } = compact(encoded, past, keep));
      active = keep.map((i) => active[i]!);
    }
    out = await model.step(encoded, tokens, past);
  }
}

interface Candidate {
  readonly score: number;
  readonly beam: number;
  readonly token: number;
}

interface Finished {
  readonly tokens: number[];
  readonly score: number;
}

/** The `count` best tokens of one beam's log-probabilities, with the beam's score added. */
function topCandidates(
  logits: Float32Array,
  offset: number,
  vocab: number,
  banned: ReadonlySet<number>,
  count: number,
  base: number,
  beam: number,
  constraint: StepConstraint | null = null,
): Candidate[] {
  const logit = constraint === null ? (v: number) => logits[offset + v]! : (v: number) => penalised(constraint, v, logits[offset + v]!);
  let max = -Infinity;
  for (let v = 0; v < vocab; v++) if (logit(v) > max) max = logit(v);
  let sum = 0;
  for (let v = 0; v < vocab; v++) sum += Math.exp(logit(v) - max);
  const logZ = max + Math.log(sum);
  const best: Candidate[] = [];
  for (let v = 0; v < vocab; v++) {
    if (banned.has(v)) continue;
    const value = logit(v);
    if (best.length === count && value - logZ + base <= best[count - 1]!.score) continue;
    if (constraint !== null && (constraint.blocked.has(v) || constraint.refuses(v) !== null)) continue;
    const candidate = { score: base + value - logZ, beam, token: v };
    let i = best.length;
    if (best.length < count) best.push(candidate);
    else i = count - 1;
    while (i > 0 && best[i - 1]!.score < candidate.score) {
      best[i] = best[i - 1]!;
      i--;
    }
    best[i] = candidate;
  }
  return best;
}

/**
 * Beam search of every row; returns the best hypothesis's ids per row (end excluded). A row
 * that is done leaves the batch with its beams (their encoder output and past are dropped).
 */
export async function beamSearch(model: Seq2SeqModel, rows: readonly SearchRow[], settings: SearchSettings): Promise<number[][]> {
  return (await beamHypotheses(model, rows, settings)).map((list) => list[0]?.tokens ?? []);
}

/**
 * Beam search keeping every row's hypotheses, best first: the finished ones (at most beamSize)
 * and the beams still running when the row stopped, ordered by normalised score together (the
 * first is what `beamSearch` answers).
 */
export async function beamHypotheses(model: Seq2SeqModel, rows: readonly SearchRow[], settings: SearchSettings): Promise<Hypothesis[][]> {
  const K = settings.beamSize;
  if (K <= 1) return (await greedyHypotheses(model, rows, settings)).map((h) => [h]);
  const guard = settings.guard ?? null;
  const lp = settings.lengthPenalty;
  const norm = (score: number, length: number): number => score / Math.max(1, length) ** lp;
  let encoded = repeatEncoded(await model.encode(rows.map((r) => r.source)), K);
  const prefixes: (readonly number[])[] = [];
  for (const row of rows) for (let k = 0; k < K; k++) prefixes.push(row.prefix);
  let out = await model.start(encoded, prefixes);
  /** Batch group g (beams g*K .. g*K+K-1) -> row of `rows`. */
  let active = rows.map((_, b) => b);
  // Only the first beam of each row is live at the start (all beams are the same prefix).
  let scores = Array.from({ length: rows.length * K }, (_, i) => (i % K === 0 ? 0 : -Infinity));
  let sequences: number[][] = Array.from({ length: rows.length * K }, () => []);
  const finished: Finished[][] = rows.map(() => []);
  /** Running beams of rows that are done: [row, score, sequence]. */
  const leftovers: Array<[number, number, number[]]> = [];
  for (let length = 1; ; length++) {
    const nextScores: number[] = [];
    const nextSequences: number[][] = [];
    const origins: number[] = [];
    const tokens: number[] = [];
    const stillActive: number[] = [];
    active.forEach((b, g) => {
      const row = rows[b]!;
      const candidates: Candidate[] = [];
      for (let k = 0; k < K; k++) {
        const index = g * K + k;
        if (scores[index] === -Infinity) continue;
        const constraint = guard === null ? null : stepConstraint(sequences[index]!, guard.rows[b]!, guard.table, guard.settings);
        candidates.push(...topCandidates(out.logits, index * out.vocab, out.vocab, settings.banned, 2 * K, scores[index]!, k, constraint));
      }
      candidates.sort((x, y) => y.score - x.score);
      const list = finished[b]!;
      const next: Array<[number, number, number, number[]]> = [];
      for (let rank = 0; rank < candidates.length && next.length < K; rank++) {
        const c = candidates[rank]!;
        const origin = g * K + c.beam;
        if (c.token === settings.eos) {
          if (rank < K) list.push({ tokens: sequences[origin]!, score: norm(c.score, length) });
          continue;
        }
        next.push([origin, c.token, c.score, [...sequences[origin]!, c.token]]);
      }
      while (next.length < K) next.push([g * K, settings.eos, -Infinity, []]);
      list.sort((x, y) => y.score - x.score);
      if (list.length > K) list.length = K;
      const bestRunning = Math.max(...next.map((n) => n[2]));
      const done = length >= row.maxNew || (list.length >= K && list[K - 1]!.score >= norm(bestRunning, length + 1));
      if (done) {
        for (const [, , score, sequence] of next) if (score > -Infinity) leftovers.push([b, score, sequence]);
        return;
      }
      stillActive.push(b);
      for (const [origin, token, score, sequence] of next) {
        origins.push(origin);
        tokens.push(token);
        nextScores.push(score);
        nextSequences.push(sequence);
      }
    });
    if (stillActive.length === 0) break;
    if (stillActive.length < active.length) {
      const keep: number[] = [];
      active.forEach((b, g) => {
        if (stillActive.includes(b)) for (let k = 0; k < K; k++) keep.push(g * K + k);
      });
      encoded = { rows: keep.length, sourceLength: encoded.sourceLength, hidden: gatherRows(encoded.hidden, keep), mask: gatherRows(encoded.mask, keep) };
    }
    // `origins` index the old batch: the gather reorders the beams and drops finished rows at once.
    // The cross-attention past is the same for every beam of a row: it only needs the drop.
    const past: DecoderPast = {
      self: out.past.self.map((t) => gatherRows(t, origins)),
      cross: stillActive.length < active.length ? out.past.cross.map((t) => gatherRows(t, origins)) : out.past.cross,
    };
    active = stillActive;
    scores = nextScores;
    sequences = nextSequences;
    out = await model.step(encoded, tokens, past);
  }
  return rows.map((_, b) => {
    const list: Hypothesis[] = finished[b]!.map((f) => ({ tokens: f.tokens, score: f.score, finished: true, capped: false }));
    for (const [row, score, sequence] of leftovers) {
      if (row === b) list.push({ tokens: sequence, score: norm(score, sequence.length), finished: false, capped: false });
    }
    list.sort((x, y) => y.score - x.score);
    return list;
  });
}
