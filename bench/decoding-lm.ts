/**
 * Decoding benchmark: greedy vs prefix beam search vs beam + character LM, on the same CTC
 * posteriors, measuring CER (ALFFA scoring form: homophones merged, spaces removed) and decode
 * time per second of audio. Greedy is the baseline; ratios are printed against it and figures
 * are written to bench/results/decoding-lm-<source>.json.
 *
 * Data split (ALFFA, alffa-am-train/, 1,000 utterances with audio): ids sorted by their number
 *   (tr_<n>_...), eval = the 100 highest, which is the training pipeline's validation split
 *   `alffa_val` (training/asr/prepare_data.py in the training branch), unless --eval-ids
 *   names a file of ids (one per line). alpha/beta come from a grid search on utterances the
 *   figures are not taken from: with --model, 2-fold cross-tuning inside the eval set (tune on
 *   one half, decode the other, and the reverse: the acoustic model trained on every other
 *   ALFFA utterance, so those would give over-confident posteriors); for synthetic posteriors,
 *   the 100 ids before the eval set. The LMs never saw any of the 1,000 (src/engines/asr/decoding/lm/lm-corpus.ts).
 *
 * Posteriors:
 *   --model <dir>   a real CTC model folder (manifest.json + model.onnx): its logits on the audio
 *   (default)       SYNTHETIC posteriors simulated from the reference text (each character 2-4
 *                   frames; a third of characters confused with another vowel order of the same
 *                   consonant or another letter, with noise): they measure what the LM can
 *                   correct and the cost of search, NOT a model's accuracy.
 *
 *   npm run build && node dist/bench/decoding-lm.js [--model DIR] [--lm models/lm/am-char-5gram.bin]
 *        [--beam 8] [--data /work/shared/data] [--eval-ids FILE] [--tune-ids FILE] [--limit N]
 *   another held-out set (e.g. the training pipeline's synthetic om/ti test sets):
 *        --lang om --tsv <set>.tsv --audio-dir <dir of <id>.wav>   (LM default models/lm/<lang>-char-5gram.bin;
 *        CER for om/ti on forScoring text, spaces kept; alpha/beta 2-fold tuned inside the set)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { CtcBeamDecoder } from '../src/engines/asr/decoding/ctc-beam-decoder.js';
import { CtcGreedyDecoder } from '../src/engines/asr/decoding/ctc-greedy-decoder.js';
import type { CtcDecoder, CtcScores, CtcVocabulary } from '../src/engines/asr/decoding/ctc-types.js';
import { CharNgramLm } from '../src/engines/asr/decoding/lm/char-ngram-lm.js';
import { parseKaldiText } from '../src/engines/asr/decoding/lm/lm-corpus.js';
import { loadModelFolder } from '../src/engines/asr/models/model-loader.js';
import { alffaScoringForm } from '../src/engines/asr/text/alffa-scoring.js';
import { forScoring } from '../src/engines/asr/text/text-normalizer.js';
import { CerAccumulator } from '../src/engines/scoring/character-error-rate.js';
import { ctcUtterances, type Utterance } from '../training/common/ctc-utterances.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2) args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1] ?? '');
const dataDir = args.get('data') ?? '/work/shared/data';
const language = args.get('lang') ?? 'am';
const lmPath = args.get('lm') ?? `models/lm/${language}-char-5gram.bin`;
/** A held-out set of the training pipeline instead of ALFFA: <id> TAB <reference> lines, audio <audio-dir>/<id>.wav. */
const tsvPath = args.get('tsv');
const audioDir = args.get('audio-dir');
/** Scoring form: ALFFA's for am (homophones merged, no spaces), else forScoring (spaces kept). */
const scoringForm = (text: string): string => (language === 'am' ? alffaScoringForm(text) : forScoring(text, language));
const beamWidth = Number(args.get('beam') ?? 8);
const limit = Number(args.get('limit') ?? 0);

function splitIds(ids: string[]): { tune: string[]; evaluation: string[] } {
  const num = (id: string): number => Number(id.split('_')[1]);
  const sorted = [...ids].sort((a, b) => num(a) - num(b) || (a < b ? -1 : 1));
  const fromFile = (f: string | undefined): string[] | null =>
    f
      ? readFileSync(f, 'utf8')
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean)
      : null;
  const evalCount = Math.round(sorted.length * 0.1);
  const evaluation = fromFile(args.get('eval-ids')) ?? sorted.slice(sorted.length - evalCount);
  const tune = fromFile(args.get('tune-ids')) ?? sorted.slice(sorted.length - 2 * evalCount, sorted.length - evalCount);
  return { tune, evaluation };
}

