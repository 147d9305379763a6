/**
 * Keyterm boosting on speakers the model never heard: recall of boosted terms that the reference
 * holds, false insertions of boosted terms it does not hold, and CER, before (no keyterms) and
 * after (with), in the same run, on the same CTC posteriors.
 *
 * Data: ALFFA Amharic of the speaker-split validation groups (041, 091, 131: the bonus weights are
 * tuned there) and test groups (021, 231: reported untuned), none of which small-am-v2 trained on
 * (training/common/splits/, models/small-am-v2/README.md). Posteriors from onnxruntime-node with
 * the gateway's features (training/common/ctc-utterances.ts); decoders built exactly as the
 * inference workers build them (decoding-plan.ts createDecoder: the manifest's beam and LM, plus
 * the request's keyterms), over each whole utterance.
 *
 * Keyterms per utterance (a request's list): `--targets` (3) words of its reference with 4+ letters,
 * the rarest first by their count in ALFFA's training transcripts (names, places and rare terms
 * come first), plus terms it does not hold: `--confusables` (5) near misses (words of the
 * transcripts one letter, for words of 6+ letters two, from one of its words: "ኢትዮጵያዊ" where
 * "ኢትዮጵያ" is said, the risky kind) and `--distractors` (20) random words of 4+ letters about as
 * rare as the targets (count at most that of 90% of them, `--pool-max-count`). A second condition
 * on the test groups sends the largest list a request may (the same + random words up to 100).
 * Scoring form: ALFFA's (homophones merged, spaces and punctuation removed) on both sides; a term
 * counts as written when its scoring form is a substring of the hypothesis's.
 *
 * Tuning (val only): the grid of perChar x completion; the pick is the lowest CER (which counts
 * both the terms written and the wrong ones) among the points that write at most 3 more near
 * misses and 0.5 more random distractors per 100 sent than `before`. Baselines printed beside:
 * greedy and the beam + LM without keyterms.
 *
 *   npm run bench:keyterms [-- --model models/small-am-v2] [--targets 3] [--confusables 5] [--distractors 20]
 *        [--per-char 0.5,1,2,3,4] [--completion 0,2,4,8,12] [--pool-max-count N] [--data /work/shared/data]
 *        [--out bench/results/keyterms.json]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createDecoder } from '../src/engines/asr/decoding/decoding-plan.js';
import { CtcGreedyDecoder } from '../src/engines/asr/decoding/ctc-greedy-decoder.js';
import type { CtcDecoder } from '../src/engines/asr/decoding/ctc-types.js';
import type { KeytermWeights } from '../src/engines/asr/decoding/keyterm-bias.js';
import { CharNgramLm } from '../src/engines/asr/decoding/lm/char-ngram-lm.js';
import { parseKaldiText } from '../src/engines/asr/decoding/lm/lm-corpus.js';
import { manifestDecodingPlanner } from '../src/engines/asr/inference/decoding-planner.js';
import { loadModelFolder } from '../src/engines/asr/models/model-loader.js';
import { alffaScoringForm } from '../src/engines/asr/text/alffa-scoring.js';
import { editDistance, scoredCharacterErrorRate } from '../src/engines/scoring/scoring.js';
import { ctcUtterances, type Utterance } from '../training/common/ctc-utterances.js';
import { seededRandom } from '../training/common/seeded-random.js';

const argv = process.argv.slice(2);
const opt = (name: string, fallback: string): string => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1]! : fallback;
};
const list = (name: string, fallback: string): number[] => opt(name, fallback).split(',').map(Number);

const ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const SPLITS = join(ROOT, 'training', 'common', 'splits');
const dataDir = opt('data', process.env.DATA_DIR ?? '/work/shared/data');
const modelDir = opt('model', join(ROOT, 'models', 'small-am-v2'));
const TARGETS = Number(opt('targets', '3'));
const DISTRACTORS = Number(opt('distractors', '20'));
const CONFUSABLES = Number(opt('confusables', '5'));
const MAX_LIST = 100;
const MIN_LETTERS = 4;
/** Tuning limits over `before` (per 100 terms sent): near misses written, random distractors written. */
const NEAR_MISS_SLACK = 3;
const RANDOM_SLACK = 0.5;
const outPath = opt('out', join(ROOT, 'bench', 'results', 'keyterms.json'));

