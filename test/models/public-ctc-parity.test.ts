/**
 * A wav2vec2 CTC model in the layout transformers.js and Optimum publish on the Hugging Face hub
 * (test/fixtures/wav2vec2-hf: onnx/model.onnx, config.json, vocab.json, preprocessor_config.json,
 * tokenizer.json, tokenizer_config.json, special_tokens_map.json; random weights, made by
 * `training/asr/export_wav2vec2_style.py --layout transformers-js --seed 7`) is imported in place
 * with `npm run models -- import --in-place` (the published files stay untouched) and served by
 * the gateway's loader, inference pool and recogniser; the reference is @huggingface/transformers
 * (local files only) on the same audio: its Wav2Vec2FeatureExtractor + Wav2Vec2ForCTC logits,
 * argmax ids and its Wav2Vec2CTCTokenizer (tokenizer.json CTC decoder).
 *
 * Asserted: logits within 1e-4 absolute (both run the same onnxruntime 1.30 on the same graph;
 * only the float rounding of the normalisation may differ), identical argmax tokens on every
 * frame, and the gateway's text equal to the reference tokenizer's CTC decode of those tokens.
 * The transformers.js ASR pipeline itself drops special tokens (<pad>, the blank) before merging
 * repeats, so "ለ <pad> ለ" becomes one "ለ" there; the test pins that this is the only difference.
 * A missing file, a wrong config or a model that does not load is refused naming the file.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AutoModelForCTC, AutoProcessor, AutoTokenizer, pipeline, type Tensor } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferencePool } from '../../src/engines/asr/inference/inference-pool.js';
import type { LoadedCtcModel } from '../../src/engines/asr/models/model-loader.js';
import { ModelRegistry } from '../../src/engines/asr/models/model-registry.js';
import { CtcRecognizer } from '../../src/engines/asr/recognition/ctc-recognizer.js';
import { useLocalHub } from '../helpers/hub-models.js';
import { type CliRun, downloadModel, runModelsCli } from '../helpers/models-cli.js';
import { readPcm16Wav } from '../native/audio-helpers.js';
import { heldOutClip } from '../../training/common/heldout-fixtures.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = join(ROOT, 'test/fixtures/wav2vec2-hf');
const CLIP = heldOutClip('alffa_spk_heldout-tr_10778_tr02101.wav').path;
const LOGIT_TOLERANCE = 1e-4;

const modelsDir = useLocalHub('hub-ctc-');
let pool: InferencePool;

const runImport = (args: string[]): Promise<CliRun> => runModelsCli(['import', ...args]);

async function fileHashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[path.slice(dir.length + 1)] = createHash('sha256')
      .update(await readFile(path))
      .digest('hex');
  }
  return out;
}

const download = (name: string): Promise<string> => downloadModel(FIXTURE, modelsDir(), name);

beforeAll(async () => {
  pool = await InferencePool.start({ workers: 1, intraOpThreads: 1, maxBatchSize: 4, maxWaitMs: 2 });
});

afterAll(async () => {
  await pool?.close();
});

describe('wav2vec2 CTC in the transformers.js layout', () => {
  it('imports in place, and the gateway serves what @huggingface/transformers computes', async () => {
    const dir = await download('w2v-hub');
    const published = await fileHashes(dir);
    const { code, stdout } = await runImport([dir, '--in-place', '--name', 'w2v-hub-am', '--lang', 'am']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { ok: boolean; checks: Array<{ name: string; ok: boolean }> };
    expect(report.ok).toBe(true);
    // Only our two files were added; the published ones are byte for byte as downloaded.
    const after = await fileHashes(dir);
    expect(Object.keys(after).sort()).toEqual([...Object.keys(published), 'manifest.json', 'vocab.txt'].sort());
    for (const [file, hash] of Object.entries(published)) expect(after[file]).toBe(hash);

    const registry = await ModelRegistry.scan(modelsDir());
    expect(registry.problems()).toEqual([]);
    const model = registry.get('w2v-hub-am') as LoadedCtcModel;
    expect(model.onnxPath).toBe(join(dir, 'onnx/model.onnx'));
    expect(model.manifest).toMatchObject({ input: { normalize: 'zero_mean_unit_var' }, frameStrideSamples: 320, blankId: 0, wordDelimiter: '|' });

    const pcm = readPcm16Wav(await readFile(CLIP)).samples;
    const recognizer = new CtcRecognizer(pool, model);
    const served = await recognizer.recognize(pcm);
    const run = await pool.run(model.name, { data: pcm, length: pcm.length });
    const [frames, vocab] = run.dims as [number, number];

    // The reference: transformers.js from the same folder (it ignores our manifest.json and vocab.txt).
    const processor = await AutoProcessor.from_pretrained('w2v-hub');
    const reference = await AutoModelForCTC.from_pretrained('w2v-hub', { dtype: 'fp32' });
    const tokenizer = await AutoTokenizer.from_pretrained('w2v-hub');
    const inputs = await processor(pcm);
    const logits = ((await reference(inputs)) as { logits: Tensor }).logits;
    expect(logits.dims).toEqual([1, frames, vocab]);
    const expected = logits.data as Float32Array;
    let maxDiff = 0;
    for (let i = 0; i < expected.length; i++) maxDiff = Math.max(maxDiff, Math.abs(expected[i]! - run.output[i]!));
    expect(maxDiff).toBeLessThan(LOGIT_TOLERANCE);
    if (process.env.PARITY_REPORT) process.stdout.write(`ctc parity: ${frames} frames, max |logit diff| ${maxDiff}\n`);

    const argmax = (data: Float32Array, t: number): number => {
      let best = 0;
      for (let v = 1; v < vocab; v++) if (data[t * vocab + v]! > data[t * vocab + best]!) best = v;
      return best;
    };
    const ids = Array.from({ length: frames }, (_, t) => argmax(expected, t));
    expect(Array.from({ length: frames }, (_, t) => argmax(run.output, t))).toEqual(ids);
    // The decoded path's tokens are the argmax path with repeats merged and blanks dropped.
    const merged = ids.filter((id, t) => id !== 0 && (t === 0 || id !== ids[t - 1]));
    expect(served.hypothesis.tokens.map((tok) => tok.id)).toEqual(merged);
    expect(merged.length).toBeGreaterThan(20);

    const referenceText = tokenizer.decode(ids);
    expect(served.text).toBe(referenceText);

    // The transformers.js pipeline: the same except that it drops <pad> before merging repeats.
    const asr = await pipeline('automatic-speech-recognition', 'w2v-hub', { dtype: 'fp32' });
    const piped = (await asr(pcm)) as { text: string };
    const padsFirst = ids.filter((id) => id !== 0).filter((id, i, a) => i === 0 || id !== a[i - 1]);
    expect(piped.text).toBe(tokenizer.decode(padsFirst, { skip_special_tokens: true }).trim());
  }, 120_000);

  it('picks the quantized variant by name, and refuses one that is not there', async () => {
    const dir = await download('w2v-q8');
    const missing = await runImport([dir, '--in-place', '--name', 'w2v-q8-am', '--lang', 'am', '--variant', 'q8']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('looked for onnx/model_quantized.onnx and model_quantized.onnx');
    expect(missing.stderr).toContain('onnx/model.onnx');
  }, 60_000);

  it('refuses a missing vocab.json, a config.json that disagrees, and an ONNX file that does not load, naming the file', async () => {
    const noVocab = await download('w2v-novocab');
    await rm(join(noVocab, 'vocab.json'));
    const a = await runImport([noVocab, '--in-place', '--name', 'w2v-a', '--lang', 'am']);
    expect(a.code).toBe(1);
    expect(a.stderr).toMatch(/vocab\.json is missing/);

    const wrongConfig = await download('w2v-config');
    const config = JSON.parse(await readFile(join(wrongConfig, 'config.json'), 'utf8')) as Record<string, unknown>;
    await writeFile(join(wrongConfig, 'config.json'), JSON.stringify({ ...config, vocab_size: 32 }));
    const b = await runImport([wrongConfig, '--in-place', '--name', 'w2v-b', '--lang', 'am']);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain("config.json vocab_size 32 differs from vocab.json's 44 tokens");

    const broken = await download('w2v-broken');
    const bytes = await readFile(join(broken, 'onnx/model.onnx'));
    await writeFile(join(broken, 'onnx/model.onnx'), bytes.subarray(0, 4096));
    const c = await runImport([broken, '--in-place', '--name', 'w2v-c', '--lang', 'am']);
    expect(c.code).toBe(1);
    expect(c.stderr).toContain('onnx/model.onnx does not load');
    for (const dir of [noVocab, wrongConfig, broken]) expect((await readdir(dir)).filter((f) => f === 'manifest.json' || f === 'vocab.txt')).toEqual([]);

    // After import, a model file that goes missing keeps the folder out of the registry with its name.
    const gone = await download('w2v-gone');
    expect((await runImport([gone, '--in-place', '--name', 'w2v-gone-am', '--lang', 'am'])).code).toBe(0);
    await rm(join(gone, 'onnx/model.onnx'));
    const registry = await ModelRegistry.scan(modelsDir());
    expect(registry.problems().map((p) => p.message)).toContainEqual(expect.stringContaining('onnx/model.onnx is missing'));
  }, 120_000);
});
