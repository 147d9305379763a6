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
 */

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
}

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
const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function planCtcImport(
  vocab: unknown,
  preprocessor: unknown,
  inputs: readonly OnnxTensorInfo[],
  outputs: readonly OnnxTensorInfo[],
  options: CtcImportOptions,
): CtcImportPlan {
  if (!NAME.test(options.name)) throw new CtcImportError(`name ${JSON.stringify(options.name)} must be lower-case letters, digits, . _ - (at most 64)`);
  if (!/^[a-z]{2,3}$/.test(options.language))
    throw new CtcImportError(`language ${JSON.stringify(options.language)} must be an ISO 639 code such as am, om, ti`);
  const notes: string[] = [];

  // Vocabulary.
  if (typeof vocab !== 'object' || vocab === null || Array.isArray(vocab)) throw new CtcImportError('vocab.json must be an object of token -> id');
  const entries = Object.entries(vocab as Record<string, unknown>);
  const tokens: string[] = new Array<string>(entries.length);
  for (const [token, id] of entries) {
    if (!Number.isInteger(id) || (id as number) < 0 || (id as number) >= entries.length)
      throw new CtcImportError(`vocab.json id ${JSON.stringify(id)} of ${JSON.stringify(token)} is not in 0..${entries.length - 1}`);
    if (tokens[id as number] !== undefined) throw new CtcImportError(`vocab.json gives id ${id} twice`);
    tokens[id as number] = token;
  }
  const blankId = tokens.findIndex((t) => BLANKS.includes(t));
  if (blankId < 0) throw new CtcImportError(`no CTC blank token (${BLANKS.join(', ')}) in vocab.json`);
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
    frame_stride_samples: options.frameStrideSamples ?? 320,
    vocabulary: 'vocab.txt',
    blank_id: blankId,
    word_delimiter: wordDelimiter,
    output: { script, casing, punctuation },
    decoding: { default: 'greedy', beam_width: 8 },
    ...(lengths === null ? { max_batch_size: 1 } : {}),
  };
  return { manifest, vocabText: `${tokens.join('\n')}\n`, notes };
}
