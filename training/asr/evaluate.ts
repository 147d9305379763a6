/**
 * Measures a shipped model through the gateway's own runtime: loadModelFolder (manifest,
 * vocabulary), InferencePool (onnxruntime-node in a worker thread, 1 worker, 1 intra-op thread),
 * CtcRecognizer (the gateway's log-mel features from the manifest, greedy CTC decoding).
 * Reports CER (src/engines/asr/text/character-error-rate.ts, scoredCharacterErrorRate) per held-out set and the real-time factor
 * (wall time of recognize() over audio duration, one request at a time: one core busy at a time).
 *
 * Usage: npx tsx training/asr/evaluate.ts --model models/small-am-v1 --set alffa_val \
 *          [--set synth_am_test_clean ...] [--out file.json] [--limit N] [--decoding manifest]
 * --decoding manifest decodes as the gateway serves the model (the manifest's default: beam
 * search with its LM where it names one) instead of greedy; the JSON records which.
 * --units decomposed: the model's tokens are consonants + vowel-order marks (train.py --units
 * decomposed, common.decompose); the output is recomposed to syllables before scoring.
 * A set is training/work/<set>.tsv (id TAB reference) + work/audio/<set>/<id>.wav.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scoredCharacterErrorRate } from '../../src/engines/training.js';
import { type CtcDecoding, ctcRecognizer, loadCtcModel, startMeasuringPool, tsvRows } from '../common/ctc-recognition.js';
import { readWav } from '../common/wav-file.js';

/** training/work (git-ignored): the sets prepare_data.py writes. */
const WORK = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', 'work');

/** common.recompose: a consonant (first-order letter) then an optional vowel-order mark U+E000+k
 * becomes the syllable of order k; a consonant without a mark is the sixth order; stray marks go. */
export function recompose(text: string): string {
  const out: number[] = [];
  const syllabic = (c: number): boolean => c >= 0x1200 && c <= 0x1357;
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xe000 && c < 0xe008) {
      const prev = out.length ? out[out.length - 1]! : -1;
      if (syllabic(prev) && (prev - 0x1200) % 8 === 5) out[out.length - 1] = prev - 5 + (c - 0xe000);
      continue;
    }
    out.push(syllabic(c) && (c - 0x1200) % 8 === 0 ? c + 5 : c);
  }
  return String.fromCodePoint(...out);
}

function args(): {
  model: string;
  sets: string[];
  out: string | null;
  limit: number;
  examples: number;
  decoding: CtcDecoding;
  units: string;
} {
  const a = process.argv.slice(2);
  let model = '';
  const sets: string[] = [];
  let out: string | null = null;
  let limit = Infinity;
  let examples = 3;
  let decoding: string = 'greedy';
  let units = 'syllable';
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--model') model = a[++i]!;
    else if (a[i] === '--set') sets.push(a[++i]!);
    else if (a[i] === '--out') out = a[++i]!;
    else if (a[i] === '--limit') limit = Number(a[++i]);
    else if (a[i] === '--examples') examples = Number(a[++i]);
    else if (a[i] === '--decoding') decoding = a[++i]!;
    else if (a[i] === '--units') units = a[++i]!;
    else throw new Error(`unknown argument ${a[i]}`);
  }
  if (!model || sets.length === 0) throw new Error('usage: evaluate.ts --model <dir> --set <name> [--set ...] [--out file] [--limit N]');
  if (decoding !== 'greedy' && decoding !== 'manifest') throw new Error('--decoding greedy|manifest');
  if (units !== 'syllable' && units !== 'decomposed') throw new Error('--units syllable|decomposed');
  return { model, sets, out, limit, examples, decoding: decoding as CtcDecoding, units };
}

async function main(): Promise<void> {
  const opts = args();
  const model = await loadCtcModel(opts.model);
  const pool = await startMeasuringPool({ maxBatchSize: 1 });
  const recognizer = ctcRecognizer(pool, model, opts.decoding);
  const results: Record<string, unknown> = {
    model: model.name,
    language: model.language,
    decoding: recognizer.decoding,
    units: opts.units,
    sets: {},
  };
  try {
    await recognizer.recognize(new Float32Array(16000)); // opens the session before timing
    let totalAudio = 0;
    let totalWall = 0;
    for (const set of opts.sets) {
      const rows = tsvRows(readFileSync(join(WORK, `${set}.tsv`), 'utf8')).slice(0, opts.limit) as [string, string][];
      const refs: string[] = [];
      const hyps: string[] = [];
      let audio = 0;
      let wall = 0;
      for (const [id, ref] of rows) {
        const pcm = readWav(join(WORK, 'audio', set, `${id}.wav`));
        const t0 = performance.now();
        const r = await recognizer.recognize(pcm);
        wall += (performance.now() - t0) / 1000;
        audio += pcm.length / 16000;
        refs.push(ref);
        hyps.push(opts.units === 'decomposed' ? recompose(r.text) : r.text);
      }
      const score = scoredCharacterErrorRate(refs, hyps, model.language);
      totalAudio += audio;
      totalWall += wall;
      (results.sets as Record<string, unknown>)[set] = {
        utterances: rows.length,
        audio_seconds: Number(audio.toFixed(1)),
        cer: Number(score.cer.toFixed(4)),
        errors: score.errors,
        reference_chars: score.referenceChars,
        // Latin script: also without case (true case is mostly a guess from audio: names, sentence starts)
        ...(model.manifest.output.casing === 'none'
          ? {}
          : {
              cer_ignoring_case: Number(
                scoredCharacterErrorRate(
                  refs.map((r) => r.toLowerCase()),
                  hyps.map((h) => h.toLowerCase()),
                  model.language,
                ).cer.toFixed(4),
              ),
            }),
        // how often the sentence mark ። appears in the references and in the output
        sentence_marks: { reference: refs.join('').split('።').length - 1, output: hyps.join('').split('።').length - 1 },
        rtf: Number((wall / audio).toFixed(4)),
        examples: refs.slice(0, opts.examples).map((ref, i) => ({ ref, hyp: hyps[i] })),
      };
      console.log(`${model.name} ${set}: n=${rows.length} CER=${(score.cer * 100).toFixed(2)}% RTF=${(wall / audio).toFixed(4)}`);
    }
    results.rtf = Number((totalWall / totalAudio).toFixed(4));
    results.audio_seconds = Number(totalAudio.toFixed(1));
  } finally {
    await pool.close();
  }
  if (opts.out) writeFileSync(opts.out, JSON.stringify(results, null, 2) + '\n');
  else console.log(JSON.stringify(results, null, 2));
}

await main();
