/**
 * Scores a translation model folder on its held-out sentences with the gateway's own engine and
 * scorers: for every `heldout/<src>-<tgt>.src` / `.ref` pair, chrF and BLEU of greedy decoding
 * (what POST /translate/v1 serves, and what `regression_chrf` in the manifest bounds) and of beam
 * search (file jobs). Prints one JSON object per direction; the model card's figures and the
 * manifest's `regression_chrf` come from here.
 *
 *   npm run translation:heldout [-- models/translate-am-en-ti-v1]
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { corpusBleu, corpusChrf } from '../src/engines/scoring/scoring.js';
import { OnnxTranslationEngine, type TranslationLanguage } from '../src/engines/translation/translation.js';

const folder = resolve(process.argv[2] ?? 'models/translate-am-en-ti-v1');
const heldout = join(folder, 'heldout');
if (!existsSync(heldout)) throw new Error(`${heldout} does not exist`);
/** One sentence per line (line i of .src goes with line i of .ref); the final newline ends the last line. */
const lines = (file: string): string[] => readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');
const round2 = (x: number): number => Math.round(x * 100) / 100;

const engine = await OnnxTranslationEngine.open(folder, { workerNice: null });
try {
  for (const file of readdirSync(heldout)
    .filter((f) => f.endsWith('.src'))
    .sort()) {
    const direction = file.slice(0, -4);
    const [source, target] = direction.split('-') as [TranslationLanguage, TranslationLanguage];
    const sources = lines(join(heldout, file));
    const references = lines(join(heldout, `${direction}.ref`));
    const result: Record<string, unknown> = { direction, sentences: sources.length };
    for (const mode of ['greedy', 'beam'] as const) {
      const started = performance.now();
      const hypotheses = await engine.translateMany(sources, source, target, { mode });
      result[mode] = {
        chrf: round2(corpusChrf(hypotheses, references)),
        bleu: round2(corpusBleu(hypotheses, references).score),
        seconds: round2((performance.now() - started) / 1000),
      };
    }
    console.log(JSON.stringify(result));
  }
} finally {
  await engine.close();
}
