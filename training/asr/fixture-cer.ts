/**
 * The figures behind the CER bounds of test/models/shipped-models.test.ts: each named model's
 * CER on each set of the committed held-out clips (test/fixtures/heldout/heldout.tsv) of its
 * language, greedy and as its manifest decodes (beam + LM where it says so), through the same
 * runtime as the test (InferencePool, CtcRecognizer, scoredCharacterErrorRate).
 *
 *   npx tsx training/asr/fixture-cer.ts small-am-v2 [small-am-v1 ...]
 */
import { join, resolve } from 'node:path';
import { scoredCharacterErrorRate } from '../../src/engines/training.js';
import { ctcRecognizer, loadCtcModel, startMeasuringPool } from '../common/ctc-recognition.js';
import { heldOutFixtures } from '../common/heldout-fixtures.js';
import { readWav } from '../common/wav-file.js';

const ROOT = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '../..');

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  if (names.length === 0) throw new Error('usage: fixture-cer.ts MODEL [MODEL ...]');
  const clips = heldOutFixtures();
  const pool = await startMeasuringPool({ maxBatchSize: 4, maxWaitMs: 2 });
  try {
    for (const name of names) {
      const model = await loadCtcModel(join(ROOT, 'models', name));
      for (const label of ['greedy', 'manifest'] as const) {
        const recognizer = ctcRecognizer(pool, { ...model, name: `${name}-${label}` }, label);
        const bySet = new Map<string, { refs: string[]; hyps: string[] }>();
        for (const { path, language, set, reference } of clips) {
          if (language !== model.language) continue;
          const r = await recognizer.recognize(readWav(path));
          const entry = bySet.get(set) ?? { refs: [], hyps: [] };
          entry.refs.push(reference);
          entry.hyps.push(r.text);
          bySet.set(set, entry);
        }
        for (const [set, { refs, hyps }] of bySet) {
          const { cer } = scoredCharacterErrorRate(refs, hyps, model.language);
          console.log(`${name}\t${label}\t${set}\t${refs.length} clips\tCER ${(cer * 100).toFixed(2)}%`);
        }
      }
    }
  } finally {
    await pool.close();
  }
}

await main();
