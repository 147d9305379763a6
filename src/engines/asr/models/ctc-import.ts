/**
 * Turns a public wav2vec2-style CTC export (Hugging Face `Wav2Vec2ForCTC` exported to ONNX: raw
 * 16 kHz waveform in, character logits out, `vocab.json`, optionally `preprocessor_config.json`)
 * into a model folder this gateway loads (docs/model-format.md). Pure: the caller reads the files
 * and the ONNX input/output metadata and writes what this returns.
 *
 * Rules:
 * - vocab.json maps token -> id; ids must be exactly 0..V-1. vocab.txt lists the tokens by id.
 * - The CTC blank is `<pad>` (what Wav2Vec2ForCTC uses), else `[PAD]` or `<blank>`.
 * - The word delimiter is `|`; a vocabulary that uses a plain space token gets it renamed to `|`
 *   in vocab.txt (a line holding only a space is ambiguous). No other token may hold whitespace.
 * - `do_normalize` in preprocessor_config.json gives `input.normalize: zero_mean_unit_var`
 *   (per utterance, as Wav2Vec2FeatureExtractor); its sampling_rate must be 16000.
 * - ONNX inputs: one float32 rank-2 waveform input, and optionally an int64 rank-1 lengths input.
 *   A rank-2 `attention_mask` cannot be fed (the gateway sends lengths): such exports are refused
 *   with that reason. Without a lengths input every request runs alone (`max_batch_size: 1`),
 *   since padding would change a row's normalisation and attention.
 * - Logits: the output named `logits`, else the only rank-3 output. Frame stride: 320 samples
 *   (wav2vec2's convolutional encoder) unless given.
 * - Decoding is greedy; an operator may add an `lm` block afterwards (docs/model-format.md).
 *
 * The layout transformers.js and Optimum publish on the Hugging Face hub (docs/public-models.md):
 * - The ONNX file is `onnx/model<suffix>.onnx`, else `model<suffix>.onnx` at the top, the suffix
 *   of the chosen variant named as transformers.js names its dtypes: fp32 '', fp16 `_fp16`,
 *   q8 `_quantized`, int8 `_int8`, uint8 `_uint8`, q4 `_q4`, q4f16 `_q4f16`, bnb4 `_bnb4`
 *   (`pickCtcOnnxFile`). A missing variant is refused naming the files looked for and found.
 * - `config.json`, when present, must agree with the rest: `vocab_size` = the vocabulary's size,
 *   `pad_token_id` (the CTC blank of Wav2Vec2ForCTC) names a token of it and is the blank; the
 *   frame stride is the product of `conv_stride` (320 for wav2vec2, HuBERT, WavLM, MMS) unless
 *   given. A model_type outside the raw-waveform CTC family is noted, not refused (the ONNX
 *   inputs decide).
 * - An MMS vocabulary (`vocab.json` of language -> token -> id, as facebook/mms-1b-all) needs
 *   the target language (ISO 639-3, e.g. amh): the option, else `target_lang` of
 *   tokenizer_config.json; the ONNX head must be the one exported with that language's adapter
 *   (config.json's vocab_size then equals that language's vocabulary).
 */
import { findHubOnnx, HUB_ONNX_VARIANTS, hubOnnxCandidates, hubOnnxSuffix, MODEL_FOLDER_NAME } from '../../runtime/hub-onnx-files.js';

export interface OnnxTensorInfo {
  readonly name: string;
  /** onnxruntime type name, e.g. 'float32', 'int64'. */
  readonly type: string;
  readonly rank: number;
}

export interface CtcImportOptions {
  readonly name: string;
  readonly language: string;
  readonly description?: string;
  readonly frameStrideSamples?: number;
  readonly onnxFile?: string;
  /** config.json of the export (null or absent: not there). */
  readonly config?: unknown;
  /** The language key of an MMS per-language vocab.json (e.g. `amh`). */
  readonly targetLanguage?: string;
}

/** File suffix of each ONNX variant, named as transformers.js names its dtypes. */
export const CTC_ONNX_VARIANTS = HUB_ONNX_VARIANTS;

/**
 * The ONNX file of `variant` in an export folder, given the folder's files as relative paths
 * (`onnx/model.onnx`, `model.onnx` ...): `onnx/` first, then the top. Throws CtcImportError naming
 * what it looked for and the ONNX files there are.
 */
export function pickCtcOnnxFile(files: readonly string[], variant = 'fp32'): string {
  const suffix = hubOnnxSuffix(variant, (detail) => new CtcImportError(detail));
  const found = findHubOnnx(files, 'model', suffix);
  if (found) return found;
  const onnx = files.filter((f) => f.endsWith('.onnx'));
  throw new CtcImportError(
    `no ${variant} ONNX model: looked for ${hubOnnxCandidates('model', suffix).join(' and ')}; ONNX files there: ${onnx.join(', ') || 'none'}`,
  );
}

const NESTED_VOCAB_HINT = 'an MMS per-language vocab.json';

