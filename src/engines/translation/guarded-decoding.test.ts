// The searches and the guard fallbacks driven by a scripted decoder: a step function of each
// row's generated ids (kept in the "past", so beam reordering moves it like the real cache).
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { DEFAULT_GUARDS, findDegeneration, GuardedRow, PieceTable } from './degeneration-guard.js';
import { guardedDecode, type GuardedInput } from './guarded-decoding.js';
import type { DecoderPast, StepOutput } from './onnx-seq2seq.js';
import { beamHypotheses, beamSearch, greedyHypotheses, greedySearch, type SearchRow, type SearchSettings, type Seq2SeqModel } from './seq2seq-search.js';

const EOS = 1;
const START = 2;

/**
 * A decoder whose next-token logits are `next(ids)`: the row's generated ids, or with `withPrefix`
 * its decoder prefix and then the generated ids (so rows of one batch can follow different scripts).
 */
function scriptedModel(vocab: number, next: (history: readonly number[]) => Record<number, number>, withPrefix = false): Seq2SeqModel {
  const histories = (past: DecoderPast): number[][] => {
    const t = past.self[0]!;
    const [rows, length] = t.dims as [number, number];
    const data = t.data as Float32Array;
    return Array.from({ length: rows }, (_, r) => Array.from(data.subarray(r * length, (r + 1) * length)));
  };
  const output = (rows: number[][]): StepOutput => {
    const logits = new Float32Array(rows.length * vocab).fill(-30);
    rows.forEach((history, r) => {
      const ids = withPrefix ? history : history.slice(1);
      for (const [token, value] of Object.entries(next(ids))) logits[r * vocab + Number(token)] = value;
    });
    const length = rows[0]?.length ?? 0;
    const flat = new Float32Array(rows.length * length);
    rows.forEach((h, r) => flat.set(h, r * length));
    const self = [new ort.Tensor('float32', flat, [rows.length, length])];
    const cross = [new ort.Tensor('float32', new Float32Array(rows.length), [rows.length, 1])];
    return { logits, vocab, past: { self, cross } };
  };
  return {
    async encode(ids: readonly (readonly number[])[]) {
      const rows = ids.length;
      return {
        rows,
        sourceLength: 1,
        hidden: new ort.Tensor('float32', new Float32Array(rows), [rows, 1, 1]),
        mask: new ort.Tensor('int64', new BigInt64Array(rows).fill(1n), [rows, 1]),
      };
    },
    async start(_encoded: unknown, prefix: readonly (readonly number[])[]) {
      return output(prefix.map((p) => [...p]));
    },
    async step(_encoded: unknown, tokens: readonly number[], past: DecoderPast) {
      return output(histories(past).map((h, r) => [...h, tokens[r]!]));
    },
  } as unknown as Seq2SeqModel;
}

const search = (beamSize = 1): Omit<SearchSettings, 'guard'> => ({ eos: EOS, banned: new Set([0, START]), beamSize, lengthPenalty: 1 });
const row = (maxNew = 40): SearchRow => ({ source: [9, 9, EOS], prefix: [START], maxNew });

function input(table: PieceTable, sourceText: string, maxLetters: number, typicalLetters: number, n = 1): GuardedInput {
  return {
    table,
    settings: DEFAULT_GUARDS,
    rows: Array.from({ length: n }, () => new GuardedRow({ ids: [9, 9], text: sourceText, maxLetters }, DEFAULT_GUARDS.noRepeatNgram)),
    typicalLetters: Array.from({ length: n }, () => typicalLetters),
    decode: (ids) => table.join(ids).trim(),
  };
}

describe('a looping decoder step', () => {
  // 3 "ን" is always the best token, then " የ", " ምን", " ነው", "።"; the end is the worst.
  const table = new PieceTable(['', '', '', 'ን', ' የ', ' ምን', ' ነው', '።']);
  const looping = () => scriptedModel(8, () => ({ 3: 5, 4: 4, 5: 3, 6: 2, 7: 1, [EOS]: 0 }));

  it('loops to the output cap without the guards (as decoding did before them)', async () => {
    const [ids] = await greedySearch(looping(), [row(40)], search());
    expect(ids).toEqual(Array(40).fill(3));
    expect(findDegeneration({ text: table.join(ids!), sourceText: 'x', maxLetters: 1000 })?.kind).toBe('letter_run');
  });

  it('is stopped by the guards: no run, no repeated n-gram, within the letter cap', async () => {
    for (const maxLetters of [12, 30]) {
      const rows = input(table, 'The patient has a fever.', maxLetters, 10).rows;
      const [h] = await greedyHypotheses(looping(), [row(40)], { ...search(), guard: { table, settings: DEFAULT_GUARDS, rows } });
      const text = table.join(h!.tokens).trim();
      expect(findDegeneration({ text, tokens: h!.tokens, sourceText: 'The patient has a fever.', maxLetters })).toBeNull();
      expect(text).not.toMatch(/ንንንንን/);
      expect(h!.tokens.join(',')).not.toMatch(/(^|,)3,3,3(,|$)/);
      expect(h!.tokens.length).toBeLessThan(40);
      // It ended because every better token was refused: the end came before the token cap.
      expect(h!.finished).toBe(true);
    }
  });

  it('is stopped on the beam path too', async () => {
    const guarded = input(table, 'The patient has a fever.', 30, 10);
    const [result] = await guardedDecode(looping(), [row(40)], search(4), guarded);
    expect(result!.text).not.toBeNull();
    expect(findDegeneration({ text: result!.text!, sourceText: 'The patient has a fever.', maxLetters: 30 })).toBeNull();
    const [unguarded] = await beamSearch(looping(), [row(40)], search(4));
    expect(findDegeneration({ text: table.join(unguarded!), sourceText: 'x', maxLetters: 1000 })).not.toBeNull();
  });
});