/** Deterministic PRNG + normal samples. */
function rng(seed: number): { uniform: () => number; normal: () => number } {
  let s = seed >>> 0 || 1;
  const uniform = (): number => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x100000000;
  };
  const normal = (): number => Math.sqrt(-2 * Math.log(uniform() + 1e-12)) * Math.cos(2 * Math.PI * uniform());
  return { uniform, normal };
}

const FRAME_SECONDS = 0.02;

/** Synthetic posteriors for one reference (see the module comment). */
function synthesise(reference: string, vocabulary: CtcVocabulary, index: Map<string, number>, seed: number): CtcScores {
  const r = rng(seed);
  const V = vocabulary.tokens.length;
  const letters = vocabulary.tokens.map((_t, i) => i).filter((i) => i > 1);
  const rows: Float32Array[] = [];
  const frame = (peak: number, rival: number, rivalScore: number): void => {
    const row = new Float32Array(V);
    for (let v = 0; v < V; v++) row[v] = r.normal();
    row[peak] = 6 + r.normal() * 0.7;
    if (rival >= 0) row[rival] = rivalScore;
    rows.push(row);
  };
  const blankFrames = (n: number): void => {
    for (let i = 0; i < n; i++) frame(vocabulary.blankId, -1, 0);
  };
  blankFrames(5);
  const chars = Array.from(reference.replace(/\s+/g, ' ').trim());
  for (const ch of chars) {
    const token = ch === ' ' ? index.get('|')! : index.get(ch);
    if (token === undefined) continue;
    let rival = -1;
    if (ch !== ' ' && r.uniform() < 0.33) {
      const cp = ch.codePointAt(0)!;
      let other: number | undefined;
      if (cp >= 0x1200 && cp <= 0x135a && r.uniform() < 0.7) {
        const base = cp - ((cp - 0x1200) % 8);
        other = index.get(String.fromCodePoint(base + Math.floor(r.uniform() * 7)));
      }
      rival = other ?? letters[Math.floor(r.uniform() * letters.length)]!;
      if (rival === token) rival = -1;
    }
    const rivalScore = 6 + 0.3 + r.normal() * 1.2;
    const frames = ch === ' ' ? 1 + Math.floor(r.uniform() * 2) : 2 + Math.floor(r.uniform() * 3);
    for (let i = 0; i < frames; i++) frame(token, rival, rivalScore + r.normal() * 0.3);
    if (r.uniform() < 0.5) blankFrames(1);
  }
  blankFrames(5);
  const data = new Float32Array(rows.length * V);
  rows.forEach((row, t) => data.set(row, t * V));
  return { data, frames: rows.length, vocabSize: V };
}

async function syntheticUtterances(
  texts: Map<string, string>,
  ids: string[],
  lm: CharNgramLm,
): Promise<{ vocabulary: CtcVocabulary; utterances: Utterance[] }> {
  const chars = new Set<string>();
  for (const t of texts.values()) for (const ch of t) if (ch.trim()) chars.add(ch);
  for (let s = 3; s < lm.symbols; s++) {
    const ch = String.fromCodePoint(lm.codePoint(s));
    if (/\p{Script=Ethiopic}/u.test(ch) && /\p{L}/u.test(ch)) chars.add(ch);
  }
  const tokens = ['<blank>', '|', ...[...chars].sort()];
  const vocabulary: CtcVocabulary = { tokens, blankId: 0, wordDelimiter: '|' };
  const index = new Map(tokens.map((t, i) => [t, i]));
  const utterances = ids.map((id, i) => {
    const reference = texts.get(id)!;
    const scores = synthesise(reference, vocabulary, index, 1000 + i * 7919 + id.length);
    return { id, reference, scores, seconds: scores.frames * FRAME_SECONDS };
  });
  return { vocabulary, utterances };
}

interface Run {
  readonly name: string;
  readonly cer: number;
  readonly edits: number;
  readonly referenceChars: number;
  readonly decodeMsPerAudioSecond: number;
  readonly worstMsPerAudioSecond: number;
}

function evaluate(name: string, decoder: CtcDecoder, utterances: readonly Utterance[]): Run {
  const acc = new CerAccumulator();
  let ms = 0;
  let seconds = 0;
  let worst = 0;
  for (const u of utterances) {
    const t0 = performance.now();
    const hyp = decoder.decode(u.scores);
    const dt = performance.now() - t0;
    ms += dt;
    seconds += u.seconds;
    worst = Math.max(worst, dt / u.seconds);
    acc.add(scoringForm(u.reference), scoringForm(hyp.text));
  }
  return { name, cer: acc.cer, edits: acc.edits, referenceChars: acc.referenceChars, decodeMsPerAudioSecond: ms / seconds, worstMsPerAudioSecond: worst };
}

