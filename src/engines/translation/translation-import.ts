/**
 * Plans the manifest.json (docs/translation-models.md) of a translation model downloaded in the
 * layout transformers.js and Optimum publish on the Hugging Face hub, so the folder is served as
 * published, our manifest written beside its files. Pure: the caller lists the folder and reads
 * its JSON files; `planTranslationImport` says what to write or throws TranslationImportError
 * naming the file at fault.
 *
 * Rules:
 * - `config.json` `model_type` decides the family: `m2m_100` / `nllb` (NLLB-200, which Hugging Face
 *   files as m2m_100) or `marian` (opus-mt). Anything else is refused, and so is a true M2M100
 *   (`__am__`-style language tokens over a vocab.json): not mapped yet.
 * - ONNX files: `onnx/` first, then the top, with the variant's suffix as transformers.js names its
 *   dtypes (fp32 '', q8 `_quantized`, fp16 `_fp16`, ...): `encoder_model<s>.onnx`, then
 *   `decoder_model_merged<s>.onnx`, else the pair `decoder_model<s>.onnx` +
 *   `decoder_with_past_model<s>.onnx`. A missing one is refused with the names looked for.
 * - Special ids from `generation_config.json`, else `config.json`: `pad_token_id`, `eos_token_id`,
 *   `decoder_start_token_id`; `unk` from tokenizer.json's `<unk>` (NLLB: 3) or vocab.json (Marian).
 *   A merged decoder's empty first-step past: `decoder_layers`, `decoder_attention_heads`,
 *   `d_model / heads`.
 * - NLLB / M2M100: the SentencePiece model `sentencepiece.bpe.model` with fairseq's id offset 1
 *   (model id = piece id + 1; <s> 0, <pad> 1, </s> 2, <unk> 3), language codes from tokenizer.json's
 *   added tokens: `eng_Latn`, `amh_Ethi`, `tir_Ethi` (and `gaz_Latn`, West Central Oromo, which the
 *   translation endpoint does not serve yet: noted, not mapped), each the source token first in
 *   the source and the target token forced after the decoder start. Both must be there for a
 *   language to be served; at least two of en, am, ti.
 * - Marian: `source.spm`, `target.spm`, `vocab.json`; a multilingual target model names its
 *   targets by `>>xxx<<` tokens in vocab.json (`>>amh<<`, `>>tir<<`, `>>eng<<`), put first in the
 *   source. A bilingual opus-mt model (no such tokens) translates one direction only, which the
 *   engine cannot express (it serves every pair of its languages): refused with that reason.
 */
import { findHubOnnx, hubOnnxSuffix, MODEL_FOLDER_NAME } from '../runtime/hub-onnx-files.js';
import { TRANSLATION_LANGUAGES, type TranslationLanguage } from './translation-engine.js';

export class TranslationImportError extends Error {
  constructor(detail: string) {
    super(`cannot import this translation model: ${detail}`);
    this.name = 'TranslationImportError';
  }
}

/** What the caller read from the folder; null where the file is not there. */
export interface TranslationExport {
  /** Every file, as a path relative to the folder (`onnx/encoder_model.onnx`, `config.json` ...). */
  readonly files: readonly string[];
  readonly config: unknown;
  readonly generationConfig: unknown;
  readonly tokenizerJson: unknown;
  /** Marian's vocab.json (piece -> id). */
  readonly vocab: unknown;
}

export interface TranslationImportOptions {
  readonly name: string;
  /** ONNX variant, transformers.js dtype name (fp32 default). */
  readonly variant?: string;
}

export interface TranslationImportPlan {
  readonly manifest: Record<string, unknown>;
  readonly notes: string[];
}