export interface CtcImportPlan {
  /** manifest.json contents (the docs/model-format.md layout). */
  readonly manifest: Record<string, unknown>;
  /** vocab.txt contents. */
  readonly vocabText: string;
  readonly notes: string[];
}

export class CtcImportError extends Error {
  constructor(detail: string) {
    super(`cannot import this model: ${detail}`);
    this.name = 'CtcImportError';
  }
}

const BLANKS = ['<pad>', '[PAD]', '<blank>'];

export function planCtcImport(
  vocab: unknown,
  preprocessor: unknown,
  inputs: readonly OnnxTensorInfo[],
  outputs: readonly OnnxTensorInfo[],
  options: CtcImportOptions,
): CtcImportPlan {
  if (!MODEL_FOLDER_NAME.test(options.name))
    throw new CtcImportError(`name ${JSON.stringify(options.name)} must be lower-case letters, digits, . _ - (at most 64)`);
  if (!/^[a-z]{2,3}$/.test(options.language))
    throw new CtcImportError(`language ${JSON.stringify(options.language)} must be an ISO 639 code such as am, om, ti`);
  const notes: string[] = [];

  // Vocabulary (an MMS vocab.json holds one per language).
  if (typeof vocab !== 'object' || vocab === null || Array.isArray(vocab)) throw new CtcImportError('vocab.json must be an object of token -> id');
  const values = Object.values(vocab as Record<string, unknown>);
  if (values.length > 0 && values.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) {
    const languages = Object.keys(vocab as Record<string, unknown>);
    const target = options.targetLanguage;
    if (target === undefined)
      throw new CtcImportError(
        `vocab.json is ${NESTED_VOCAB_HINT} (${languages.length} languages): give --target-lang (${languages.slice(0, 8).join(', ')}${languages.length > 8 ? ' ...' : ''})`,
      );
    if (!languages.includes(target)) throw new CtcImportError(`vocab.json has no vocabulary for target language ${JSON.stringify(target)}`);
    vocab = (vocab as Record<string, unknown>)[target];
    notes.push(`vocabulary of target language ${target} from ${NESTED_VOCAB_HINT}: the ONNX model must carry that language's adapter`);
  }
  const entries = Object.entries(vocab as Record<string, unknown>);
  const tokens: string[] = new Array<string>(entries.length);
  for (const [token, id] of entries) {
    if (!Number.isInteger(id) || (id as number) < 0 || (id as number) >= entries.length)
      throw new CtcImportError(`vocab.json id ${JSON.stringify(id)} of ${JSON.stringify(token)} is not in 0..${entries.length - 1}`);
    if (tokens[id as number] !== undefined) throw new CtcImportError(`vocab.json gives id ${id} twice`);
    tokens[id as number] = token;
  }
  const config = readConfig(options.config);
  if (config.vocabSize !== null && config.vocabSize !== tokens.length)
    throw new CtcImportError(`config.json vocab_size ${config.vocabSize} differs from vocab.json's ${tokens.length} tokens`);
  if (config.padTokenId !== null && (config.padTokenId < 0 || config.padTokenId >= tokens.length))
    throw new CtcImportError(`config.json pad_token_id ${config.padTokenId} is not a token of vocab.json`);
  const blankId = config.padTokenId ?? tokens.findIndex((t) => BLANKS.includes(t));
  if (blankId < 0) throw new CtcImportError(`no CTC blank token (${BLANKS.join(', ')}) in vocab.json and no pad_token_id in config.json`);
  if (config.modelType !== null && !RAW_WAVEFORM_CTC.includes(config.modelType))
    notes.push(`config.json model_type ${config.modelType} is not one of ${RAW_WAVEFORM_CTC.join(', ')}: check that it takes the raw waveform`);
  let wordDelimiter: string | null = tokens.includes('|') ? '|' : null;
  const space = tokens.indexOf(' ');
  if (space >= 0) {
    if (wordDelimiter !== null) throw new CtcImportError('vocab.json has both "|" and a space token');
    tokens[space] = '|';
    wordDelimiter = '|';
    notes.push('the space token is written as "|" in vocab.txt (the word delimiter)');
  }
  for (const token of tokens) {
    if (token === '' || /\s/u.test(token)) throw new CtcImportError(`token ${JSON.stringify(token)} is empty or holds whitespace`);
  }
  if (wordDelimiter === null) notes.push('no word delimiter ("|" or a space) in the vocabulary: output has no spaces');

  // Output properties from the letters it can emit.
  const letters = tokens.filter((t, i) => i !== blankId && !/^<[^<>]+>$|^\[[^[\]]+\]$/.test(t)).join('');
  const ethiopic = (letters.match(/\p{Script=Ethiopic}/gu) ?? []).length;
  const latin = (letters.match(/\p{Script=Latin}/gu) ?? []).length;
  const script = ethiopic === 0 && latin === 0 ? 'unknown' : ethiopic >= latin ? 'ethiopic' : 'latin';
  const upper = /\p{Lu}/u.test(letters);
  const lower = /\p{Ll}/u.test(letters);
  const casing = !upper && !lower ? 'none' : upper ? 'true_case' : 'lower';
  const punctuation = tokens.some((t, i) => i !== blankId && t !== '|' && t !== "'" && /^\p{P}+$/u.test(t));

  // Feature extractor.
  let normalize: 'none' | 'zero_mean_unit_var' = 'none';
  if (preprocessor !== null && preprocessor !== undefined) {
    if (typeof preprocessor !== 'object') throw new CtcImportError('preprocessor_config.json must be an object');
    const p = preprocessor as Record<string, unknown>;
    if (p.sampling_rate !== undefined && p.sampling_rate !== 16000)
      throw new CtcImportError(`sampling_rate ${String(p.sampling_rate)}: the gateway feeds 16 kHz audio`);
    if (p.do_normalize === true) normalize = 'zero_mean_unit_var';
  } else notes.push('no preprocessor_config.json: input.normalize "none" (set zero_mean_unit_var if the model was trained with do_normalize)');

  // ONNX inputs and outputs.
  const audio = inputs.filter((i) => i.type === 'float32' && i.rank === 2);
  if (audio.length !== 1)
    throw new CtcImportError(
      `expected one float32 [batch, samples] input, found ${inputs.map((i) => `${i.name} ${i.type} rank ${i.rank}`).join('; ') || 'none'}`,
    );
  const others = inputs.filter((i) => i !== audio[0]);
  let lengths: string | null = null;
  for (const other of others) {
    if (other.type === 'int64' && other.rank === 1 && lengths === null) lengths = other.name;
    else if (other.rank === 2)
      throw new CtcImportError(
        `input ${other.name} (${other.type} rank 2) looks like an attention mask; the gateway feeds per-row lengths (int64 [batch]): re-export without it, or with a lengths input`,
      );
    else throw new CtcImportError(`input ${other.name} (${other.type} rank ${other.rank}) is not something the gateway can feed`);
  }
  const rank3 = outputs.filter((o) => o.rank === 3);
  const logits = outputs.find((o) => o.name === 'logits') ?? (rank3.length === 1 ? rank3[0] : undefined);
  if (!logits) throw new CtcImportError(`no output named logits and not exactly one rank-3 output (${outputs.map((o) => o.name).join(', ')})`);
  const outLengths = outputs.find((o) => o !== logits && o.type === 'int64' && o.rank === 1)?.name ?? null;
  if (lengths === null) notes.push('no lengths input: every request runs alone (max_batch_size 1)');

  const manifest: Record<string, unknown> = {
    schema_version: 1,
    name: options.name,
    language: options.language,
    description: options.description ?? `Imported wav2vec2-style CTC model (${tokens.length} tokens)`,
    onnx: options.onnxFile ?? 'model.onnx',
    input: { kind: 'waveform', sample_rate: 16000, normalize },
    io: { audio: audio[0]!.name, lengths, logits: logits.name, out_lengths: outLengths },
    frame_stride_samples: options.frameStrideSamples ?? config.convStride ?? 320,
    vocabulary: 'vocab.txt',
    blank_id: blankId,
    word_delimiter: wordDelimiter,
    output: { script, casing, punctuation },
    decoding: { default: 'greedy', beam_width: 8 },
    ...(lengths === null ? { max_batch_size: 1 } : {}),
  };
  return { manifest, vocabText: `${tokens.join('\n')}\n`, notes };
}