const groupOf = (id: string): string => id.split('_')[2]!.slice(2, 5);
const letters = (word: string): number => [...alffaScoringForm(word)].length;

/** A request's list for one utterance: terms its reference holds, and terms it does not (near misses and random). */
interface Case {
  readonly utterance: Utterance;
  readonly targets: readonly string[];
  /** Words a letter or two away from a word the reference holds (the risky kind: "ኢትዮጵያዊ" for "ኢትዮጵያ"). */
  readonly confusables: readonly string[];
  readonly distractors: readonly string[];
}

function wordCounts(path: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    for (const word of line.trim().split(/\s+/u).slice(1)) if (word !== '') counts.set(word.normalize('NFC'), (counts.get(word.normalize('NFC')) ?? 0) + 1);
  }
  return counts;
}

/** Pool words 1 edit (2 for words of 6+ letters) from a word of the reference that the reference does not hold. */
function nearMisses(reference: string, words: readonly string[], pool: ReadonlyMap<number, readonly string[]>): string[] {
  const out = new Set<string>();
  for (const word of words) {
    const form = [...alffaScoringForm(word)];
    const limit = form.length >= 6 ? 2 : 1;
    for (let length = form.length - limit; length <= form.length + limit; length++) {
      for (const candidate of pool.get(length) ?? []) {
        const other = alffaScoringForm(candidate);
        if (reference.includes(other)) continue;
        const d = editDistance(form, [...other]);
        if (d >= 1 && d <= limit) out.add(candidate);
      }
    }
  }
  return [...out].sort();
}

function buildCases(
  utterances: readonly Utterance[],
  counts: Map<string, number>,
  pool: readonly string[],
  distractors: number,
  seed: number,
  near: ReadonlyMap<number, readonly string[]> = new Map(),
  confusables = 0,
): Case[] {
  return utterances.map((utterance, index) => {
    const reference = alffaScoringForm(utterance.reference);
    const words = [...new Set(utterance.reference.normalize('NFC').trim().split(/\s+/u))].filter((w) => letters(w) >= MIN_LETTERS);
    const targets = words
      .map((word, position) => ({ word, position, count: counts.get(word) ?? 0 }))
      .sort((a, b) => a.count - b.count || a.position - b.position)
      .slice(0, TARGETS)
      .map((t) => t.word);
    const next = seededRandom(seed + index * 7919);
    const misses = confusables > 0 ? nearMisses(reference, words, near) : [];
    const confusing = new Set<string>();
    while (confusing.size < Math.min(confusables, misses.length)) confusing.add(misses[Math.floor(next() * misses.length)]!);
    const chosen = new Set<string>();
    for (let tries = 0; chosen.size < distractors && tries < distractors * 50; tries++) {
      const word = pool[Math.floor(next() * pool.length)]!;
      const form = alffaScoringForm(word);
      if (confusing.has(word) || reference.includes(form) || targets.some((t) => alffaScoringForm(t).includes(form) || form.includes(alffaScoringForm(t))))
        continue;
      chosen.add(word);
    }
    return { utterance, targets, confusables: [...confusing], distractors: [...chosen] };
  });
}

interface Figures {
  readonly cer: number;
  readonly errors: number;
  readonly reference_chars: number;
  /** Target terms whose scoring form the hypothesis holds, of all targets. */
  readonly recall: number;
  readonly targets_written: number;
  readonly targets: number;
  /** Random distractors the hypothesis holds (each (utterance, term) once), per 100 sent. */
  readonly false_insertions: number;
  readonly false_insertions_per_100: number;
  readonly distractors: number;
  /** The same for the near misses. */
  readonly confusable_insertions: number;
  readonly confusable_insertions_per_100: number;
  readonly confusables: number;
  readonly decode_ms_per_audio_s: number;
}

