/**
 * Amharic <-> Tigrinya on the held-out HornMT sentences (bench/hornmt-heldout.ts: the 300 test
 * lines of prepare_mt.py's split, or --split dev for the 150 the threshold was chosen on), three
 * answers in one run with the shipped model folder:
 * - the source copied as the translation (the trivial baseline);
 * - the network (the engine opened with `wordTransfer: false`), greedy as `POST /translate/v1`
 *   decodes, guards on;
 * - word-for-word transfer (the manifest's `word_transfer`, what the gateway serves for these
 *   directions).
 * Each with corpus chrF and BLEU (src/engines/scoring) and degenerate outputs
 * (degenerate-output.ts), then the transfer's gain over the copy and the words it replaced.
 * Writes bench/results/word-transfer[-dev].json.
 *
 *   npx tsx bench/word-transfer.ts [--split test|dev] [--data ../shared/data] [--model models/translate-am-en-ti-v1]
 */
import { resolve } from 'node:path';
import { corpusBleu, corpusChrf, countDegenerate } from '../src/engines/scoring/scoring.js';
import { OnnxTranslationEngine, type TranslationLanguage, wordsOf } from '../src/engines/translation/translation.js';
import { TRANSLATION_MODEL_DIR } from '../test/helpers/translation-model.js';
import { option } from './bench-args.js';
import { publishReport, round2 } from './bench-results.js';
import { hornmtHeldout } from './hornmt-heldout.js';

const split = option('split', 'test');
if (split !== 'test' && split !== 'dev') throw new Error('--split is test or dev');
const data = resolve(option('data', '../shared/data'));
const model = resolve(option('model', TRANSLATION_MODEL_DIR));
const heldout = hornmtHeldout(data, split);

const score = (outputs: readonly string[], sources: readonly string[], references: readonly string[]) => ({
  chrf: round2(corpusChrf(outputs, references)),
  bleu: round2(corpusBleu(outputs, references).score),
  degenerate: countDegenerate(outputs.map((output, i) => ({ output, source: sources[i]! }))).degenerate,
});

const network = await OnnxTranslationEngine.open(model, { wordTransfer: false, workerNice: null, intraOpThreads: 1 });
const served = await OnnxTranslationEngine.open(model, { workerNice: null, intraOpThreads: 1 });
const directions: Record<string, unknown> = {};
try {
  for (const direction of ['am-ti', 'ti-am']) {
    const [source, target] = direction.split('-') as [TranslationLanguage, TranslationLanguage];
    const rows = heldout[direction]!;
    const sources = rows.map((r) => r.source);
    const references = rows.map((r) => r.reference);
    const started = performance.now();
    const networkOut: string[] = [];
    // A greedy request holds at most 256 sentences; the texts go in requests of 100.
    for (let at = 0; at < sources.length; at += 100) {
      networkOut.push(...(await network.translateMany(sources.slice(at, at + 100), source, target, { mode: 'greedy' })));
    }
    const networkSeconds = (performance.now() - started) / 1000;
    const transferStarted = performance.now();
    const transferOut = await served.translateMany(sources, source, target, { mode: 'greedy' });
    const transferMs = performance.now() - transferStarted;
    let words = 0;
    let replaced = 0;
    rows.forEach((row, i) => {
      const before = wordsOf(row.source);
      const after = wordsOf(transferOut[i]!);
      words += before.length;
      replaced += before.filter((w, k) => after[k] !== w).length;
    });
    const copy = score(sources, sources, references);
    const transfer = score(transferOut, sources, references);
    directions[direction] = {
      sentences: rows.length,
      copySource: copy,
      network: { ...score(networkOut, sources, references), seconds: round2(networkSeconds) },
      wordTransfer: { ...transfer, milliseconds: round2(transferMs), wordsReplaced: replaced, words },
      wordTransferMinusCopyChrf: round2(transfer.chrf - copy.chrf),
      servedByWordTransfer: served.wordTransferDirections.includes(direction),
    };
  }
} finally {
  await Promise.all([network.close(), served.close()]);
}
publishReport(split === 'test' ? 'word-transfer' : 'word-transfer-dev', { model: served.name, split, directions });