/** model_type values of Hugging Face CTC models that take the raw 16 kHz waveform (`input_values`). */
const RAW_WAVEFORM_CTC = ['wav2vec2', 'wav2vec2-conformer', 'hubert', 'wavlm', 'data2vec-audio', 'unispeech', 'unispeech-sat', 'sew', 'sew-d'];

interface ExportConfig {
  readonly modelType: string | null;
  readonly vocabSize: number | null;
  readonly padTokenId: number | null;
  /** Product of conv_stride: input samples per output frame. */
  readonly convStride: number | null;
}

function readConfig(config: unknown): ExportConfig {
  if (config === null || config === undefined) return { modelType: null, vocabSize: null, padTokenId: null, convStride: null };
  if (typeof config !== 'object' || Array.isArray(config)) throw new CtcImportError('config.json must be an object');
  const c = config as Record<string, unknown>;
  const integer = (key: string): number | null => {
    const v = c[key];
    if (v === undefined || v === null) return null;
    if (!Number.isInteger(v)) throw new CtcImportError(`config.json ${key} ${JSON.stringify(v)} is not an integer`);
    return v as number;
  };
  let convStride: number | null = null;
  if (c.conv_stride !== undefined) {
    const strides = c.conv_stride;
    if (!Array.isArray(strides) || strides.length === 0 || !strides.every((x) => Number.isInteger(x) && (x as number) > 0))
      throw new CtcImportError(`config.json conv_stride ${JSON.stringify(strides)} is not a list of positive integers`);
    convStride = (strides as number[]).reduce((a, b) => a * b, 1);
  }
  return {
    modelType: typeof c.model_type === 'string' ? c.model_type : null,
    vocabSize: integer('vocab_size'),
    padTokenId: integer('pad_token_id'),
    convStride,
  };
}
