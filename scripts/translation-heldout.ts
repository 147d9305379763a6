/**
 * Scores a translation model folder on its held-out sentences with the gateway's own engine and
 * scorers: for every `heldout/<src>-<tgt>.src` / `.ref` pair, chrF and BLEU of greedy decoding
 * (what POST /translate/v1 serves, and what `regression_chrf` in the manifest bounds) and of beam
 * search (file jobs), each with the decoding guards off and on (TRANSLATION_DECODING_GUARDS), in
 * the same run, beside the trivial baseline of copying the source (`copy_source`). For each run it
 * counts degenerate outputs (src/engines/scoring/degenerate-output.ts: a letter 5 times in a row,
 * a word, in-word or token n-gram 3 times in a row, or over 3 times the source's length),
 * sentences the guards found untranslatable (their output is empty and scores as such) and the
 * rows per guard action. Then the same counts, without references, on out-of-domain sentences
 * (`training/translation/ood/`: English medical, travel and technology sentences written for this;
 * Amharic and Tigrinya HornMT held-out snippets on health, sport, technology and culture).
 * Prints one JSON object per direction and set.
 *
 *   npm run translation:heldout [-- models/translate-am-en-ti-v1 [ood folder]]
 *
 * `HELDOUT_GUARDS=on` (or `off`) runs one setting only (comparing guard settings of a manifest copy).
 *
 * Each sentence is its own request (as a client sends it), so one untranslatable sentence fails
 * only itself; the engine still batches them. One onnxruntime thread (the machine is shared).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { corpusBleu, corpusChrf } from '../src/engines/scoring/scoring.js';
import { countDegenerate } from '../src/engines/scoring/degenerate-output.js';
import { OnnxTranslationEngine, type TranslationLanguage, type TranslationMode } from '../src/engines/translation/translation.js';

const folder = resolve(process.argv[2] ?? 'models/translate-am-en-ti-v1');
const oodFolder = resolve(process.argv[3] ?? 'training/translation/ood');
const heldout = join(folder, 'heldout');
if (!existsSync(heldout)) throw new Error(`${heldout} does not exist`);
/** One sentence per line (line i of .src goes with line i of .ref); the final newline ends the last line. */
const lines = (file: string): string[] => readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
const round2 = (x: number): number => Math.round(x * 100) / 100;

interface Run {
  readonly outputs: string[];
  readonly untranslatable: number;
  readonly actions: Record<string, number>;
  readonly seconds: number;
}

async function translateEach(
  engine: OnnxTranslationEngine,
  actions: Record<string, number>,
  sources: readonly string[],
  source: TranslationLanguage,
  target: TranslationLanguage,
  mode: TranslationMode,
): Promise<Run> {
  for (const key of Object.keys(actions)) delete actions[key];
  const started = performance.now();
  let untranslatable = 0;
  const outputs = await Promise.all(
    sources.map((text) =>
      engine.translate(text, source, target, { mode }).catch((error: { engineError?: string }) => {
        if (error.engineError !== 'untranslatable') throw error;
        untranslatable++;
        return '';
      }),
    ),
  );
  return { outputs, untranslatable, actions: { ...actions }, seconds: round2((performance.now() - started) / 1000) };
}

const degenerate = (outputs: readonly string[], sources: readonly string[]) => {
  const counts = countDegenerate(outputs.map((output, i) => ({ output, source: sources[i]! })));
  return { degenerate: counts.degenerate, by_kind: counts.byKind };
};

const directions = readdirSync(heldout)
  .filter((f) => f.endsWith('.src'))
  .map((f) => f.slice(0, -4))
  .sort();
const oodSets = directions.flatMap((direction) => {
  const [source] = direction.split('-') as [TranslationLanguage];
  const file = join(oodFolder, `${source}.txt`);
  return existsSync(file) ? [{ direction, sources: lines(file) }] : [];
});

const only = process.env['HELDOUT_GUARDS'];
const settings = [false, true].filter((g) => only === undefined || (only === 'on') === g);
/** Rows per guard action, per engine, reset before each run. */
const engines = await Promise.all(
  settings.map(async (guards) => {
    const actions: Record<string, number> = {};
    const engine = await OnnxTranslationEngine.open(folder, {
      workerNice: null,
      intraOpThreads: 1,
      decodingGuards: guards,
      observer: {
        onGuard: (event) => {
          for (const [action, rows] of Object.entries(event.actions)) actions[action] = (actions[action] ?? 0) + rows;
        },
      },
    });
    return { label: guards ? 'guards_on' : 'guards_off', guards, engine, actions };
  }),
);
try {
  for (const direction of directions) {
    const [source, target] = direction.split('-') as [TranslationLanguage, TranslationLanguage];
    const sources = lines(join(heldout, `${direction}.src`));
    const references = lines(join(heldout, `${direction}.ref`));
    const result: Record<string, unknown> = {
      set: 'heldout',
      direction,
      sentences: sources.length,
      copy_source: { chrf: round2(corpusChrf(sources, references)), ...degenerate(sources, sources) },
    };
    for (const { label, guards, engine, actions } of engines) {
      const entry: Record<string, unknown> = {};
      for (const mode of ['greedy', 'beam'] as const) {
        const run = await translateEach(engine, actions, sources, source, target, mode);
        entry[mode] = {
          chrf: round2(corpusChrf(run.outputs, references)),
          bleu: round2(corpusBleu(run.outputs, references).score),
          ...degenerate(run.outputs, sources),
          untranslatable: run.untranslatable,
          ...(guards ? { guard_rows: run.actions } : {}),
          seconds: run.seconds,
        };
      }
      result[label] = entry;
    }
    console.log(JSON.stringify(result));
  }
  for (const { direction, sources } of oodSets) {
    const [source, target] = direction.split('-') as [TranslationLanguage, TranslationLanguage];
    const result: Record<string, unknown> = { set: 'ood', direction, sentences: sources.length };
    for (const { label, guards, engine, actions } of engines) {
      const entry: Record<string, unknown> = {};
      for (const mode of ['greedy', 'beam'] as const) {
        const run = await translateEach(engine, actions, sources, source, target, mode);
        entry[mode] = {
          ...degenerate(run.outputs, sources),
          untranslatable: run.untranslatable,
          ...(guards ? { guard_rows: run.actions } : {}),
          seconds: run.seconds,
          // The sentence of the report (issue 28), as each setting answers it.
          ...(direction === 'en-am' ? { first: run.outputs[0] } : {}),
        };
      }
      result[label] = entry;
    }
    console.log(JSON.stringify(result));
  }
} finally {
  await Promise.all(engines.map(({ engine }) => engine.close()));
}