/** NLLB-200's codes for the gateway's languages (and Oromo's, noted only). */
export const NLLB_CODES: Readonly<Record<TranslationLanguage, string>> = { en: 'eng_Latn', am: 'amh_Ethi', ti: 'tir_Ethi' };
/** opus-mt's target tokens for the gateway's languages. */
export const MARIAN_CODES: Readonly<Record<TranslationLanguage, string>> = { en: '>>eng<<', am: '>>amh<<', ti: '>>tir<<' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function planTranslationImport(found: TranslationExport, options: TranslationImportOptions): TranslationImportPlan {
  const notes: string[] = [];
  if (!MODEL_FOLDER_NAME.test(options.name)) throw new TranslationImportError(`name ${JSON.stringify(options.name)} must be lower-case letters, digits, . _ -`);
  if (!isObject(found.config)) throw new TranslationImportError('config.json is missing or not an object');
  const config = found.config;
  const generation = isObject(found.generationConfig) ? found.generationConfig : {};
  if (!isObject(found.generationConfig)) notes.push('no generation_config.json: special ids from config.json');
  const modelType = config.model_type;
  const family = modelType === 'm2m_100' || modelType === 'nllb' ? 'nllb' : modelType === 'marian' ? 'marian' : null;
  if (family === null) throw new TranslationImportError(`config.json model_type ${JSON.stringify(modelType)} is not m2m_100 (NLLB, M2M100) or marian`);

  const variant = options.variant ?? 'fp32';
  const suffix = hubOnnxSuffix(variant, (detail) => new TranslationImportError(detail));
  const encoder = findHubOnnx(found.files, 'encoder_model', suffix);
  if (encoder === null) throw new TranslationImportError(`no ${variant} encoder: looked for onnx/encoder_model${suffix}.onnx and encoder_model${suffix}.onnx`);
  const merged = findHubOnnx(found.files, 'decoder_model_merged', suffix);
  const decoder = findHubOnnx(found.files, 'decoder_model', suffix);
  const withPast = findHubOnnx(found.files, 'decoder_with_past_model', suffix);
  if (merged === null && (decoder === null || withPast === null))
    throw new TranslationImportError(
      `no ${variant} decoder: looked for onnx/decoder_model_merged${suffix}.onnx, or onnx/decoder_model${suffix}.onnx with onnx/decoder_with_past_model${suffix}.onnx (or the same at the top)`,
    );
  const onnx = merged !== null ? { encoder, decoder_merged: merged } : { encoder, decoder, decoder_with_past: withPast };

  const id = (key: string): number => {
    const value = generation[key] ?? config[key];
    if (!Number.isInteger(value) || (value as number) < 0) throw new TranslationImportError(`${key} is missing from generation_config.json and config.json`);
    return value as number;
  };
  const integer = (key: string): number => {
    const value = config[key];
    if (!Number.isInteger(value) || (value as number) <= 0)
      throw new TranslationImportError(`config.json ${key} ${JSON.stringify(value)} is not a positive integer`);
    return value as number;
  };
  const layers = integer('decoder_layers');
  const heads = integer('decoder_attention_heads');
  const dModel = integer('d_model');
  if (dModel % heads !== 0) throw new TranslationImportError(`config.json d_model ${dModel} is not a multiple of decoder_attention_heads ${heads}`);
  const pad = id('pad_token_id');
  const eos = id('eos_token_id');
  const decoderStart = id('decoder_start_token_id');

  let tokenizer: Record<string, unknown>;
  let unk: number;
  let targetTags: Partial<Record<TranslationLanguage, string>> = {};
  let sourceTags: Partial<Record<TranslationLanguage, string>> | undefined;
  let position: 'source' | 'decoder';
  if (family === 'nllb') {
    if (!found.files.includes('sentencepiece.bpe.model')) throw new TranslationImportError('sentencepiece.bpe.model is missing (the NLLB SentencePiece model)');
    if (!isObject(found.tokenizerJson)) throw new TranslationImportError('tokenizer.json is missing or not an object (it gives the language codes)');
    const added = Array.isArray(found.tokenizerJson.added_tokens) ? (found.tokenizerJson.added_tokens as unknown[]) : [];
    const ids = new Map<string, number>();
    for (const token of added)
      if (isObject(token) && typeof token.content === 'string' && Number.isInteger(token.id)) ids.set(token.content, token.id as number);
    unk = ids.get('<unk>') ?? 3;
    const codes: Record<string, number> = {};
    for (const language of TRANSLATION_LANGUAGES) {
      const code = NLLB_CODES[language];
      const tokenId = ids.get(code);
      if (tokenId === undefined) continue;
      codes[code] = tokenId;
      targetTags[language] = code;
    }
    if (Object.keys(codes).length === 0 && [...ids.keys()].some((t) => /^__[a-z]{2,3}__$/.test(t)))
      throw new TranslationImportError(
        "tokenizer.json has M2M100's __xx__ language tokens (facebook/m2m100_418M and its fine-tunes): only NLLB's codes (eng_Latn, amh_Ethi, tir_Ethi) are mapped",
      );
    if (ids.has('gaz_Latn')) notes.push('gaz_Latn (Oromo) is in the model; the translation endpoint serves en, am and ti only');
    sourceTags = { ...targetTags };
    position = 'decoder';
    tokenizer = { type: 'sentencepiece', model: 'sentencepiece.bpe.model', id_offset: 1, added_tokens: codes };
  } else {
    for (const file of ['source.spm', 'target.spm', 'vocab.json'])
      if (!found.files.includes(file)) throw new TranslationImportError(`${file} is missing (Marian's SentencePiece models and vocabulary)`);
    if (!isObject(found.vocab)) throw new TranslationImportError('vocab.json is not an object of piece -> id');
    const vocab = found.vocab;
    if (!Number.isInteger(vocab['<unk>'])) throw new TranslationImportError('vocab.json has no <unk>');
    unk = vocab['<unk>'] as number;
    for (const language of TRANSLATION_LANGUAGES) if (Number.isInteger(vocab[MARIAN_CODES[language]])) targetTags[language] = MARIAN_CODES[language];
    if (Object.keys(targetTags).length === 0)
      throw new TranslationImportError(
        'vocab.json has no >>xxx<< target tokens: a bilingual opus-mt model translates one direction only, and the engine serves every pair of its languages',
      );
    position = 'source';
    tokenizer = { type: 'sentencepiece', source: 'source.spm', target: 'target.spm', vocab: 'vocab.json' };
  }
  const languages = TRANSLATION_LANGUAGES.filter((l) => targetTags[l] !== undefined);
  if (languages.length < 2)
    throw new TranslationImportError(`the model's language tokens cover ${languages.join(', ') || 'none'} of en, am, ti: at least two are needed`);
  targetTags = Object.fromEntries(languages.map((l) => [l, targetTags[l]!]));

  const manifest: Record<string, unknown> = {
    kind: 'translation',
    name: options.name,
    languages,
    tokenizer,
    target_tags: targetTags,
    target_tag_position: position,
    ...(sourceTags ? { source_tags: Object.fromEntries(languages.map((l) => [l, sourceTags![l]!])) } : {}),
    onnx,
    special_ids: { pad, unk, eos, decoder_start: decoderStart },
    layers,
    heads,
    head_dim: dModel / heads,
    decoding: { beam_size: 4, length_penalty: 1.0, max_input_tokens: 200, max_output_tokens: 256 },
  };
  return { manifest, notes };
}
