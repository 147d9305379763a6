import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { it } from 'vitest';
import { CtcRecognizer } from '../src/speech/recognition/ctc-recognizer.js';
import { InferencePool } from '../src/speech/inference/inference-pool.js';
import type { LoadedCtcModel } from '../src/speech/models/model-loader.js';
import { ModelRegistry } from '../src/speech/models/model-registry.js';
import { readPcm16Wav } from './native/audio-helpers.js';
const MODELS_DIR = fileURLToPath(new URL('../models', import.meta.url));
const HELDOUT = new URL('./fixtures/heldout/', import.meta.url);
it('dbg', async () => {
  const registry = await ModelRegistry.scan(MODELS_DIR);
  const pool = await InferencePool.start({ workers: 1, intraOpThreads: 1, maxBatchSize: 4, maxWaitMs: 2 });
  const clips = readFileSync(new URL('heldout.tsv', HELDOUT), 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t'));
  for (const name of ['small-om-v1', 'beta-om-v1', 'small-ti-v1', 'beta-ti-v1']) {
    const m = registry.get(name) as LoadedCtcModel;
    const rec = new CtcRecognizer(pool, m);
    for (const [file, lang, , ref] of clips) {
      if (lang !== m.language) continue;
      const r = await rec.recognize(readPcm16Wav(readFileSync(new URL(file!, HELDOUT))).samples);
      process.stderr.write(`OUT ${name}\t${JSON.stringify(r.text)}\tREF ${ref}\n`);
    }
  }
  await pool.close();
}, 120000);
