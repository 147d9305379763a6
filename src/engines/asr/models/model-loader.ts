import { open, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { CtcVocabulary } from '../decoding/ctc-types.js';
import { LM_HEADER_BYTES, readLmHeader } from '../decoding/lm/char-ngram-lm.js';
import { LanguageModelFormatError } from '../decoding/lm/lm-file.js';
import { ModelFolderError } from './model-errors.js';
import { ManifestError, parseManifest, type CtcManifest, type LanguageIdManifest } from './model-manifest.js';
import type { FeatureStatistics } from '../../signal/features/running-normalizer.js';
import { parseConfidenceCalibration, type ConfidenceCalibration } from '../recognition/confidence-calibration.js';

export interface LoadedCtcModel {
  readonly kind: 'ctc';
  readonly name: string;
  readonly language: string;
  readonly manifest: CtcManifest;
  readonly dir: string;
  readonly onnxPath: string;
  readonly vocabulary: CtcVocabulary;
  /** Language model file, present on disk; null when the manifest names none. */
  readonly lmPath: string | null;
  /** The manifest's `confidence_calibration`, read and checked; absent or null: the raw score is the confidence. */
  readonly calibration?: ConfidenceCalibration | null;
  /**
   * The folder's streaming step graph (`streaming.onnx`) and the statistics of its running
   * normalisation (`stream-stats.json`), both present (docs/model-format.md "Streaming step
   * graph"); absent or null: partials re-run the open turn.
   */
  readonly streaming?: { readonly onnxPath: string; readonly statistics: FeatureStatistics } | null;
}

export interface LoadedLanguageIdModel {
  readonly kind: 'language_id';
  readonly name: string;
  readonly manifest: LanguageIdManifest;
  readonly dir: string;
  readonly onnxPath: string;
}

export type LoadedModel = LoadedCtcModel | LoadedLanguageIdModel;

/** One token per line, line index = token id; a final newline does not add a token. */
export function parseVocabulary(text: string): string[] {
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

async function requireFile(dir: string, file: string, what: string): Promise<string> {
  const path = join(dir, file);
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new ModelFolderError(dir, `${what} ${file} is not a file`);
  } catch (error) {
    if (error instanceof ModelFolderError) throw error;
    throw new ModelFolderError(dir, `${what} ${file} is missing`);
  }
  return path;
}

/**
 * The manifest's LM: present, a character LM (word LMs are not supported yet), and an HNLM file
 * whose header order matches `lm.order`. Only the 64-byte header is read here.
 */
async function checkLanguageModel(dir: string, lm: NonNullable<CtcManifest['lm']>): Promise<string> {
  if (lm.unit !== 'char') throw new ModelFolderError(dir, `lm.unit ${lm.unit} is not supported: this gateway decodes with character LMs (npm run lm -- build)`);
  const path = await requireFile(dir, lm.file, 'language model');
  const handle = await open(path, 'r');
  let header;
  try {
    const head = Buffer.alloc(LM_HEADER_BYTES);
    const { bytesRead } = await handle.read(head, 0, LM_HEADER_BYTES, 0);
    header = readLmHeader(head.subarray(0, bytesRead), lm.file);
  } catch (error) {
    if (error instanceof LanguageModelFormatError) throw new ModelFolderError(dir, error.message);
    throw error;
  } finally {
    await handle.close();
  }
  if (header.order !== lm.order) throw new ModelFolderError(dir, `lm.order is ${lm.order} but ${lm.file} is a ${header.order}-gram model`);
  return path;
}

/**
 * Reads and checks one model folder (docs/model-format.md): the manifest, the files it names,
 * and for CTC models the vocabulary against `blank_id` and `word_delimiter`. ONNX shapes are
 * checked when a session loads (see `npm run models -- check`). Throws ModelFolderError.
 */
export async function loadModelFolder(folder: string): Promise<LoadedModel> {
  const dir = resolve(folder);
  let raw: string;
  try {
    raw = await readFile(join(dir, 'manifest.json'), 'utf8');
  } catch {
    throw new ModelFolderError(dir, 'manifest.json is missing');
  }
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new ModelFolderError(dir, `manifest.json is not valid JSON (${(error as Error).message})`);
  }
  let manifest;
  try {
    manifest = parseManifest(json);
  } catch (error) {
    if (error instanceof ManifestError) throw new ModelFolderError(dir, error.message);
    throw error;
  }
  const onnxPath = await requireFile(dir, manifest.onnx, 'ONNX file');
  if (manifest.kind === 'language_id') return { kind: 'language_id', name: manifest.name, manifest, dir, onnxPath };

  const vocabPath = await requireFile(dir, manifest.vocabulary, 'vocabulary');
  const tokens = parseVocabulary(await readFile(vocabPath, 'utf8'));
  if (tokens.length < 2) throw new ModelFolderError(dir, `vocabulary ${manifest.vocabulary} has ${tokens.length} tokens`);
  if (manifest.blankId >= tokens.length) {
    throw new ModelFolderError(dir, `blank_id ${manifest.blankId} is outside the vocabulary (${tokens.length} tokens)`);
  }
  if (manifest.wordDelimiter !== null && !tokens.includes(manifest.wordDelimiter)) {
    throw new ModelFolderError(dir, `word_delimiter ${JSON.stringify(manifest.wordDelimiter)} is not in the vocabulary`);
  }
  const lmPath = manifest.lm ? await checkLanguageModel(dir, manifest.lm) : null;
  const calibration = manifest.confidenceCalibration ? await readCalibration(dir, manifest.confidenceCalibration) : null;
  return {
    kind: 'ctc',
    name: manifest.name,
    language: manifest.language,
    manifest,
    dir,
    onnxPath,
    vocabulary: { tokens, blankId: manifest.blankId, wordDelimiter: manifest.wordDelimiter },
    lmPath,
    calibration,
    streaming: manifest.input.kind === 'log_mel' ? await readStreaming(dir, manifest.input.nMels) : null,
  };
}

