/**
 * A translation model folder's `manifest.json` (docs/translation-models.md), parsed into a
 * fully defaulted record with absolute paths. Two layouts load through it:
 * - ours (`translate-am-en-ti-v1`): one shared SentencePiece model, target tags `<2xx>` as the
 *   first source token, encoder + decoder + decoder-with-past ONNX graphs;
 * - the public Marian / NLLB export layout (Hugging Face Optimum): `source.spm` / `target.spm`
 *   with `vocab.json` (Marian) or `sentencepiece.bpe.model` with an id offset (NLLB), language
 *   tokens such as `>>amh<<` or `amh_Ethi` (as a source or forced decoder token), and either the
 *   split decoders or `decoder_model_merged.onnx`.
 * Either may list directions served by word or phrase transfer instead of the network
 * (`word_transfer`: `{"am-ti": {"table": "lex.am-ti", "min_probability": 0.2}, "am-en": {"table":
 * "phrases.am-en", "min_probability": 0, "unknown_words": "romanize"}}`; word-transfer.ts).
 * Missing files are reported by name. Pure apart from reading the folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { TRANSLATION_LANGUAGES, type TranslationLanguage } from './translation-engine.js';
import type { UnknownWords } from './word-transfer.js';

/** A language token: a piece of the vocabulary (`<2am>`, `>>amh<<`, `amh_Ethi`) or a model id. */
export type LanguageToken = string | number;

export type TranslationTokenizerSpec =
  /** One SentencePiece model for both sides; model ids = SentencePiece ids + `idOffset`. */
  | { readonly kind: 'shared'; readonly model: string; readonly idOffset: number; readonly addedTokens: Readonly<Record<string, number>> }
  /** Marian: source and target SentencePiece models, model ids from `vocab` (piece -> id). */
  | { readonly kind: 'pair'; readonly source: string; readonly target: string; readonly vocab: string; readonly addedTokens: Readonly<Record<string, number>> };

export interface TranslationDecoding {
  readonly beamSize: number;
  readonly lengthPenalty: number;
  /** Source tokens per row, tags and end-of-sentence included; longer sentences are cut into chunks. */
  readonly maxInputTokens: number;
  /** Output tokens per row at most (output-cap.ts). */
  readonly maxOutputTokens: number;
  /** Output tokens per row at most `ceil(maxOutputRatio x source pieces) + maxOutputExtra` (pieces without language tokens and end). */
  readonly maxOutputRatio: number;
  readonly maxOutputExtra: number;
  /** Decoding guards (degeneration-guard.ts): token n-grams of this size are not repeated beyond the source; 0: off. */
  readonly noRepeatNgram: number;
  /** Decoding guards: penalty on tokens already generated; 1: none. */
  readonly repetitionPenalty: number;
  /** Decoding guards: per direction `src-tgt`, most output letters per source letter (at most 3); null: the built-in table. */
  readonly maxOutputCharRatio: Readonly<Record<string, number>> | null;
}

export interface TranslationManifest {
  readonly kind: 'translation';
  readonly name: string;
  readonly folder: string;
  readonly languages: readonly TranslationLanguage[];
  readonly tokenizer: TranslationTokenizerSpec;
  readonly targetTags: Readonly<Partial<Record<TranslationLanguage, LanguageToken>>>;
  readonly targetTagPosition: 'source' | 'decoder';
  /** NLLB: a source-language token first in the source; null for none. */
  readonly sourceTags: Readonly<Partial<Record<TranslationLanguage, LanguageToken>>> | null;
  readonly onnx: {
    readonly encoder: string;
    /** Split layout: first step without past, then every step with past. */
    readonly decoder: string | null;
    readonly decoderWithPast: string | null;
    /** Optimum's merged decoder (`use_cache_branch`); used when the split pair is not given. */
    readonly decoderMerged: string | null;
  };
  readonly specialIds: { readonly pad: number; readonly unk: number; readonly eos: number; readonly decoderStart: number };
  readonly layers: number;
  readonly heads: number;
  readonly headDim: number;
  readonly decoding: TranslationDecoding;
  /** Per direction `src-tgt`: a Moses-layout lexical or phrase table served instead of the network (word-transfer.ts); null when absent. */
  readonly wordTransfer: Readonly<Record<string, WordTransferSpec>> | null;
  /** Per direction `src-tgt`: the chrF the held-out regression test must reach; null when absent. */
  readonly regressionChrf: Readonly<Record<string, number>> | null;
  readonly licence: string | null;
  readonly card: string | null;
}

