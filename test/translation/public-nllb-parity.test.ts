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
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { PreTrainedTokenizer, Tensor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import type { TranslationLanguage } from '../../src/engines/translation/translation-engine.js';
import { readTranslationManifest } from '../../src/engines/translation/translation-manifest.js';
import { fixturePath } from '../helpers/fixtures.js';
import { expectHubParity, useLocalHub } from '../helpers/hub-models.js';
import { downloadModel, runModelsCli } from '../helpers/models-cli.js';

const CODES: Record<TranslationLanguage, string> = { en: 'eng_Latn', am: 'amh_Ethi', ti: 'tir_Ethi' };
const hub = useLocalHub('hub-nllb-');
const download = (name: string): Promise<string> => downloadModel(fixturePath('nllb-tiny'), hub(), name);
type NllbTokenizer = PreTrainedTokenizer & {
  _build_translation_inputs(text: string, options: object, generate: Record<string, unknown>): { input_ids: Tensor; attention_mask: Tensor };
};

describe('NLLB / M2M100 in the transformers.js layout', () => {
  it('imports in place, and the gateway translates as @huggingface/transformers generates', async () => {
    const dir = await download('nllb-hub');
    const imported = await runModelsCli(['import-translation', dir, '--name', 'nllb-hub']);
    expect(imported.code, imported.stderr).toBe(0);
    const manifest = readTranslationManifest(dir);
    expect(manifest).toMatchObject({ languages: ['en', 'am', 'ti'], targetTagPosition: 'decoder', specialIds: { pad: 1, unk: 3, eos: 2, decoderStart: 2 } });
    // Source ids [src_lang, pieces, </s>] both ways; the decoder starts [</s>, tgt_lang], and the
    // reference counts the forced target code as a new token.
    await expectHubParity(dir, 'nllb-hub', {
      tags: CODES,
      sourceTag: (c) => c.source,
      targetTagInDecoder: true,
      reference: (tokenizer, model, { text, source, target }) => {
        const generate: Record<string, unknown> = { src_lang: CODES[source], tgt_lang: CODES[target] };
        const inputs = (tokenizer as NllbTokenizer)._build_translation_inputs(text, {}, generate);
        return {
          sourceIds: (inputs.input_ids.tolist()[0] as bigint[]).map(Number),
          generate: async (maxNew) => (await model.generate({ ...inputs, ...generate, max_new_tokens: maxNew + 1, num_beams: 1, do_sample: false })) as Tensor,
        };
      },
    });
  }, 120_000);

  it('refuses a folder without its tokenizer or decoder, naming the file, and writes nothing', async () => {
    const noSpm = await download('nllb-nospm');
    await rm(join(noSpm, 'sentencepiece.bpe.model'));
    const a = await runModelsCli(['import-translation', noSpm, '--name', 'x']);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('sentencepiece.bpe.model is missing');

    const noTokenizer = await download('nllb-notok');
    await rm(join(noTokenizer, 'tokenizer.json'));
    const b = await runModelsCli(['import-translation', noTokenizer, '--name', 'x']);
    expect(b.stderr).toContain('tokenizer.json is missing');

    const noDecoder = await download('nllb-nodec');
    await rm(join(noDecoder, 'onnx/decoder_model_merged.onnx'));
    const c = await runModelsCli(['import-translation', noDecoder, '--name', 'x']);
    expect(c.stderr).toContain('no fp32 decoder: looked for onnx/decoder_model_merged.onnx');

    const q8 = await download('nllb-q8');
    const d = await runModelsCli(['import-translation', q8, '--name', 'x', '--variant', 'q8']);
    expect(d.stderr).toContain('no q8 encoder: looked for onnx/encoder_model_quantized.onnx');
    for (const dir of [noSpm, noTokenizer, noDecoder, q8]) expect(await readdir(dir)).not.toContain('manifest.json');
  }, 60_000);
});
