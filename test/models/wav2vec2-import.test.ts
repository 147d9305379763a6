/**
 * Importing a public wav2vec2-style CTC export with `npm run models -- import`: the fixture
 * (test/fixtures/wav2vec2-style/, made by training/asr/export_wav2vec2_style.py) has the
 * layout of a Hugging Face Wav2Vec2ForCTC ONNX export with random weights. After the import the
 * registry serves it, and the gateway's transcript equals a greedy decode of the logits that
 * onnxruntime gives for the same audio normalised as Wav2Vec2FeatureExtractor does.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CtcGreedyDecoder } from '../../src/engines/asr/decoding/ctc-greedy-decoder.js';
import { InferencePool } from '../../src/engines/asr/inference/inference-pool.js';
import type { LoadedCtcModel } from '../../src/engines/asr/models/model-loader.js';
import { ModelRegistry } from '../../src/engines/asr/models/model-registry.js';
import { CtcRecognizer } from '../../src/engines/asr/recognition/ctc-recognizer.js';
import { forOutput } from '../../src/engines/asr/text/text-normalizer.js';
import { readPcm16Wav } from '../native/audio-helpers.js';
import { heldOutClip } from '../../training/common/heldout-fixtures.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXPORT = join(ROOT, 'test/fixtures/wav2vec2-style');
const CLIP = heldOutClip('alffa_spk_heldout-tr_10778_tr02101.wav').path;

let modelsDir: string;
let pool: InferencePool;

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'w2v-import-'));
  pool = await InferencePool.start({ workers: 1, intraOpThreads: 1, maxBatchSize: 4, maxWaitMs: 2 });
});

afterAll(async () => {
  await pool?.close();
  await rm(modelsDir, { recursive: true, force: true });
});

describe('models import (wav2vec2-style CTC export)', () => {
  it('imports through the CLI, passes check, and is served as the export computes it', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/app/cli/models-cli.ts'), 'import', EXPORT, '--name', 'w2v-test-am', '--lang', 'am', '--models-dir', modelsDir],
      { cwd: ROOT },
    );
    const report = JSON.parse(stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean }> };
    expect(report.ok).toBe(true);
    expect(report.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual(['padding_invariance']); // a warning: no lengths input

    const registry = await ModelRegistry.scan(modelsDir);
    expect(registry.problems()).toEqual([]);
    const model = registry.get('w2v-test-am') as LoadedCtcModel;
    expect(model.manifest).toMatchObject({
      input: { kind: 'waveform', normalize: 'zero_mean_unit_var' },
      io: { lengths: null },
      maxBatchSize: 1,
      blankId: 0,
      wordDelimiter: '|',
    });

    const pcm = readPcm16Wav(await readFile(CLIP)).samples;
    const served = await new CtcRecognizer(pool, model).recognize(pcm);

    // The same audio through onnxruntime directly, normalised per utterance (mean 0, variance 1).
    const mean = pcm.reduce((a, b) => a + b, 0) / pcm.length;
    const variance = pcm.reduce((a, b) => a + (b - mean) ** 2, 0) / pcm.length;
    const input = Float32Array.from(pcm, (x) => (x - mean) / Math.sqrt(variance + 1e-7));
    const session = await ort.InferenceSession.create(join(EXPORT, 'model.onnx'));
    const logits = (await session.run({ input_values: new ort.Tensor('float32', input, [1, input.length]) })).logits!;
    await session.release();
    const expected = new CtcGreedyDecoder(model.vocabulary).decode({ data: logits.data as Float32Array, frames: logits.dims[1]!, vocabSize: logits.dims[2]! });
    expect(expected.text.length).toBeGreaterThan(0);
    expect(served.text).toBe(forOutput(expected.text, 'am'));
  }, 60_000);
});