async function main(): Promise<void> {
  let texts: Map<string, string>;
  let tune: string[];
  let evaluation: string[];
  if (tsvPath) {
    texts = new Map(
      (await readFile(tsvPath, 'utf8'))
        .split('\n')
        .filter((l) => l.includes('\t'))
        .map((l) => l.split('\t', 2) as [string, string]),
    );
    evaluation = [...texts.keys()];
    tune = evaluation; // 2-fold tuning inside the set
  } else {
    texts = parseKaldiText(await readFile(join(dataDir, 'alffa-am-train/text'), 'utf8'));
    ({ tune, evaluation } = splitIds([...texts.keys()]));
  }
  if (limit > 0) (tune = tune.slice(0, limit)), (evaluation = evaluation.slice(0, limit));
  const lm = await CharNgramLm.load(lmPath);
  const modelDir = args.get('model');
  let vocabulary: CtcVocabulary;
  let tuneSet: Utterance[];
  let evalSet: Utterance[];
  let source: string;
  let sourceName: string;
  if (modelDir) {
    const model = await loadModelFolder(modelDir);
    if (model.kind !== 'ctc') throw new Error(`${modelDir} is not a CTC model`);
    vocabulary = model.vocabulary;
    evalSet = await ctcUtterances(model, texts, evaluation, (id) =>
      tsvPath ? join(audioDir ?? '.', `${id}.wav`) : join(dataDir, 'alffa-am-train/flac', `${id}.flac`),
    );
    tuneSet = evalSet;
    source = `model ${model.name} (${model.dir}): ${model.manifest.description}`;
    sourceName = tsvPath ? `${model.name}-${basename(tsvPath, '.tsv')}` : model.name;
  } else {
    const synth = await syntheticUtterances(texts, tsvPath ? evaluation : [...tune, ...evaluation], lm);
    vocabulary = synth.vocabulary;
    tuneSet = tsvPath ? synth.utterances : synth.utterances.slice(0, tune.length);
    evalSet = tsvPath ? synth.utterances : synth.utterances.slice(tune.length);
    source = 'SYNTHETIC posteriors simulated from the reference text (not a model): measures LM correction and search cost only';
    sourceName = tsvPath ? `synthetic-${basename(tsvPath, '.tsv')}` : 'synthetic';
  }
  const greedy = new CtcGreedyDecoder(vocabulary);
  // Warm-up (JIT) on the tune set so the timed runs compare steady states.
  for (const u of tuneSet.slice(0, 10))
    greedy.decode(u.scores), new CtcBeamDecoder(vocabulary, { beamWidth, lm: { model: lm, alpha: 0.5, beta: 1 } }).decode(u.scores);

  const ALPHAS = [0.1, 0.2, 0.3, 0.5, 0.8, 1.2];
  const BETAS = [0, 0.5, 1, 2, 3, 4, 6];
  const beamLm = (alpha: number, beta: number, width = beamWidth): CtcBeamDecoder =>
    new CtcBeamDecoder(vocabulary, { beamWidth: width, lm: { model: lm, alpha, beta } });
  const tuneOn = (set: readonly Utterance[]): { alpha: number; beta: number; grid: Array<{ alpha: number; beta: number; cer: number }> } => {
    const grid = ALPHAS.flatMap((alpha) => BETAS.map((beta) => ({ alpha, beta, cer: evaluate('tune', beamLm(alpha, beta), set).cer })));
    const best = grid.reduce((a, b) => (b.cer < a.cer ? b : a));
    return { alpha: best.alpha, beta: best.beta, grid };
  };
  /** Beam + LM over the eval set with alpha/beta tuned away from the utterances scored. */
  const tunedRuns = (width: number): { run: Run; params: string; grids: unknown[]; weights: { alpha: number; beta: number } } => {
    if (!modelDir && !tsvPath) {
      const t = tuneOn(tuneSet);
      return {
        run: evaluate(`beam ${width} + LM (alpha ${t.alpha}, beta ${t.beta})`, beamLm(t.alpha, t.beta, width), evalSet),
        params: `alpha ${t.alpha}, beta ${t.beta}`,
        grids: [t.grid],
        weights: t,
      };
    }
    const half = Math.ceil(evalSet.length / 2);
    const folds = [evalSet.slice(0, half), evalSet.slice(half)];
    const parts = folds.map((fold, i) => {
      const t = tuneOn(folds[1 - i]!);
      return { t, run: evaluate('fold', beamLm(t.alpha, t.beta, width), fold), seconds: fold.reduce((n, u) => n + u.seconds, 0) };
    });
    const edits = parts.reduce((n, p) => n + p.run.edits, 0);
    const chars = parts.reduce((n, p) => n + p.run.referenceChars, 0);
    const secs = parts.reduce((n, p) => n + p.seconds, 0);
    const params = parts.map((p, i) => `fold ${i + 1}: alpha ${p.t.alpha}, beta ${p.t.beta}`).join('; ');
    return {
      run: {
        name: `beam ${width} + LM (2-fold tuned)`,
        cer: edits / chars,
        edits,
        referenceChars: chars,
        decodeMsPerAudioSecond: parts.reduce((n, p) => n + p.run.decodeMsPerAudioSecond * p.seconds, 0) / secs,
        worstMsPerAudioSecond: Math.max(...parts.map((p) => p.run.worstMsPerAudioSecond)),
      },
      params,
      grids: parts.map((p) => p.t.grid),
      weights: parts[0]!.t,
    };
  };
  const tuned8 = tunedRuns(beamWidth);
  const tuned16 = tunedRuns(16);
  const runs: Run[] = [
    evaluate('greedy', greedy, evalSet),
    evaluate(`beam ${beamWidth}`, new CtcBeamDecoder(vocabulary, { beamWidth }), evalSet),
    tuned8.run,
    tuned16.run,
  ];
  const grid = tuned8.grids;
  const bestGrid = tuned8.weights;
  // Worst case for search cost: flat random posteriors (an untrained model's), beam + LM.
  const flatRng = rng(99);
  const V = vocabulary.tokens.length;
  const flat = new Float32Array(500 * V).map(() => flatRng.normal());
  const flatScores = { data: flat, frames: 500, vocabSize: V };
  const flatDecoder = new CtcBeamDecoder(vocabulary, { beamWidth, lm: { model: lm, alpha: bestGrid.alpha, beta: bestGrid.beta } });
  const t0 = performance.now();
  flatDecoder.decode(flatScores);
  const flatMsPerSecond = (performance.now() - t0) / (500 * FRAME_SECONDS);

  const base = runs[0]!;
  const audioSeconds = evalSet.reduce((n, u) => n + u.seconds, 0);
  console.log(`source: ${source}`);
  console.log(`beam + LM weights: ${tuned8.params}`);
  console.log(
    `eval: ${evalSet.length} utterances, ${audioSeconds.toFixed(1)} s; tune: ${tuneSet.length}; LM ${lmPath} (${lm.order}-gram, ${lm.byteLength} bytes); vocabulary ${V}`,
  );
  for (const r of runs) {
    console.log(
      `${r.name.padEnd(40)} CER ${(100 * r.cer).toFixed(2).padStart(6)}%  (x${(r.cer / base.cer).toFixed(3)} of greedy)  decode ${r.decodeMsPerAudioSecond.toFixed(3)} ms per audio s (x${(r.decodeMsPerAudioSecond / base.decodeMsPerAudioSecond).toFixed(1)}), worst ${r.worstMsPerAudioSecond.toFixed(2)}`,
    );
  }
  console.log(`flat random posteriors, beam ${beamWidth} + LM: ${flatMsPerSecond.toFixed(2)} ms per audio s (worst case for search cost)`);
  mkdirSync('bench/results', { recursive: true });
  const file = `bench/results/decoding-lm-${sourceName}.json`;
  writeFileSync(
    file,
    `${JSON.stringify({ source, lm: { file: basename(lmPath), order: lm.order, bytes: lm.byteLength }, beamWidth, evalUtterances: evalSet.length, weights: tuned8.params, evalAudioSeconds: audioSeconds, tuneUtterances: tuneSet.length, language, split: tsvPath ? `all of ${tsvPath}` : args.has('eval-ids') ? 'eval ids from file' : 'eval: the 100 highest-numbered alffa-am-train ids (alffa_val)', tuning: modelDir || tsvPath ? '2-fold inside the eval set' : 'the 100 ids before the eval set', scoring: language === 'am' ? 'alffaScoringForm (homophones merged, spaces removed)' : 'forScoring (lower case, no punctuation, spaces kept)', grid, runs, flatMsPerAudioSecond: flatMsPerSecond, node: process.version, date: new Date().toISOString() }, null, 2)}\n`,
  );
  console.log(`wrote ${file}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
