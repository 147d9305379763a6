/**
 * The transfer directions of the shipped translation model on the held-out HornMT sentences
 * (bench/hornmt-heldout.ts: the 300 test lines of prepare_mt.py's split, or --split dev for the 150
 * the settings were chosen on), all six directions between am, en and ti, each answered in one run:
 * - trivial baselines: the source copied as the translation, and for Amharic / Tigrinya into
 *   English the source romanized word by word (what transfer writes for a word it does not know, so
 *   that its share of the score is visible);
 * - the network (the engine opened with `wordTransfer: false`), greedy as `POST /translate/v1`
 *   decodes, guards on;
 * - what the gateway serves: word or phrase transfer for the directions the manifest lists under
 *   `word_transfer` (else the network again).
 * Each with corpus chrF and BLEU (src/engines/scoring) and degenerate outputs
 * (degenerate-output.ts), then the served answer's gain over the best baseline and over the network.
 * Writes bench/results/word-transfer[-dev].json.
 *
 *   npx tsx bench/word-transfer.ts [--split test|dev] [--data ../shared/data] [--model models/translate-am-en-ti-v1] [--directions am-en,en-am]
 */
import { resolve } from 'node:path';
import { corpusBleu, corpusChrf, countDegenerate } from '../src/engines/scoring/scoring.js';
import { OnnxTranslationEngine, type TranslationLanguage } from '../src/engines/translation/translation.js';
import { romanizedSource, TRANSLATION_MODEL_DIR } from '../test/helpers/translation-model.js';
import { option } from './bench-args.js';
import { publishReport, round2 } from './bench-results.js';
import { DIRECTIONS, hornmtHeldout } from './hornmt-heldout.js';

const split = option('split', 'test');
if (split !== 'test' && split !== 'dev') throw new Error('--split is test or dev');
const data = resolve(option('data', '../shared/data'));
const model = resolve(option('model', TRANSLATION_MODEL_DIR));
const directionList = option('directions', DIRECTIONS.map(([s, t]) => `${s}-${t}`).join(',')).split(',');
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
  for (const direction of directionList) {
    const [source, target] = direction.split('-') as [TranslationLanguage, TranslationLanguage];
    const rows = heldout[direction];
    if (rows === undefined) throw new Error(`--directions: no held-out sentences for ${direction}`);
    const sources = rows.map((r) => r.source);
    const references = rows.map((r) => r.reference);
    const started = performance.now();
    const networkOut: string[] = [];
    // A greedy request holds at most 256 sentences; the texts go in requests of 100.
    for (let at = 0; at < sources.length; at += 100) {
      networkOut.push(...(await network.translateMany(sources.slice(at, at + 100), source, target, { mode: 'greedy' })));
    }
    const networkSeconds = (performance.now() - started) / 1000;
    const servedStarted = performance.now();
    const servedOut: string[] = [];
    for (let at = 0; at < sources.length; at += 100) {
      servedOut.push(...(await served.translateMany(sources.slice(at, at + 100), source, target, { mode: 'greedy' })));
    }
    const servedMs = performance.now() - servedStarted;
    const baselines: Record<string, ReturnType<typeof score>> = { copySource: score(sources, sources, references) };
    if (target === 'en' && source !== 'en') baselines['romanizedSource'] = score(sources.map(romanizedSource), sources, references);
    const best = Math.max(...Object.values(baselines).map((b) => b.chrf));
    const networkScore = score(networkOut, sources, references);
    const servedScore = score(servedOut, sources, references);
    const byTransfer = served.wordTransferDirections.includes(direction);
    directions[direction] = {
      sentences: rows.length,
      ...baselines,
      network: { ...networkScore, seconds: round2(networkSeconds) },
      served: { ...servedScore, by: byTransfer ? 'transfer' : 'network', milliseconds: round2(servedMs) },
      servedMinusBestBaselineChrf: round2(servedScore.chrf - best),
      servedMinusNetworkChrf: round2(servedScore.chrf - networkScore.chrf),
      examples: [0, 1].map((i) => ({ source: sources[i], reference: references[i], network: networkOut[i], served: servedOut[i] })),
    };
    console.log(direction, JSON.stringify({ ...baselines, network: networkScore.chrf, served: servedScore.chrf, by: byTransfer ? 'transfer' : 'network' }));
  }
} finally {
  await Promise.all([network.close(), served.close()]);
}
publishReport(split === 'test' ? 'word-transfer' : 'word-transfer-dev', { model: served.name, split, directions });
