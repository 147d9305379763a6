/**
 * Decoding with the degeneration guards and their fallbacks (degeneration-guard.ts), for the
 * rows of one batch:
 * - beam: the search runs under the step rules; a row answers its best hypothesis (finished
 *   or stopped at the cap, in the search's score order) that is not degenerate (`next_beam` when
 *   that is not the first); when none is sound the row goes through the greedy chain below;
 * - greedy: the search runs under the step rules; a row whose output is degenerate, stopped by
 *   the token cap, or refused a better token for the letter cap is decoded again with stronger
 *   rules (`strongerGuards`: no repeated token pair, no token twice in a row, a repetition
 *   penalty); the first sound and finished output of the two wins (`redecoded` when it is the
 *   second), then a sound one that stopped at a cap; with none, the first output is cut where
 *   its loop starts (the repeated unit kept once) when that prefix holds at least half the
 *   letters a typical translation of the source has (`prefix`); otherwise the row is
 *   `untranslatable` (text null), which the engine reports as an error for the sentence.
 * Pure apart from the model runs.
 */
import { findDegeneration, letterCount, strongerGuards, type GuardedRow, type GuardSettings, type PieceTable } from './degeneration-guard.js';
import { beamHypotheses, greedyHypotheses, type Hypothesis, type SearchRow, type SearchSettings, type Seq2SeqModel } from './seq2seq-search.js';

export type GuardAction = 'clean' | 'next_beam' | 'redecoded' | 'prefix' | 'untranslatable';

export interface GuardedRowResult {
  /** The row's translation; null when it is untranslatable. */
  readonly text: string | null;
  readonly action: GuardAction;
}

export interface GuardedInput {
  readonly table: PieceTable;
  readonly settings: GuardSettings;
  /** One per row, in order. */
  readonly rows: readonly GuardedRow[];
  /** Letters of a typical translation of each row's source (prefix acceptance). */
  readonly typicalLetters: readonly number[];
  /** Ids to text (the tokenizer's decode). */
  readonly decode: (ids: readonly number[]) => string;
}

/** Why a hypothesis is not sound, or null. */
function problem(h: Hypothesis, text: string, row: GuardedRow): ReturnType<typeof findDegeneration> {
  return findDegeneration({
    text,
    tokens: h.tokens,
    sourceText: row.source.text,
    sourceTokens: row.source.ids,
    maxLetters: row.source.maxLetters,
  });
}

export async function guardedDecode(
  model: Seq2SeqModel,
  rows: readonly SearchRow[],
  search: Omit<SearchSettings, 'guard'>,
  input: GuardedInput,
): Promise<GuardedRowResult[]> {
  const guard = { table: input.table, settings: input.settings, rows: input.rows };
  const results: (GuardedRowResult | null)[] = rows.map(() => null);
  let greedyRows: number[] = rows.map((_, r) => r);
  if (search.beamSize > 1) {
    const lists = await beamHypotheses(model, rows, { ...search, guard });
    greedyRows = [];
    lists.forEach((list, r) => {
      const index = list.findIndex((h) => problem(h, input.decode(h.tokens), input.rows[r]!) === null);
      if (index >= 0) results[r] = { text: input.decode(list[index]!.tokens), action: index === 0 ? 'clean' : 'next_beam' };
      else greedyRows.push(r);
    });
  }
  if (greedyRows.length > 0) {
    const outcomes = await greedyChain(
      model,
      greedyRows.map((r) => rows[r]!),
      { ...search, beamSize: 1 },
      { ...input, rows: greedyRows.map((r) => input.rows[r]!), typicalLetters: greedyRows.map((r) => input.typicalLetters[r]!) },
    );
    greedyRows.forEach((r, i) => (results[r] = outcomes[i]!));
  }
  return results.map((r) => r!);
}

async function greedyChain(
  model: Seq2SeqModel,
  rows: readonly SearchRow[],
  search: Omit<SearchSettings, 'guard'>,
  input: GuardedInput,
): Promise<GuardedRowResult[]> {
  const first = await greedyHypotheses(model, rows, { ...search, guard: { table: input.table, settings: input.settings, rows: input.rows } });
  const texts = first.map((h) => input.decode(h.tokens));
  const problems = first.map((h, r) => problem(h, texts[r]!, input.rows[r]!));
  const results: (GuardedRowResult | null)[] = first.map((h, r) =>
    problems[r] === null && h.finished && !h.capped ? { text: texts[r]!, action: 'clean' } : null,
  );
  const again = results.flatMap((result, r) => (result === null ? [r] : []));
  if (again.length === 0) return results.map((r) => r!);
  const stronger = strongerGuards(input.settings);
  const second = await greedyHypotheses(
    model,
    again.map((r) => rows[r]!),
    { ...search, guard: { table: input.table, settings: stronger, rows: again.map((r) => input.rows[r]!) } },
  );
  again.forEach((r, i) => {
    const h = second[i]!;
    const text = input.decode(h.tokens);
    const secondProblem = problem(h, text, input.rows[r]!);
    if (secondProblem === null && h.finished && !h.capped) results[r] = { text, action: 'redecoded' };
    else if (problems[r] === null) results[r] = { text: texts[r]!, action: 'clean' };
    else if (secondProblem === null) results[r] = { text, action: 'redecoded' };
    else results[r] = prefixOf(first[r]!, texts[r]!, problems[r]!, input, r);
  });
  return results.map((r) => r!);
}

/** The output before its loop, when it is long enough to stand for the sentence. */
function prefixOf(h: Hypothesis, text: string, found: NonNullable<ReturnType<typeof findDegeneration>>, input: GuardedInput, r: number): GuardedRowResult {
  const prefix = ('chars' in found.keep ? text.slice(0, found.keep.chars) : input.decode(h.tokens.slice(0, found.keep.tokens))).trim();
  const sound =
    prefix.length > 0 && findDegeneration({ text: prefix, sourceText: input.rows[r]!.source.text, maxLetters: input.rows[r]!.source.maxLetters }) === null;
  if (sound && letterCount(prefix) >= input.typicalLetters[r]! / 2) return { text: prefix, action: 'prefix' };
  return { text: null, action: 'untranslatable' };
}