describe('the length cap', () => {
  // Ten distinct words of 4 letters, all as likely, the end never: only the caps stop a row.
  const words = Array.from({ length: 10 }, (_, i) => ` w${'abcdefghij'[i]}${i}x`);
  const table = new PieceTable(['', '', '', ...words]);
  const model = () => scriptedModel(13, () => Object.fromEntries(words.map((_, i) => [3 + i, 1])));

  it('holds in greedy and beam search: the output never passes the row letter cap', async () => {
    for (const maxLetters of [9, 25, 41]) {
      const rows = input(table, 'x', maxLetters, 5).rows;
      const [h] = await greedyHypotheses(model(), [row(60)], { ...search(), guard: { table, settings: DEFAULT_GUARDS, rows } });
      expect(table.letters(h!.tokens)).toBeLessThanOrEqual(maxLetters);
      expect(h!.capped).toBe(true);
      const lists = await beamHypotheses(model(), [row(60)], { ...search(4), guard: { table, settings: DEFAULT_GUARDS, rows } });
      for (const hypothesis of lists[0]!) expect(table.letters(hypothesis.tokens)).toBeLessThanOrEqual(maxLetters);
    }
    const [free] = await greedySearch(model(), [row(60)], search());
    expect(table.letters(free!)).toBe(60 * 4);
  });
});

describe('the fallback', () => {
  // 3 " la", 4 " l", 5 "a", 6 " ok": "la" + "l"+"a" + "la" reads "la la la" with no token n-gram repeated.
  const table = new PieceTable(['', '', '', ' la', ' l', 'a', ' ok']);
  const script =
    (okScore: number) =>
    (h: readonly number[]): Record<number, number> => {
      const key = h.join(',');
      if (key === '') return { 3: 0, 6: okScore };
      if (key === '3') return { 4: 0 };
      if (key === '3,4') return { 5: 0 };
      if (key === '3,4,5') return { 3: 0 };
      return { [EOS]: 0 };
    };

  it('beam: picks the best hypothesis that is not degenerate', async () => {
    const [plain] = await beamSearch(scriptedModel(7, script(-1)), [row()], search(2));
    expect(table.join(plain!).trim()).toBe('la la la');
    const [result] = await guardedDecode(scriptedModel(7, script(-1)), [row()], search(2), input(table, 'a source', 100, 2));
    expect(result).toEqual({ text: 'ok', action: 'next_beam' });
  });

  it('greedy: keeps the output before its loop when it is long enough, else the row is untranslatable', async () => {
    const kept = await guardedDecode(scriptedModel(7, script(-25)), [row()], search(1), input(table, 'a source', 100, 4));
    expect(kept[0]).toEqual({ text: 'la', action: 'prefix' });
    const refused = await guardedDecode(scriptedModel(7, script(-25)), [row()], search(1), input(table, 'a source', 100, 10));
    expect(refused[0]).toEqual({ text: null, action: 'untranslatable' });
  });

  it('beam with no sound hypothesis goes through the greedy chain', async () => {
    const [result] = await guardedDecode(scriptedModel(7, script(-25)), [row()], search(2), input(table, 'a source', 100, 10));
    expect(result!.action).toBe('untranslatable');
  });

  it('a clean row is answered as decoded, beside a row of the same batch that falls back', async () => {
    // Each row's decoder prefix carries a marker (like a forced language token): 8 switches row 2 to a script that ends at once on " ok".
    const model = scriptedModel(9, (h) => (h[1] === 8 ? (h.length === 2 ? { 6: 0 } : { [EOS]: 0 }) : script(-25)(h.slice(2))), true);
    const rows = [
      { ...row(), prefix: [START, 7] },
      { ...row(), prefix: [START, 8] },
    ];
    const results = await guardedDecode(model, rows, search(1), input(table, 'a source', 100, 10, 2));
    expect(results).toEqual([
      { text: null, action: 'untranslatable' },
      { text: 'ok', action: 'clean' },
    ]);
  });
});
