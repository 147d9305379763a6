import { describe, expect, it } from 'vitest';
import { parseTranslationManifest, TranslationManifestError } from './translation-manifest.js';

const ours = {
  kind: 'translation',
  name: 'translate-am-en-ti-v1',
  languages: ['am', 'en', 'ti'],
  tokenizer: { type: 'sentencepiece', model: 'spm.model' },
  target_tags: { am: '<2am>', en: '<2en>', ti: '<2ti>' },
  target_tag_position: 'source',
  onnx: { encoder: 'encoder_model.onnx', decoder: 'decoder_model.onnx', decoder_with_past: 'decoder_with_past_model.onnx' },
  special_ids: { pad: 0, unk: 1, bos: 2, eos: 3, decoder_start: 2 },
  layers: 2,
  heads: 4,
  head_dim: 48,
  decoding: { beam_size: 4, length_penalty: 1.0, max_input_tokens: 200, max_output_tokens: 256, max_output_ratio: 2.5 },
  regression_chrf: { 'en-am': 20.5 },
};

describe('parseTranslationManifest', () => {
  it('reads our layout with absolute paths', () => {
    const m = parseTranslationManifest(ours, '/models/t');
    expect(m.tokenizer).toEqual({ kind: 'shared', model: '/models/t/spm.model', idOffset: 0, addedTokens: {} });
    expect(m.onnx).toEqual({
      encoder: '/models/t/encoder_model.onnx',
      decoder: '/models/t/decoder_model.onnx',
      decoderWithPast: '/models/t/decoder_with_past_model.onnx',
      decoderMerged: null,
    });
    expect(m.targetTags).toEqual({ am: '<2am>', en: '<2en>', ti: '<2ti>' });
    expect(m.specialIds).toEqual({ pad: 0, unk: 1, eos: 3, decoderStart: 2 });
    expect(m.decoding.beamSize).toBe(4);
    expect(m.regressionChrf).toEqual({ 'en-am': 20.5 });
    expect(m.sourceTags).toBeNull();
    expect(m.wordTransfer).toBeNull();
  });

  it('reads the directions served by transfer, with the default threshold and unknown-word rule', () => {
    const m = parseTranslationManifest(
      {
        ...ours,
        word_transfer: {
          'am-ti': { table: 'lex.am-ti', min_probability: 0.3 },
          'ti-am': { table: 'lex.ti-am' },
          'am-en': { table: 'phrases.am-en.gz', min_probability: 0, unknown_words: 'romanize' },
        },
      },
      '/models/t',
    );
    expect(m.wordTransfer).toEqual({
      'am-ti': { table: '/models/t/lex.am-ti', minProbability: 0.3, unknownWords: 'keep' },
      'ti-am': { table: '/models/t/lex.ti-am', minProbability: 0.2, unknownWords: 'keep' },
      'am-en': { table: '/models/t/phrases.am-en.gz', minProbability: 0, unknownWords: 'romanize' },
    });
  });

  it('reads the Marian layout with its default file names', () => {
    const m = parseTranslationManifest(
      {
        kind: 'translation',
        languages: ['en', 'am'],
        tokenizer: { type: 'sentencepiece' },
        target_tags: { am: '>>amh<<', en: '>>eng<<' },
        onnx: { decoder: 'decoder_model.onnx', decoder_with_past: 'decoder_with_past_model.onnx' },
        special_ids: { pad: 58100, unk: 1, eos: 0, decoder_start: 58100 },
      },
      '/models/opus',
    );
    expect(m.name).toBe('opus');
    expect(m.tokenizer).toEqual({
      kind: 'pair',
      source: '/models/opus/source.spm',
      target: '/models/opus/target.spm',
      vocab: '/models/opus/vocab.json',
      addedTokens: {},
    });
    expect(m.onnx.encoder).toBe('/models/opus/encoder_model.onnx');
    expect(m.targetTagPosition).toBe('source');
    expect(m.decoding).toEqual({
      beamSize: 4,
      lengthPenalty: 1,
      maxInputTokens: 200,
      maxOutputTokens: 256,
      maxOutputRatio: 2.5,
      maxOutputExtra: 4,
      noRepeatNgram: 3,
      repetitionPenalty: 1,
      maxOutputCharRatio: null,
    });
  });

  it('reads the NLLB layout: decoder-position tags, source tags, ids, merged decoder', () => {
    const m = parseTranslationManifest(
      {
        kind: 'translation',
        languages: ['en', 'am', 'om'],
        tokenizer: { type: 'sentencepiece', model: 'sentencepiece.bpe.model', id_offset: 1, added_tokens: { amh_Ethi: 256026 } },
        source_tags: { am: 'amh_Ethi', en: 256047 },
        target_tags: { am: 'amh_Ethi', en: 256047 },
        target_tag_position: 'decoder',
        onnx: { decoder_merged: 'decoder_model_merged.onnx' },
        layers: 12,
        heads: 16,
        head_dim: 64,
        special_ids: { pad: 1, unk: 3, eos: 2, decoder_start: 2 },
      },
      '/models/nllb',
    );
    // `om` is not a translation language of the gateway: dropped
    expect(m.languages).toEqual(['en', 'am']);
    expect(m.tokenizer).toMatchObject({ kind: 'shared', idOffset: 1, addedTokens: { amh_Ethi: 256026 } });
    expect(m.sourceTags).toEqual({ am: 'amh_Ethi', en: 256047 });
    expect(m.targetTagPosition).toBe('decoder');
    expect(m.onnx.decoder).toBeNull();
    expect(m.onnx.decoderMerged).toBe('/models/nllb/decoder_model_merged.onnx');
  });

  it('names what is wrong', () => {
    const bad = (patch: Record<string, unknown>) => () => parseTranslationManifest({ ...ours, ...patch }, '/m');
    expect(bad({ kind: 'ctc' })).toThrow(TranslationManifestError);
    expect(bad({ kind: 'ctc' })).toThrow(/kind/);
    expect(bad({ languages: ['en'] })).toThrow(/languages/);
    expect(bad({ target_tags: { am: '<2am>', en: '<2en>' } })).toThrow(/target_tags\.ti/);
    expect(bad({ target_tag_position: 'middle' })).toThrow(/target_tag_position/);
    expect(bad({ onnx: { decoder: 'd.onnx' } })).toThrow(/go together/);
    expect(bad({ onnx: {} })).toThrow(/decoder_merged/);
    expect(bad({ special_ids: { pad: 0, unk: 1, eos: 3 } })).toThrow(/decoder_start/);
    expect(bad({ tokenizer: { type: 'sentencepiece', model: '../escape.model' } })).toThrow(/tokenizer\.model/);
    expect(bad({ decoding: { max_output_char_ratio: 2 } })).toThrow(/max_output_char_ratio/);
    expect(bad({ decoding: { max_output_char_ratio: { 'en-am': -1 } } })).toThrow(/max_output_char_ratio\.en-am/);
    expect(bad({ word_transfer: ['am-ti'] })).toThrow(/word_transfer must map/);
    expect(bad({ word_transfer: { 'am-om': { table: 'lex' } } })).toThrow(/word_transfer\.am-om: the direction/);
    expect(bad({ word_transfer: { 'am-am': { table: 'lex' } } })).toThrow(/word_transfer\.am-am: the direction/);
    expect(bad({ word_transfer: { 'am-ti': { table: '../lex' } } })).toThrow(/word_transfer\.am-ti\.table/);
    expect(bad({ word_transfer: { 'am-ti': { table: 'lex', min_probability: 2 } } })).toThrow(/min_probability/);
    expect(bad({ word_transfer: { 'am-en': { table: 'lex', unknown_words: 'drop' } } })).toThrow(/unknown_words must be "keep" or "romanize"/);
  });

  it('reads the decoding guards settings; a letter ratio over 3 is held to 3', () => {
    const m = parseTranslationManifest(
      { ...ours, decoding: { no_repeat_ngram_size: 4, repetition_penalty: 1.2, max_output_char_ratio: { 'en-am': 1.5, 'am-en': 5 } } },
      '/m',
    );
    expect(m.decoding).toMatchObject({ noRepeatNgram: 4, repetitionPenalty: 1.2, maxOutputCharRatio: { 'en-am': 1.5, 'am-en': 3 } });
  });
});
