// Model regression: chrF of the shipped model on its committed held-out sentences
// (models/translate-am-en-ti-v1/heldout/<src>-<tgt>.src / .ref) must reach the bound the model's
// manifest records per direction (`regression_chrf`, measured when the model was trained), with
// the text endpoint's decoding (greedy). A direction without a bound fails the test.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusChrf } from '../../src/engines/scoring/scoring.js';
import { OnnxTranslationEngine } from '../../src/engines/translation/translation.js';
import { DIRECTIONS, type Lang, romanizedSource, TRANSLATION_MODEL_DIR } from '../helpers/translation-model.js';

const manifest = JSON.parse(readFileSync(join(TRANSLATION_MODEL_DIR, 'manifest.json'), 'utf8')) as { regression_chrf?: Record<string, number> };
/** One sentence per line (line i of .src goes with line i of .ref); the final newline ends the last line. */
const lines = (file: string): string[] => readFileSync(file, 'utf8').replace(/\n$/, '').split('\n');

let engine: OnnxTranslationEngine;
beforeAll(async () => {
  engine = await OnnxTranslationEngine.open(TRANSLATION_MODEL_DIR, { workerNice: null });
}, 120_000);
afterAll(async () => engine?.close());

describe('held-out chrF of the shipped translation model', () => {
  for (const [source, target] of DIRECTIONS) {
    const direction = `${source}-${target}`;
    it(`${direction} reaches regression_chrf.${direction}`, async () => {
      const bound = manifest.regression_chrf?.[direction];
      expect(bound, `manifest.json has no regression_chrf.${direction}`).toBeTypeOf('number');
      const base = join(TRANSLATION_MODEL_DIR, 'heldout', direction);
      expect(existsSync(`${base}.src`) && existsSync(`${base}.ref`), `${base}.src/.ref`).toBe(true);
      const sources = lines(`${base}.src`);
      const references = lines(`${base}.ref`);
      expect(sources.length).toBe(references.length);
      expect(sources.length).toBeGreaterThanOrEqual(50);
      const hypotheses = await engine.translateMany(sources, source, target, { mode: 'greedy' });
      const chrf = corpusChrf(hypotheses, references);
      expect(chrf, `${direction} chrF ${chrf.toFixed(2)}`).toBeGreaterThanOrEqual(bound!);
    }, 300_000);
  }
});

// Directions the manifest serves by transfer exist because the network scores far below the tables
// there: what is served must beat the trivial baseline clearly (the source copied; into English
// also the source romanized word by word, what transfer writes for words it does not know), and
// the network.
describe('transfer of the shipped model', () => {
  const transfers = Object.keys((manifest as { word_transfer?: Record<string, unknown> }).word_transfer ?? {});
  const all = DIRECTIONS.map(([s, t]) => `${s}-${t}`).sort();

  it('serves every direction', () => {
    expect(transfers.sort()).toEqual(all);
    expect(engine.wordTransferDirections.sort()).toEqual(all);
  });

  // am<->ti glosses keep most of the source, which copying already scores: a smaller margin there.
  const margins: Readonly<Record<string, number>> = { 'am-ti': 3, 'ti-am': 3 };
  for (const direction of all) {
    const margin = margins[direction] ?? 8;
    it(`${direction} beats the trivial baselines by at least ${margin} chrF, and the network`, async () => {
      const [source, target] = direction.split('-') as [Lang, Lang];
      const base = join(TRANSLATION_MODEL_DIR, 'heldout', direction);
      const sources = lines(`${base}.src`);
      const references = lines(`${base}.ref`);
      const served = corpusChrf(await engine.translateMany(sources, source, target), references);
      const baselines = [corpusChrf(sources, references)];
      if (target === 'en') baselines.push(corpusChrf(sources.map(romanizedSource), references));
      expect(served, `served ${served.toFixed(2)}, baselines ${baselines.map((b) => b.toFixed(2))}`).toBeGreaterThanOrEqual(Math.max(...baselines) + margin);
      const network = await OnnxTranslationEngine.open(TRANSLATION_MODEL_DIR, { workerNice: null, intraOpThreads: 1, wordTransfer: false });
      try {
        const networkChrf = corpusChrf(await network.translateMany(sources, source, target), references);
        expect(served, `served ${served.toFixed(2)}, network ${networkChrf.toFixed(2)}`).toBeGreaterThan(networkChrf);
      } finally {
        await network.close();
      }
    }, 300_000);
  }
});