function measure(cases: readonly Case[], decoderFor: (c: Case) => CtcDecoder): Figures & { hypotheses: string[] } {
  let ms = 0;
  let written = 0;
  let targets = 0;
  let inserted = 0;
  let distractors = 0;
  let confused = 0;
  let confusables = 0;
  const hypotheses: string[] = [];
  for (const c of cases) {
    const decoder = decoderFor(c);
    const started = performance.now();
    const text = decoder.decode(c.utterance.scores).text;
    ms += performance.now() - started;
    hypotheses.push(text);
    const form = alffaScoringForm(text);
    for (const t of c.targets) if (form.includes(alffaScoringForm(t))) written++;
    for (const d of c.distractors) if (form.includes(alffaScoringForm(d))) inserted++;
    for (const d of c.confusables) if (form.includes(alffaScoringForm(d))) confused++;
    targets += c.targets.length;
    distractors += c.distractors.length;
    confusables += c.confusables.length;
  }
  const scored = scoredCharacterErrorRate(
    cases.map((c) => c.utterance.reference),
    hypotheses,
    'am',
  );
  const seconds = cases.reduce((n, c) => n + c.utterance.seconds, 0);
  const round = (v: number, d = 4): number => Number(v.toFixed(d));
  return {
    cer: round(scored.cer),
    errors: scored.errors,
    reference_chars: scored.referenceChars,
    recall: round(written / Math.max(1, targets)),
    targets_written: written,
    targets,
    false_insertions: inserted,
    false_insertions_per_100: round((100 * inserted) / Math.max(1, distractors), 2),
    distractors,
    confusable_insertions: confused,
    confusable_insertions_per_100: round((100 * confused) / Math.max(1, confusables), 2),
    confusables,
    decode_ms_per_audio_s: round(ms / seconds, 3),
    hypotheses,
  };
}

const pct = (v: number): string => `${(100 * v).toFixed(2)}%`;
function line(name: string, f: Figures): string {
  return (
    `${name.padEnd(34)} CER ${pct(f.cer).padStart(7)}  recall ${pct(f.recall).padStart(7)} (${f.targets_written}/${f.targets})  ` +
    `inserted: near misses ${f.confusable_insertions}/${f.confusables} (${f.confusable_insertions_per_100.toFixed(1)} per 100), ` +
    `random ${f.false_insertions}/${f.distractors} (${f.false_insertions_per_100.toFixed(2)} per 100)  ${f.decode_ms_per_audio_s.toFixed(2)} ms/audio s`
  );
}

const strip = ({ hypotheses: _h, ...figures }: Figures & { hypotheses: string[] }): Figures => figures;

