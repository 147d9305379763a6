import { describe, expect, it } from 'vitest';
import { planTranslationImport, TranslationImportError, type TranslationExport } from './translation-import.js';
import { parseTranslationManifest } from './translation-manifest.js';

const nllbConfig = {
  model_type: 'm2m_100',
  d_model: 1024,
  decoder_layers: 12,
  decoder_attention_heads: 16,
  pad_token_id: 1,
  eos_token_id: 2,
  decoder_start_token_id: 2,
};
const nllbTokens = [
  ['<s>', 0],
  ['<pad>', 1],
  ['</s>', 2],
  ['<unk>', 3],
  ['amh_Ethi', 256026],
  ['eng_Latn', 256047],
  ['gaz_Latn', 256062],
  ['tir_Ethi', 256183],
].map(([content, id]) => ({ content, id, special: true }));
const nllb: TranslationExport = {
  files: [
    'config.json',
    'generation_config.json',
    'tokenizer.json',
    'sentencepiece.bpe.model',
    'onnx/encoder_model.onnx',
    'onnx/decoder_model_merged.onnx',
    'onnx/encoder_model_quantized.onnx',
    'onnx/decoder_model_merged_quantized.onnx',
  ],
  config: nllbConfig,
  generationConfig: { decoder_start_token_id: 2, eos_token_id: 2, pad_token_id: 1 },
  tokenizerJson: { added_tokens: nllbTokens },
  vocab: null,
};

const refuse = (found: TranslationExport, variant?: string): string => {
  try {
    planTranslationImport(found, { name: 'm', variant });
  } catch (error) {
    expect(error).toBeInstanceOf(TranslationImportError);
    return (error as Error).message;
  }
  return 'accepted';
};

describe('planTranslationImport', () => {
  it('maps an NLLB-200 export (transformers.js layout) to a manifest the engine parses', () => {
    const { manifest, notes } = planTranslationImport(nllb, { name: 'nllb-200-distilled-600m' });
    const parsed = parseTranslationManifest(manifest, '/models/nllb');
    expect(parsed).toMatchObject({
      languages: ['en', 'am', 'ti'],
      tokenizer: { kind: 'shared', idOffset: 1, addedTokens: { eng_Latn: 256047, amh_Ethi: 256026, tir_Ethi: 256183 } },
      targetTags: { en: 'eng_Latn', am: 'amh_Ethi', ti: 'tir_Ethi' },
      sourceTags: { en: 'eng_Latn', am: 'amh_Ethi', ti: 'tir_Ethi' },
      targetTagPosition: 'decoder',
      onnx: { encoder: '/models/nllb/onnx/encoder_model.onnx', decoderMerged: '/models/nllb/onnx/decoder_model_merged.onnx', decoder: null },
      specialIds: { pad: 1, unk: 3, eos: 2, decoderStart: 2 },
      layers: 12,
      heads: 16,
      headDim: 64,
    });
    expect(notes.join(' ')).toMatch(/gaz_Latn \(Oromo\)/);
    const q8 = planTranslationImport(nllb, { name: 'm', variant: 'q8' }).manifest;
    expect(q8.onnx).toEqual({ encoder: 'onnx/encoder_model_quantized.onnx', decoder_merged: 'onnx/decoder_model_merged_quantized.onnx' });
  });

  it('takes the split decoders when there is no merged one', () => {
    const files = ['sentencepiece.bpe.model', 'encoder_model.onnx', 'decoder_model.onnx', 'decoder_with_past_model.onnx'];
    expect(planTranslationImport({ ...nllb, files }, { name: 'm' }).manifest.onnx).toEqual({
      encoder: 'encoder_model.onnx',
      decoder: 'decoder_model.onnx',
      decoder_with_past: 'decoder_with_past_model.onnx',
    });
  });

  it('maps a multilingual Marian export, its targets as >>xxx<< source tokens', () => {
    const marian: TranslationExport = {
      files: ['config.json', 'source.spm', 'target.spm', 'vocab.json', 'onnx/encoder_model.onnx', 'onnx/decoder_model_merged.onnx'],
      config: {
        model_type: 'marian',
        d_model: 512,
        decoder_layers: 6,
        decoder_attention_heads: 8,
        pad_token_id: 58100,
        eos_token_id: 0,
        decoder_start_token_id: 58100,
      },
      generationConfig: null,
      tokenizerJson: null,
      vocab: { '</s>': 0, '<unk>': 1, '>>amh<<': 5, '>>tir<<': 6, '>>eng<<': 7, '<pad>': 58100 },
    };
    const plan = planTranslationImport(marian, { name: 'opus-mt-en-mul' });
    expect(parseTranslationManifest(plan.manifest, '/m')).toMatchObject({
      languages: ['en', 'am', 'ti'],
      tokenizer: { kind: 'pair' },
      targetTags: { en: '>>eng<<', am: '>>amh<<', ti: '>>tir<<' },
      targetTagPosition: 'source',
      sourceTags: null,
      specialIds: { pad: 58100, unk: 1, eos: 0, decoderStart: 58100 },
    });
    expect(plan.notes.join(' ')).toMatch(/no generation_config.json/);
    expect(refuse({ ...marian, vocab: { '</s>': 0, '<unk>': 1, '<pad>': 2 } })).toMatch(/bilingual opus-mt model translates one direction only/);
    expect(refuse({ ...marian, files: marian.files.filter((f) => f !== 'target.spm') })).toMatch(/target.spm is missing/);
  });

  it('refuses what it cannot serve, naming the file', () => {
    expect(refuse({ ...nllb, config: null })).toMatch(/config.json is missing/);
    expect(refuse({ ...nllb, config: { ...nllbConfig, model_type: 't5' } })).toMatch(/model_type "t5"/);
    expect(refuse({ ...nllb, tokenizerJson: null })).toMatch(/tokenizer.json is missing/);
    expect(refuse({ ...nllb, files: nllb.files.filter((f) => f !== 'sentencepiece.bpe.model') })).toMatch(/sentencepiece.bpe.model is missing/);
    expect(refuse({ ...nllb, files: nllb.files.filter((f) => !f.startsWith('onnx/decoder')) })).toMatch(
      /no fp32 decoder: looked for onnx\/decoder_model_merged.onnx/,
    );
    expect(refuse(nllb, 'fp16')).toMatch(/no fp16 encoder: looked for onnx\/encoder_model_fp16.onnx/);
    expect(refuse({ ...nllb, tokenizerJson: { added_tokens: nllbTokens.filter((t) => t.content !== 'tir_Ethi' && t.content !== 'amh_Ethi') } })).toMatch(
      /cover en of en, am, ti/,
    );
    expect(refuse({ ...nllb, config: { ...nllbConfig, d_model: 1000, decoder_attention_heads: 16 } })).toMatch(/not a multiple/);
    expect(
      refuse({
        ...nllb,
        tokenizerJson: {
          added_tokens: [
            { content: '__am__', id: 128004 },
            { content: '__en__', id: 128022 },
          ],
        },
      }),
    ).toMatch(/M2M100's __xx__ language tokens/);
  });
});