const STREAMING_GRAPH = 'streaming.onnx';
const STREAM_STATISTICS = 'stream-stats.json';

const isFile = (path: string): Promise<boolean> =>
  stat(path).then(
    (info) => info.isFile(),
    () => false,
  );

/**
 * The optional streaming step graph and its statistics: live streams need both, so either
 * alone gives null (the model serves as before); statistics that do not parse are a
 * ModelFolderError.
 */
async function readStreaming(dir: string, nMels: number): Promise<LoadedCtcModel['streaming']> {
  const onnxPath = join(dir, STREAMING_GRAPH);
  const statsPath = join(dir, STREAM_STATISTICS);
  const [graph, stats] = await Promise.all([isFile(onnxPath), isFile(statsPath)]);
  if (!graph || !stats) return null;
  try {
    return { onnxPath, statistics: parseStreamStatistics(JSON.parse(await readFile(statsPath, 'utf8')), nMels) };
  } catch (error) {
    throw new ModelFolderError(dir, `${STREAM_STATISTICS}: ${(error as Error).message}`);
  }
}

/** `{ "mean": [n_mels], "std": [n_mels], "prior_frames": n }`: finite values, positive deviations. */
export function parseStreamStatistics(raw: unknown, nMels: number): FeatureStatistics {
  const record = (raw ?? {}) as Record<string, unknown>;
  const vector = (name: string, positive: boolean): number[] => {
    const value = record[name];
    if (!Array.isArray(value) || value.length !== nMels) throw new Error(`${name} must be an array of ${nMels} numbers`);
    if (!value.every((v) => typeof v === 'number' && Number.isFinite(v) && (!positive || v > 0))) {
      throw new Error(`${name} must hold finite${positive ? ' positive' : ''} numbers`);
    }
    return value as number[];
  };
  const prior = record.prior_frames;
  if (typeof prior !== 'number' || !Number.isInteger(prior) || prior < 0) throw new Error('prior_frames must be an integer >= 0');
  return { mean: vector('mean', false), std: vector('std', true), priorFrames: prior };
}

/** The manifest's confidence calibration file, parsed and checked (ModelFolderError when missing or invalid). */
async function readCalibration(dir: string, file: string): Promise<ConfidenceCalibration> {
  const path = await requireFile(dir, file, 'confidence calibration');
  try {
    return parseConfidenceCalibration(JSON.parse(await readFile(path, 'utf8')));
  } catch (error) {
    throw new ModelFolderError(dir, `confidence calibration ${file}: ${(error as Error).message}`);
  }
}
