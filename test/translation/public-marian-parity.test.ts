/**
 * A multilingual Marian (opus-mt) model in the layout transformers.js publishes on the Hugging Face
 * hub (test/fixtures/marian-tiny: onnx/encoder_model.onnx, onnx/decoder_model_merged.onnx,
 * source.spm, target.spm, vocab.json, tokenizer.json, config.json, generation_config.json; random
 * weights, made by training/translation/export_tiny_marian_style.py) gets our manifest written
 * beside its files by `npm run models -- import-translation` and is served by the gateway's engine;
 * the reference is @huggingface/transformers (local files only) on the same sentences, the target
 * chosen by a `>>amh<<`-style first token as opus-mt's multilingual models take it.
 *
 * Asserted, greedy decoding, decoding guards off: the same source ids (our source.spm + vocab.json
 * against its MarianTokenizer), the same output tokens (our greedy search against its `generate`
 * with the model's bad_words_ids [[pad]]; its forced_eos_token_id is turned off, since the gateway
 * caps a row without forcing an end), and the engine's text, sentences batched with padding, equal
 * to the reference's decode of each sentence alone.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
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
const FIXTURE = join(ROOT, 'test/fixtures/marian-tiny');
const CLI = join(ROOT, 'src/app/cli/models-cli.ts');
const TAGS: Record<TranslationLanguage, string> = { en: '>>eng<<', am: '>>amh<<', ti: '>>tir<<' };
const CASES: Array<{ text: string; source: TranslationLanguage; target: TranslationLanguage }> = [
  { text: 'the good day is water.', source: 'en', target: 'am' },
  { text: 'a good day.', source: 'en', target: 'ti' },
  { text: 'ሰላም ነው።', source: 'am', target: 'en' },
  { text: 'ደህና ቀን ውሃ ነው።', source: 'am', target: 'ti' },
  { text: 'ሰላምታ ቀን።', source: 'ti', target: 'am' },
  { text: 'water is good?', source: 'en', target: 'am' },
];

let modelsDir: string;

beforeAll(async () => {
  modelsDir = await mkdtemp(join(tmpdir(), 'hub-marian-'));
  env.allowRemoteModels = false;
  env.localModelPath = modelsDir;
});

afterAll(async () => {
  await rm(modelsDir, { recursive: true, force: true });
});

describe('Marian (opus-mt, multilingual) in the transformers.js layout', () => {
  it('imports in place, and the gateway translates as @huggingface/transformers generates', async () => {
    const dir = join(modelsDir, 'marian-hub');
    await cp(FIXTURE, dir, { recursive: true });
    await promisify(execFile)(process.execPath, ['--import', 'tsx', CLI, 'import-translation', dir, '--name', 'marian-hub'], { cwd: ROOT });
    const manifest = readTranslationManifest(dir);
    expect(manifest).toMatchObject({
      languages: ['en', 'am', 'ti'],
      targetTagPosition: 'source',
      tokenizer: { kind: 'pair' },
      specialIds: { pad: 66, unk: 1, eos: 0, decoderStart: 66 },
    });

    const tokenizer = (await AutoTokenizer.from_pretrained('marian-hub')) as PreTrainedTokenizer;
    const reference = await AutoModelForSeq2SeqLM.from_pretrained('marian-hub', { dtype: 'fp32' });
    const ours = await TranslationTokenizer.open(manifest.tokenizer, manifest.specialIds.unk);
    const seq2seq = await OnnxSeq2Seq.open(manifest, { intraOpThreads: 1 });
    const engine = await OnnxTranslationEngine.open(dir, { intraOpThreads: 1, workerNice: null, decodingGuards: false, maxWaitMs: 50 });
    try {
      const expectedTexts: string[] = [];
      let ended = 0;
      for (const { text, source, target } of CASES) {
        const inputs = tokenizer(`${TAGS[target]} ${text}`) as { input_ids: Tensor; attention_mask: Tensor };
        const pieces = ours.encode(text).ids;
        const sourceIds = [ours.tokenId(TAGS[target]), ...pieces, manifest.specialIds.eos];
        expect((inputs.input_ids.tolist()[0] as bigint[]).map(Number), `${source} ${text}`).toEqual(sourceIds);

        const maxNew = outputCap(pieces.length, manifest.decoding);
        const [tokens] = await greedySearch(seq2seq, [{ source: sourceIds, prefix: [manifest.specialIds.decoderStart], maxNew }], {
          eos: manifest.specialIds.eos,
          banned: new Set([manifest.specialIds.pad, ...Object.values(TAGS).map((t) => ours.tokenId(t))]),
          beamSize: 1,
          lengthPenalty: 1,
        });
        // forced_eos_token_id null turns the model's forced end off (the option's type leaves null out).
        const options = { ...inputs, max_new_tokens: maxNew, num_beams: 1, do_sample: false, forced_eos_token_id: null };
        const generated = ((await reference.generate(options as unknown as Parameters<typeof reference.generate>[0])) as Tensor)
          .tolist()[0]!
          .map(Number) as number[];
        expect(generated[0]).toBe(manifest.specialIds.decoderStart);
        if (generated.at(-1) === manifest.specialIds.eos) ended++;
        expect(tokens, text).toEqual(generated.slice(1).filter((id) => id !== manifest.specialIds.eos));
        expect(tokens!.length).toBeGreaterThan(0);
        expectedTexts.push(tokenizer.decode(generated, { skip_special_tokens: true }));
      }
      expect(ended, 'some sentences end before the cap').toBeGreaterThan(0);
      const served = await Promise.all(CASES.map(({ text, source, target }) => engine.translate(text, source, target, { mode: 'greedy' })));
      expect(served).toEqual(expectedTexts);
    } finally {
      await engine.close();
      await seq2seq.release();
    }
  }, 120_000);
});