export interface WordTransferSpec {
  /** The table file (absolute path). */
  readonly table: string;
  /** A word is replaced only by an entry at least this probable. */
  readonly minProbability: number;
  /** What becomes of a word no entry covers: kept as it is, or written in Latin letters (`unknown_words`, default keep). */
  readonly unknownWords: UnknownWords;
}

export class TranslationManifestError extends Error {
  constructor(folder: string, problem: string) {
    super(`translation model ${folder}: ${problem}`);
    this.name = 'TranslationManifestError';
  }
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses a manifest object; `folder` resolves the file names (their existence is checked by `readTranslationManifest`). */
export function parseTranslationManifest(raw: unknown, folder: string): TranslationManifest {
  const fail = (problem: string): never => {
    throw new TranslationManifestError(folder, problem);
  };
  if (!isObject(raw)) return fail('manifest.json is not an object');
  if (raw['kind'] !== 'translation') fail(`manifest kind is ${JSON.stringify(raw['kind'])}, expected "translation"`);
  const int = (value: unknown, name: string, fallback?: number): number => {
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return fail(`${name} must be a non-negative integer`);
    return value;
  };
  const num = (value: unknown, name: string, fallback: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value)) return fail(`${name} must be a number`);
    return value;
  };
  const file = (value: unknown, name: string): string => {
    if (typeof value !== 'string' || value.length === 0 || value.includes('..')) return fail(`${name} must name a file in the folder`);
    return resolve(folder, value);
  };
  const optionalFile = (value: unknown, name: string): string | null => (value === undefined || value === null ? null : file(value, name));

  const languagesRaw = raw['languages'];
  if (!Array.isArray(languagesRaw) || languagesRaw.length < 2) fail('languages must list at least two languages');
  const languages = (languagesRaw as unknown[]).filter((l): l is TranslationLanguage => TRANSLATION_LANGUAGES.includes(l as TranslationLanguage));
  if (languages.length < 2) fail(`languages must hold at least two of ${TRANSLATION_LANGUAGES.join(', ')}`);

  const tags = (value: unknown, name: string): Partial<Record<TranslationLanguage, LanguageToken>> => {
    if (!isObject(value)) return fail(`${name} must map languages to tokens`);
    const out: Partial<Record<TranslationLanguage, LanguageToken>> = {};
    for (const language of languages) {
      const token = value[language];
      if (typeof token === 'string' && token.length > 0) out[language] = token;
      else if (typeof token === 'number' && Number.isInteger(token) && token >= 0) out[language] = token;
      else fail(`${name}.${language} must be a token (string) or an id`);
    }
    return out;
  };

  const addedTokens = (value: unknown): Record<string, number> => {
    if (value === undefined) return {};
    if (!isObject(value)) return fail('tokenizer.added_tokens must map pieces to ids');
    const out: Record<string, number> = {};
    for (const [piece, id] of Object.entries(value)) out[piece] = int(id, `tokenizer.added_tokens.${piece}`);
    return out;
  };
  const tok = raw['tokenizer'];
  if (!isObject(tok) || tok['type'] !== 'sentencepiece') fail('tokenizer must be {"type": "sentencepiece", ...}');
  const t = tok as Json;
  let tokenizer: TranslationTokenizerSpec;
  if (t['model'] !== undefined) {
    tokenizer = {
      kind: 'shared',
      model: file(t['model'], 'tokenizer.model'),
      idOffset: int(t['id_offset'], 'tokenizer.id_offset', 0),
      addedTokens: addedTokens(t['added_tokens']),
    };
  } else {
    tokenizer = {
      kind: 'pair',
      source: file(t['source'] ?? 'source.spm', 'tokenizer.source'),
      target: file(t['target'] ?? 'target.spm', 'tokenizer.target'),
      vocab: file(t['vocab'] ?? 'vocab.json', 'tokenizer.vocab'),
      addedTokens: addedTokens(t['added_tokens']),
    };
  }

  const position = raw['target_tag_position'] ?? 'source';
  if (position !== 'source' && position !== 'decoder') fail('target_tag_position must be "source" or "decoder"');

  const onnxRaw = isObject(raw['onnx']) ? raw['onnx'] : {};
  const onnx = {
    encoder: file(onnxRaw['encoder'] ?? 'encoder_model.onnx', 'onnx.encoder'),
    decoder: optionalFile(onnxRaw['decoder'], 'onnx.decoder'),
    decoderWithPast: optionalFile(onnxRaw['decoder_with_past'], 'onnx.decoder_with_past'),
    decoderMerged: optionalFile(onnxRaw['decoder_merged'], 'onnx.decoder_merged'),
  };
  if ((onnx.decoder === null) !== (onnx.decoderWithPast === null)) fail('onnx.decoder and onnx.decoder_with_past go together');
  if (onnx.decoder === null && onnx.decoderMerged === null) fail('onnx needs decoder + decoder_with_past, or decoder_merged');

  const ids = isObject(raw['special_ids']) ? raw['special_ids'] : fail('special_ids is required');
  const eos = int(ids['eos'], 'special_ids.eos');
  const specialIds = {
    pad: int(ids['pad'], 'special_ids.pad'),
    unk: int(ids['unk'], 'special_ids.unk'),
    eos,
    decoderStart: int(ids['decoder_start'], 'special_ids.decoder_start'),
  };

  const dec = isObject(raw['decoding']) ? raw['decoding'] : {};
  let maxOutputCharRatio: Record<string, number> | null = null;
  if (dec['max_output_char_ratio'] !== undefined) {
    const ratios = dec['max_output_char_ratio'];
    if (!isObject(ratios)) fail('decoding.max_output_char_ratio must map directions (src-tgt) to numbers');
    maxOutputCharRatio = {};
    for (const [direction, ratio] of Object.entries(ratios as Json)) {
      if (typeof ratio !== 'number' || !(ratio > 0)) fail(`decoding.max_output_char_ratio.${direction} must be a positive number`);
      maxOutputCharRatio[direction] = Math.min(3, ratio as number);
    }
  }
  const decoding: TranslationDecoding = {
    beamSize: Math.max(1, int(dec['beam_size'], 'decoding.beam_size', 4)),
    lengthPenalty: num(dec['length_penalty'], 'decoding.length_penalty', 1),
    maxInputTokens: Math.max(8, int(dec['max_input_tokens'], 'decoding.max_input_tokens', 200)),
    maxOutputTokens: Math.max(1, int(dec['max_output_tokens'], 'decoding.max_output_tokens', 256)),
    maxOutputRatio: Math.max(0.1, num(dec['max_output_ratio'], 'decoding.max_output_ratio', 2.5)),
    maxOutputExtra: Math.max(0, int(dec['max_output_extra'], 'decoding.max_output_extra', 4)),
    noRepeatNgram: int(dec['no_repeat_ngram_size'], 'decoding.no_repeat_ngram_size', 3),
    repetitionPenalty: Math.max(1, num(dec['repetition_penalty'], 'decoding.repetition_penalty', 1)),
    maxOutputCharRatio,
  };

  let wordTransfer: Record<string, WordTransferSpec> | null = null;
  if (raw['word_transfer'] !== undefined) {
    const transfers = raw['word_transfer'];
    if (!isObject(transfers)) return fail('word_transfer must map directions (src-tgt) to {"table": file, "min_probability": number}');
    wordTransfer = {};
    for (const [direction, spec] of Object.entries(transfers)) {
      const [source, target, ...rest] = direction.split('-');
      const covered = (l: string | undefined): boolean => languages.includes(l as TranslationLanguage);
      if (rest.length > 0 || !covered(source) || !covered(target) || source === target) {
        fail(`word_transfer.${direction}: the direction must be src-tgt, two distinct languages of the model`);
      }
      if (!isObject(spec)) return fail(`word_transfer.${direction} must be {"table": file, "min_probability": number}`);
      const minProbability = num(spec['min_probability'], `word_transfer.${direction}.min_probability`, 0.2);
      if (minProbability < 0 || minProbability > 1) fail(`word_transfer.${direction}.min_probability must be from 0 to 1`);
      const unknownWords = spec['unknown_words'] ?? 'keep';
      if (unknownWords !== 'keep' && unknownWords !== 'romanize') fail(`word_transfer.${direction}.unknown_words must be "keep" or "romanize"`);
      wordTransfer[direction] = { table: file(spec['table'], `word_transfer.${direction}.table`), minProbability, unknownWords: unknownWords as UnknownWords };
    }
  }

  let regressionChrf: Record<string, number> | null = null;
  if (isObject(raw['regression_chrf'])) {
    regressionChrf = {};
    for (const [direction, bound] of Object.entries(raw['regression_chrf'])) {
      if (typeof bound === 'number') regressionChrf[direction] = bound;
    }
  }

  return {
    kind: 'translation',
    name: typeof raw['name'] === 'string' ? raw['name'] : folder.split(/[\\/]/).pop()!,
    folder,
    languages,
    tokenizer,
    targetTags: tags(raw['target_tags'], 'target_tags'),
    targetTagPosition: position as 'source' | 'decoder',
    sourceTags: raw['source_tags'] === undefined ? null : tags(raw['source_tags'], 'source_tags'),
    onnx,
    specialIds,
    layers: int(raw['layers'], 'layers', 0),
    heads: int(raw['heads'], 'heads', 0),
    headDim: int(raw['head_dim'], 'head_dim', 0),
    decoding,
    wordTransfer,
    regressionChrf,
    licence: typeof raw['licence'] === 'string' ? raw['licence'] : typeof raw['license'] === 'string' ? raw['license'] : null,
    card: typeof raw['card'] === 'string' ? resolve(folder, raw['card']) : null,
  };
}

