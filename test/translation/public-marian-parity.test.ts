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
import type { Tensor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import type { TranslationLanguage } from '../../src/engines/translation/translation-engine.js';
import { readTranslationManifest } from '../../src/engines/translation/translation-manifest.js';
import { fixturePath } from '../helpers/fixtures.js';
import { expectHubParity, useLocalHub } from '../helpers/hub-models.js';
import { downloadModel, runModelsCli } from '../helpers/models-cli.js';

const TAGS: Record<TranslationLanguage, string> = { en: '>>eng<<', am: '>>amh<<', ti: '>>tir<<' };
const hub = useLocalHub('hub-marian-');

describe('Marian (opus-mt, multilingual) in the transformers.js layout', () => {
  it('imports in place, and the gateway translates as @huggingface/transformers generates', async () => {
    const dir = await downloadModel(fixturePath('marian-tiny'), hub(), 'marian-hub');
    const imported = await runModelsCli(['import-translation', dir, '--name', 'marian-hub']);
    expect(imported.code, imported.stderr).toBe(0);
    expect(readTranslationManifest(dir)).toMatchObject({
      languages: ['en', 'am', 'ti'],
      targetTagPosition: 'source',
      tokenizer: { kind: 'pair' },
      specialIds: { pad: 66, unk: 1, eos: 0, decoderStart: 66 },
    });
    await expectHubParity(dir, 'marian-hub', {
      tags: TAGS,
      sourceTag: (c) => c.target,
      targetTagInDecoder: false,
      reference: (tokenizer, model, { text, target }) => {
        const inputs = tokenizer(`${TAGS[target]} ${text}`) as { input_ids: Tensor; attention_mask: Tensor };
        return {
          sourceIds: (inputs.input_ids.tolist()[0] as bigint[]).map(Number),
          // forced_eos_token_id null turns the model's forced end off (the option's type leaves null out).
          generate: async (maxNew) =>
            (await model.generate({ ...inputs, max_new_tokens: maxNew, num_beams: 1, do_sample: false, forced_eos_token_id: null } as unknown as Parameters<
              typeof model.generate
            >[0])) as Tensor,
        };
      },
    });
  }, 120_000);
});