async function main(): Promise<void> {
  const model = await loadModelFolder(modelDir);
  if (model.kind !== 'ctc') throw new Error(`${modelDir} is not a CTC model`);
  if (model.language !== 'am') throw new Error('the held-out speaker groups are Amharic (ALFFA): pass an am model');
  const lm = model.lmPath ? CharNgramLm.loadSync(model.lmPath) : null;
  const plan = manifestDecodingPlanner(new Set(lm && model.lmPath ? [model.lmPath] : []))(model);
  const texts = parseKaldiText(readFileSync(join(dataDir, 'alffa-am-train/text'), 'utf8'));
  const counts = wordCounts(join(dataDir, 'alffa-am-train/all-train-transcripts.txt'));
  const ids = (set: string): string[] =>
    readFileSync(join(SPLITS, `alffa-spk-${set}.txt`), 'utf8')
      .split('\n')
      .filter(Boolean);
  const audio = (id: string): string => join(dataDir, 'alffa-am-train/flac', `${id}.flac`);
  const started = performance.now();
  const val = await ctcUtterances(model, texts, ids('val'), audio);
  const test = await ctcUtterances(model, texts, ids('test'), audio);
  console.log(`posteriors: ${val.length} val + ${test.length} test utterances in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // Distractors are as rare as the targets: words of 4+ letters (Ethiopic only) seen at most as often
  // as 90% of the targets are (ALFFA speakers read overlapping sentence lists, so counts run high).
  const targetCounts = buildCases([...val, ...test], counts, [], 0, 0)
    .flatMap((c) => c.targets.map((t) => counts.get(t) ?? 0))
    .sort((a, b) => a - b);
  const poolMax = Number(opt('pool-max-count', String(targetCounts[Math.floor(targetCounts.length * 0.9)])));
  const pool = [...counts]
    .filter(([word, count]) => count <= poolMax && letters(word) >= MIN_LETTERS && /^[\u1200-\u137f]+$/u.test(word))
    .map(([word]) => word)
    .sort();
  // Near misses come from every Ethiopic word of 4+ letters in the transcripts, by length.
  const near = new Map<number, string[]>();
  for (const word of counts.keys()) {
    if (!/^[\u1200-\u137f]+$/u.test(word) || letters(word) < MIN_LETTERS) continue;
    const bucket = near.get(letters(word)) ?? [];
    bucket.push(word);
    near.set(letters(word), bucket);
  }
  const valCases = buildCases(val, counts, pool, DISTRACTORS, 1, near, CONFUSABLES);
  const testCases = buildCases(test, counts, pool, DISTRACTORS, 2, near, CONFUSABLES);
  const maxCases = buildCases(test, counts, pool, MAX_LIST, 3, near, CONFUSABLES).map((c) => ({
    ...c,
    distractors: c.distractors.slice(0, MAX_LIST - c.targets.length - c.confusables.length),
  }));
  console.log(
    `keyterms: ${TARGETS} targets + ${CONFUSABLES} near misses + ${DISTRACTORS} random words per utterance; target count in the training transcripts: median ${targetCounts[targetCounts.length >> 1]}, ` +
      `90th percentile ${poolMax}; distractor pool: ${pool.length} words of 4+ letters seen at most ${poolMax} times`,
  );

  const greedy = new CtcGreedyDecoder(model.vocabulary);
  const plain = createDecoder(model.vocabulary, plan, lm);
  const boosted = (weights: KeytermWeights) => (c: Case) =>
    createDecoder(model.vocabulary, plan, lm, [...c.targets, ...c.confusables, ...c.distractors], weights);

  const valGreedy = measure(valCases, () => greedy);
  const valBefore = measure(valCases, () => plain);
  console.log(`\nval (tuning: groups ${[...new Set(val.map((u) => groupOf(u.id)))].join(', ')}), ${val.length} utterances`);
  console.log(line('greedy (baseline)', valGreedy));
  console.log(line('beam + LM, no keyterms (before)', valBefore));
  const grid: Array<{ per_char: number; completion: number } & Figures> = [];
  for (const perChar of list('per-char', '0.5,1,2,3,4'))
    for (const completion of list('completion', '0,2,4,8,12')) {
      const f = strip(measure(valCases, boosted({ perChar, completion })));
      grid.push({ per_char: perChar, completion, ...f });
      console.log(line(`  perChar ${perChar}, completion ${completion}`, f));
    }
  const allowed = grid.filter(
    (g) =>
      g.confusable_insertions_per_100 <= valBefore.confusable_insertions_per_100 + NEAR_MISS_SLACK &&
      g.false_insertions_per_100 <= valBefore.false_insertions_per_100 + RANDOM_SLACK,
  );
  const pick = [...(allowed.length > 0 ? allowed : grid)].sort((a, b) => a.cer - b.cer || a.per_char - b.per_char || a.completion - b.completion)[0]!;
  const weights: KeytermWeights = { perChar: pick.per_char, completion: pick.completion };
  console.log(`picked on val: perChar ${weights.perChar}, completion ${weights.completion}${allowed.length === 0 ? ' (no grid point met the limits)' : ''}`);

  const sets: Record<string, unknown> = {};
  sets['val'] = {
    groups: [...new Set(val.map((u) => groupOf(u.id)))],
    utterances: val.length,
    audio_seconds: Math.round(val.reduce((n, u) => n + u.seconds, 0)),
    greedy: strip(valGreedy),
    before: strip(valBefore),
    after: strip(measure(valCases, boosted(weights))),
  };
  for (const [name, cases] of [
    ['test', testCases],
    ['test_100_terms', maxCases],
  ] as const) {
    const g = measure(cases, () => greedy);
    const before = measure(cases, () => plain);
    const after = measure(cases, boosted(weights));
    const sent = cases.reduce((n, c) => n + c.targets.length + c.confusables.length + c.distractors.length, 0) / cases.length;
    console.log(
      `\n${name} (untuned: groups ${[...new Set(test.map((u) => groupOf(u.id)))].join(', ')}), ${test.length} utterances, ${sent.toFixed(1)} keyterms per list`,
    );
    console.log(line('greedy (baseline)', g));
    console.log(line('beam + LM, no keyterms (before)', before));
    console.log(line(`beam + LM + keyterms (after)`, after));
    console.log(`CER change ${((after.cer - before.cer) * 100).toFixed(2)} points; recall ${pct(before.recall)} -> ${pct(after.recall)}`);
    const changed = cases
      .map((c, i) => ({
        id: c.utterance.id,
        targets: c.targets,
        before: before.hypotheses[i]!,
        after: after.hypotheses[i]!,
        reference: c.utterance.reference.trim(),
      }))
      .filter((x) => x.before !== x.after);
    sets[name] = {
      groups: [...new Set(test.map((u) => groupOf(u.id)))],
      utterances: test.length,
      audio_seconds: Math.round(test.reduce((n, u) => n + u.seconds, 0)),
      keyterms_per_list: Number(sent.toFixed(1)),
      greedy: strip(g),
      before: strip(before),
      after: strip(after),
      cer_change_points: Number(((after.cer - before.cer) * 100).toFixed(2)),
      changed_utterances: changed.length,
      examples: changed.slice(0, 6),
    };
  }
  const result = {
    model: model.name,
    lm: model.lmPath
      ? { file: model.lmPath.replace(`${ROOT}/`, ''), alpha: plan.kind === 'beam' ? plan.lm?.alpha : null, beta: plan.kind === 'beam' ? plan.lm?.beta : null }
      : null,
    beam_width: plan.kind === 'beam' ? plan.beamWidth : null,
    keyterms_per_utterance: {
      targets: TARGETS,
      near_misses: CONFUSABLES,
      random: DISTRACTORS,
      min_letters: MIN_LETTERS,
      distractor_pool_max_count: poolMax,
      distractor_pool: pool.length,
    },
    scoring: 'ALFFA scoring form (homophones merged, spaces and punctuation removed); a term is written when its scoring form is a substring of the hypothesis',
    weights: {
      per_char: weights.perChar,
      completion: weights.completion,
      tuned_on: 'val (speaker groups 041, 091, 131)',
      rule: `lowest CER with near misses written per 100 <= before + ${NEAR_MISS_SLACK} and random distractors written per 100 <= before + ${RANDOM_SLACK}`,
    },
    grid_val: grid,
    sets,
    command: `npm run bench:keyterms -- ${argv.join(' ')}`.trim(),
    date: new Date().toISOString(),
  };
  mkdirSync(dirname(outPath), { recursive: true });
  writeFileSync(outPath, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nwrote ${outPath}`);
}

await main();
