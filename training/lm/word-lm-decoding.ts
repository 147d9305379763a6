/**
 * Character LM against word LM with a character fallback (issue 14): decodes the speaker-held-out
 * ALFFA groups (training/common/splits/) with one acoustic model and each LM setup, tunes the
 * decoding weights of every setup on the `val` groups only, then decodes the `test` groups once
 * with each setup's picked weights. Scoring as the model cards (scored-character-error-rate.ts:
 * spaces and punctuation removed, ALFFA homophone merge).
 *
 * Setups (the gateway's CtcBeamDecoder, ctc-beam-decoder.ts):
 *   char          character LM only (alpha, beta)
 *   add:NAME      character LM over every letter + word LM NAME at word ends (alpha, weight, beta)
 *   replace:NAME  word LM NAME with character fallback: in-vocabulary words scored by the word LM,
 *                 <unk> words by ln P(<unk>) + their character spelling (alpha, weight, beta)
 * Tuning: a grid at `--grid-beam` over alpha x beta (x weight), then the per-word bonus at the best
 * point, then the beam (`--beams`): the smallest beam within 0.1 point of the best is kept.
 *
 * The model's logits are computed once (gateway features + onnxruntime-node, training/common/ctc-utterances.ts)
 * and cached in `--cache` (training/work/), so grids cost only the search.
 *
 * The exact commands (LM builds included): training/lm/measure_word_lm.sh; e.g.
 *   npx tsx training/lm/word-lm-decoding.ts --model models/small-am-v2 \
 *     --lm models/lm/am-char-7gram.bin --word-lm w3=training/work/wordlm/am-word-3gram.bin \
 *     --setups char,add:w3,replace:w3 [--weights ... --replace-weights ... --bonuses ... --beams ...] \
 *     [--out training/asr/results/x.json]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ctcUtterances, type Utterance } from '../common/ctc-utterances.js';
import {
  type BeamLm,
  CharNgramLm,
  CtcBeamDecoder,
  type CtcDecoder,
  CtcGreedyDecoder,
  type CtcVocabulary,
  type LoadedCtcModel,
  loadModelFolder,
  parseKaldiText,
  scoredCharacterErrorRate,
  WORD_BOS,
  WORD_UNK,
  WordNgramLm,
} from '../../src/engines/training.js';

/** training/: work/ (git-ignored caches) and common/splits/ (the ALFFA speaker split). */
const TRAINING = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const numbers = (name: string, fallback: string): number[] => (opt(name) ?? fallback).split(',').map(Number);
const groupOf = (id: string): string => id.split('_')[2]!.slice(2, 5);

interface Point {
  readonly alpha: number;
  readonly beta: number;
  readonly weight: number;
  readonly bonus: number;
  readonly beam: number;
}

interface Setup {
  readonly name: string;
  readonly mode: 'char' | 'add' | 'replace';
  readonly word: WordNgramLm | null;
}

/** Logits of every utterance of a set, cached as one JSON index + one float32 file. */
async function cachedSet(
  model: LoadedCtcModel,
  set: string,
  ids: string[],
  texts: Map<string, string>,
  dataDir: string,
  cacheDir: string,
): Promise<Utterance[]> {
  const index = join(cacheDir, `${model.name}-spk-${set}.json`);
  const blob = join(cacheDir, `${model.name}-spk-${set}.f32`);
  if (existsSync(index) && existsSync(blob)) {
    const meta = JSON.parse(readFileSync(index, 'utf8')) as Array<{
      id: string;
      reference: string;
      frames: number;
      vocabSize: number;
      seconds: number;
      offset: number;
    }>;
    const bytes = readFileSync(blob);
    const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    if (meta.map((m) => m.id).join() === ids.join())
      return meta.map((m) => ({
        id: m.id,
        reference: m.reference,
        seconds: m.seconds,
        scores: { data: all.slice(m.offset, m.offset + m.frames * m.vocabSize), frames: m.frames, vocabSize: m.vocabSize },
      }));
  }
  const utts = await ctcUtterances(model, texts, ids, (id) => join(dataDir, 'alffa-am-train/flac', `${id}.flac`));
  let offset = 0;
  const meta = utts.map((u) => {
    const m = { id: u.id, reference: u.reference, frames: u.scores.frames, vocabSize: u.scores.vocabSize, seconds: u.seconds, offset };
    offset += u.scores.data.length;
    return m;
  });
  const all = new Float32Array(offset);
  utts.forEach((u, i) => all.set(u.scores.data, meta[i]!.offset));
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(blob, new Uint8Array(all.buffer));
  writeFileSync(index, JSON.stringify(meta));
  return utts;
}