/** The files a manifest names, for the existence check. */
function requiredFiles(manifest: TranslationManifest): string[] {
  const t = manifest.tokenizer;
  const files = t.kind === 'shared' ? [t.model] : [t.source, t.target, t.vocab];
  files.push(manifest.onnx.encoder);
  for (const f of [manifest.onnx.decoder, manifest.onnx.decoderWithPast, manifest.onnx.decoderMerged]) if (f !== null) files.push(f);
  for (const spec of Object.values(manifest.wordTransfer ?? {})) files.push(spec.table);
  return files;
}

/** Reads and checks `<folder>/manifest.json`; throws TranslationManifestError naming what is wrong or missing. */
export function readTranslationManifest(folder: string): TranslationManifest {
  const path = join(folder, 'manifest.json');
  if (!existsSync(path)) throw new TranslationManifestError(folder, 'no manifest.json');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new TranslationManifestError(folder, `manifest.json does not parse: ${(error as Error).message}`);
  }
  const manifest = parseTranslationManifest(raw, folder);
  const missing = requiredFiles(manifest).filter((f) => !existsSync(f));
  if (missing.length > 0) throw new TranslationManifestError(folder, `missing ${missing.map((f) => f.slice(folder.length + 1)).join(', ')}`);
  if (manifest.onnx.decoder === null && (manifest.layers === 0 || manifest.heads === 0 || manifest.headDim === 0)) {
    throw new TranslationManifestError(folder, 'a merged decoder needs layers, heads and head_dim (the empty past of the first step)');
  }
  return manifest;
}
