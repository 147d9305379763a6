/**
 * An NLLB-200 / M2M100 translation model in the layout transformers.js publishes on the Hugging
 * Face hub (test/fixtures/nllb-tiny: onnx/encoder_model.onnx, onnx/decoder_model_merged.onnx,
 * config.json, generation_config.json, tokenizer.json, tokenizer_config.json,
 * sentencepiece.bpe.model; random weights, made by training/translation/export_tiny_nllb_style.py)
 * gets our manifest written beside its files by `npm run models -- import-translation` and is
 * served by the gateway's engine; the reference is @huggingface/transformers (local files only) on
 * the same sentences with NLLB's codes (eng_Latn, amh_Ethi, tir_Ethi).
 *
 * Asserted, greedy decoding, decoding guards off (the reference has none): the same source ids
 * (our SentencePiece + fairseq offset against its tokenizer.json with `src_lang`), the same output
 * tokens (our greedy search over our merged-decoder runs against its `generate` with
 * `forced_bos_token_id`, capped alike), and the engine's text, batched several sentences at a
 * time, equal to the reference's decoded text of each sentence alone. A missing tokenizer or
 * decoder is refused naming the file.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AutoModelForSeq2SeqLM, AutoTokenizer, env, type PreTrainedTokenizer, type Tensor } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OnnxSeq2Seq } from '../../src/engines/translation/onnx-seq2seq.js';
import { OnnxTranslationEngine } from '../../src/engines/translation/onnx-translation-engine.js';
import { outputCap } from '../../src/engines/translation/output-cap.js';
import { greedySearch } from '../../src/engines/translation/seq2seq-search.js';
import type { TranslationLanguage } from '../../src/engines/translation/translation-engine.js';
import { readTranslationManifest } from '../../src/engines/translation/translation-manifest.js';
import { TranslationTokenizer } from '../../src/engines/translation/translation-tokenizer.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = join(ROOT, 'test/fixtures/nllb-tiny');
const CLI = join(ROOT, 'src/app/cli/models-cli.ts');
const CODES: Record<TranslationLanguage, string> = { en: 'eng_Latn', am: 'amh_Ethi', ti: 'tir_Ethi' };
const CASES: Array<{ text: string; source: TranslationLanguage; target: TranslationLanguage }> = [
  { text: 'the good day is water.', source: 'en', target: 'am' },
  { text: 'a good day.', source: 'en', target: 'ti' },
  { text: 'ሰላም ነው።', source: 'am', target: 'en' },
  { text: 'ደህና ቀን ውሃ ነው።', source: 'am', target: 'ti' },
  { text: 'ሰላምታ ቀን።', source: 'ti', target: 'am' },
  { text: 'water is good?', source: 'en', target: 'am' },
];

let modelsDir: string;

async function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function download(name: string): Promise<string> {
  const dir = join(modelsDir, name);
  await cp(FIXTURE, dir, { recursive: true });
  return dir;
}

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'hub-nllb-'));
  env.allowRemoteModels = false;
  env.localModelPath = modelsDir;
});

afterAll(async () => {
  await rm(modelsDir, { recursive: true, force: true });
});

describe('NLLB / M2M100 in the transformers.js layout', () => {
  it('imports in place, and the gateway translates as @huggingface/transformers generates', async () => {
    const dir = await download('nllb-hub');
    const imported = await runCli(['import-translation', dir, '--name', 'nllb-hub']);
    expect(imported.code, imported.stderr).toBe(0);
    const manifest = readTranslationManifest(dir);
    expect(manifest).toMatchObject({ languages: ['en', 'am', 'ti'], targetTagPosition: 'decoder', specialIds: { pad: 1, unk: 3, eos: 2, decoderStart: 2 } });

    const tokenizer = (await AutoTokenizer.from_pretrained('nllb-hub')) as PreTrainedTokenizer & {
      _build_translation_inputs(text: string, options: object, generate: Record<string, unknown>): { input_ids: Tensor; attention_mask: Tensor };
    };
    const reference = await AutoModelForSeq2SeqLM.from_pretrained('nllb-hub', { dtype: 'fp32' });
    const ours = await TranslationTokenizer.open(manifest.tokenizer, manifest.specialIds.unk);
    const seq2seq = await OnnxSeq2Seq.open(manifest, { intraOpThreads: 1 });
    const engine = await OnnxTranslationEngine.open(dir, { intraOpThreads: 1, workerNice: null, decodingGuards: false, maxWaitMs: 50 });
    try {
      const langId = (language: TranslationLanguage): number => ours.tokenId(CODES[language]);
      const expectedTexts: string[] = [];
      let ended = 0;
      for (const { text, source, target } of CASES) {
        // Source ids: [src_lang, pieces, </s>] both ways.
        const generate: Record<string, unknown> = { src_lang: CODES[source], tgt_lang: CODES[target] };
        const inputs = tokenizer._build_translation_inputs(text, {}, generate);
        const pieces = ours.encode(text).ids;
        const sourceIds = [langId(source), ...pieces, manifest.specialIds.eos];
        expect((inputs.input_ids.tolist()[0] as bigint[]).map(Number), text).toEqual(sourceIds);

        // Output tokens: ours after [</s>, tgt_lang], capped at outputCap; the reference counts the forced token as new.
        const maxNew = outputCap(pieces.length, manifest.decoding);
        const [tokens] = await greedySearch(seq2seq, [{ source: sourceIds, prefix: [manifest.specialIds.decoderStart, langId(target)], maxNew }], {
          eos: manifest.specialIds.eos,
          banned: new Set([manifest.specialIds.pad, ...Object.values(CODES).map((c) => ours.tokenId(c))]),
          beamSize: 1,
          lengthPenalty: 1,
        });
        const generated = ((await reference.generate({ ...inputs, ...generate, max_new_tokens: maxNew + 1, num_beams: 1, do_sample: false })) as Tensor)
          .tolist()[0]!
          .map(Number) as number[];
        expect(generated.slice(0, 2), text).toEqual([manifest.specialIds.decoderStart, langId(target)]);
        const referenceTokens = generated.slice(2).filter((id) => id !== manifest.specialIds.eos);
        if (generated.at(-1) === manifest.specialIds.eos) ended++;
        expect(tokens, text).toEqual(referenceTokens);
        expect(tokens!.length).toBeGreaterThan(0);
        expectedTexts.push(tokenizer.decode(generated, { skip_special_tokens: true }));
      }
      expect(ended, 'some sentences end before the cap').toBeGreaterThan(0);

      // The engine end to end (sentence queue, worker, batching with padding): the same texts.
      const served = await Promise.all(CASES.map(({ text, source, target }) => engine.translate(text, source, target, { mode: 'greedy' })));
      expect(served).toEqual(expectedTexts);
    } finally {
      await engine.close();
      await seq2seq.release();
    }
  }, 120_000);

  it('refuses a folder without its tokenizer or decoder, naming the file, and writes nothing', async () => {
    const noSpm = await download('nllb-nospm');
    await rm(join(noSpm, 'sentencepiece.bpe.model'));
    const a = await runCli(['import-translation', noSpm, '--name', 'x']);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('sentencepiece.bpe.model is missing');

    const noTokenizer = await download('nllb-notok');
    await rm(join(noTokenizer, 'tokenizer.json'));
    const b = await runCli(['import-translation', noTokenizer, '--name', 'x']);
    expect(b.stderr).toContain('tokenizer.json is missing');

    const noDecoder = await download('nllb-nodec');
    await rm(join(noDecoder, 'onnx/decoder_model_merged.onnx'));
    const c = await runCli(['import-translation', noDecoder, '--name', 'x']);
    expect(c.stderr).toContain('no fp32 decoder: looked for onnx/decoder_model_merged.onnx');

    const q8 = await download('nllb-q8');
    const d = await runCli(['import-translation', q8, '--name', 'x', '--variant', 'q8']);
    expect(d.stderr).toContain('no q8 encoder: looked for onnx/encoder_model_quantized.onnx');
    for (const dir of [noSpm, noTokenizer, noDecoder, q8]) expect(await readdir(dir)).not.toContain('manifest.json');
  }, 60_000);
});