function score(d: CtcDecoder, set: readonly Utterance[], language: string): { cer: number; errors: number; referenceChars: number; msPerAudioS: number } {
  const hyps: string[] = [];
  const t0 = performance.now();
  for (const u of set) hyps.push(d.decode(u.scores).text);
  const ms = performance.now() - t0;
  const s = scoredCharacterErrorRate(
    set.map((u) => u.reference),
    hyps,
    language,
  );
  return { cer: s.cer, errors: s.errors, referenceChars: s.referenceChars, msPerAudioS: ms / set.reduce((n, u) => n + u.seconds, 0) };
}

function decoderFor(vocabulary: CtcVocabulary, charLm: CharNgramLm, setup: Setup, p: Point): CtcDecoder {
  const lm: BeamLm = {
    model: charLm,
    alpha: p.alpha,
    beta: p.beta,
    word: setup.word && setup.mode !== 'char' ? { model: setup.word, weight: p.weight, mode: setup.mode, bonus: p.bonus } : null,
  };
  return new CtcBeamDecoder(vocabulary, { beamWidth: p.beam, lm });
}

async function main(): Promise<void> {
  const modelDir = opt('model') ?? 'models/small-am-v2';
  const dataDir = opt('data') ?? process.env.DATA_DIR ?? '/work/shared/data';
  const cacheDir = opt('cache') ?? join(TRAINING, 'work', 'logits');
  const model = await loadModelFolder(modelDir);
  if (model.kind !== 'ctc') throw new Error(`${modelDir} is not a CTC model`);
  const lmPath = opt('lm') ?? model.lmPath;
  if (!lmPath) throw new Error('--lm: a character LM is needed');
  let t0 = performance.now();
  const charLm = CharNgramLm.loadSync(lmPath);
  const loads: Record<string, unknown> = {
    char: { file: lmPath, bytes: charLm.byteLength, order: charLm.order, load_ms: Number((performance.now() - t0).toFixed(1)) },
  };
  const words = new Map<string, WordNgramLm>();
  for (const spec of (opt('word-lm') ?? '').split(',').filter(Boolean)) {
    const [name, file] = spec.split('=') as [string, string];
    t0 = performance.now();
    const w = WordNgramLm.loadSync(file);
    words.set(name, w);
    const loadMs = performance.now() - t0;
    // Check: p(. | h) sums to 1 over the vocabulary (<unk> and </s> included) for a few contexts.
    const sums = [[WORD_BOS], [WORD_BOS, w.id('የ')], [w.id('ነው')], [w.id('ኢትዮጵያ'), w.id('ውስጥ')], [WORD_UNK, WORD_UNK]].map((context) => {
      let sum = 0;
      for (let x = 0; x < w.words; x++) if (x !== WORD_BOS) sum += Math.exp(w.logProb(context, x));
      return Number(sum.toFixed(5));
    });
    loads[name] = {
      file,
      bytes: w.byteLength,
      order: w.order,
      vocabulary: w.words - 3,
      counts: w.counts(),
      load_ms: Number(loadMs.toFixed(1)),
      probability_sums: sums,
    };
    console.log(name, JSON.stringify(loads[name]));
  }
  const setups: Setup[] = (opt('setups') ?? 'char').split(',').map((s) => {
    const [mode, name] = s.split(':') as ['char' | 'add' | 'replace', string | undefined];
    if (mode === 'char') return { name: 'char', mode, word: null };
    const word = words.get(name ?? '');
    if (!word || (mode !== 'add' && mode !== 'replace')) throw new Error(`setup ${s}: add:NAME or replace:NAME with --word-lm NAME=FILE`);
    return { name: s, mode, word };
  });

  const texts = parseKaldiText(readFileSync(join(dataDir, 'alffa-am-train/text'), 'utf8'));
  const sets = new Map<string, Utterance[]>();
  for (const name of ['val', 'test']) {
    const ids = readFileSync(join(TRAINING, 'common', 'splits', `alffa-spk-${name}.txt`), 'utf8')
      .split('\n')
      .filter(Boolean);
    sets.set(name, await cachedSet(model, name, ids, texts, dataDir, cacheDir));
  }
  const val = sets.get('val')!;
  const language = model.language;
  const vocabulary = model.vocabulary;
  const gridBeam = Number(opt('grid-beam') ?? 16);
  const alphas = numbers('alphas', '0.3,0.4,0.5,0.6,0.7');
  const betas = numbers('betas', '1.5,2,2.5,3,3.5');
  const weights = numbers('weights', '0.1,0.2,0.3,0.5');
  const replaceWeights = numbers('replace-weights', '0.3,0.4,0.5,0.6,0.8');
  const bonuses = numbers('bonuses', '-1,-0.5,0.5,1');
  const beams = numbers('beams', '8,16,32');

  const reference = {
    greedy: Object.fromEntries([...sets].map(([n, s]) => [n, score(new CtcGreedyDecoder(vocabulary), s, language).cer])),
    [`beam ${gridBeam}, no LM`]: Object.fromEntries(
      [...sets].map(([n, s]) => [n, score(new CtcBeamDecoder(vocabulary, { beamWidth: gridBeam }), s, language).cer]),
    ),
  };
  console.log('reference', JSON.stringify(reference));
  const out: Record<string, unknown>[] = [];
  for (const setup of setups) {
    const grid: Array<Point & { cer: number }> = [];
    const tried = new Map<string, number>();
    const tryPoint = (p: Point): number => {
      const key = JSON.stringify(p);
      const seen = tried.get(key);
      if (seen !== undefined) return seen;
      const cer = score(decoderFor(vocabulary, charLm, setup, p), val, language).cer;
      tried.set(key, cer);
      grid.push({ ...p, cer: Number(cer.toFixed(4)) });
      return cer;
    };
    const ws = setup.mode === 'char' ? [0] : setup.mode === 'add' ? weights : replaceWeights;
    const started = performance.now();
    let best: Point = { alpha: alphas[0]!, beta: betas[0]!, weight: ws[0]!, bonus: 0, beam: gridBeam };
    let bestCer = Infinity;
    const consider = (p: Point): void => {
      const cer = tryPoint(p);
      if (cer < bestCer - 1e-9) {
        bestCer = cer;
        best = p;
      }
    };
    for (const alpha of alphas) for (const beta of betas) for (const weight of ws) consider({ alpha, beta, weight, bonus: 0, beam: gridBeam });
    if (setup.mode !== 'char') {
      const base = best;
      for (const bonus of bonuses) consider({ ...base, bonus });
    }
    // Beam: the smallest within 0.1 point of the best.
    const atBeam = beams.map((beam) => ({ beam, cer: tryPoint({ ...best, beam }) }));
    const floor = Math.min(...atBeam.map((b) => b.cer));
    const beam = atBeam.filter((b) => b.cer <= floor + 0.001).sort((a, b) => a.beam - b.beam)[0]!.beam;
    const pick: Point = { ...best, beam };
    const figures = Object.fromEntries(
      [...sets].map(([name, set]) => {
        const s = score(decoderFor(vocabulary, charLm, setup, pick), set, language);
        return [
          name,
          { cer: Number(s.cer.toFixed(4)), errors: s.errors, reference_chars: s.referenceChars, decode_ms_per_audio_s: Number(s.msPerAudioS.toFixed(3)) },
        ];
      }),
    );
    const row = {
      setup: setup.name,
      mode: setup.mode,
      pick,
      tuned_on: 'val',
      figures,
      grid_points: grid.length,
      tuning_seconds: Math.round((performance.now() - started) / 1000),
      grid,
    };
    out.push(row);
    console.log(
      `${setup.name.padEnd(14)} pick ${JSON.stringify(pick)}  val ${(100 * figures.val!.cer).toFixed(2)}%  test ${(100 * figures.test!.cer).toFixed(2)}%  (${grid.length} val decodes, ${row.tuning_seconds} s; ${figures.val!.decode_ms_per_audio_s} ms per audio s)`,
    );
  }
  const result = {
    model: model.name,
    lms: loads,
    sets: Object.fromEntries(
      [...sets].map(([n, s]) => [
        n,
        { groups: [...new Set(s.map((u) => groupOf(u.id)))], utterances: s.length, audio_seconds: Number(s.reduce((a, u) => a + u.seconds, 0).toFixed(1)) },
      ]),
    ),
    scoring: 'scored-character-error-rate.ts (spaces and punctuation removed, ALFFA homophone merge)',
    tuning: `val only: grid at beam ${gridBeam} over alpha ${alphas} x beta ${betas} x word weight (add ${weights}; replace ${replaceWeights}), then per-word bonus ${bonuses} at the best point, then beam ${beams} (smallest within 0.1 point); test decoded once with the pick`,
    reference,
    setups: out,
    command: `npx tsx training/lm/word-lm-decoding.ts ${argv.join(' ')}`,
    date: new Date().toISOString(),
  };
  const file = opt('out');
  if (file) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  }
}

await main();
