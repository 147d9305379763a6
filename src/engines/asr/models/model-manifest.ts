import { MODEL_FOLDER_NAME } from '../../runtime/hub-onnx-files.js';
import type { LogMelInput } from '../../signal/features/log-mel-features.js';
/**
 * model.json schema (docs/model-format.md), parsed into camel-cased, fully defaulted records.
 * Two kinds: `ctc` (the default; a CTC acoustic model) and `language_id` (audio in, one score
 * per language out).
 */

export interface WaveformInput {
  readonly kind: 'waveform';
  readonly sampleRate: number;
  readonly normalize: 'none' | 'zero_mean_unit_var';
}

export type { LogMelInput };

export type ModelInput = WaveformInput | LogMelInput;

export interface CtcManifest {
  readonly kind: 'ctc';
  readonly schemaVersion: 1;
  readonly name: string;
  readonly language: string;
  readonly description: string;
  readonly onnx: string;
  readonly input: ModelInput;
  /** `lengths` null: the model takes no lengths input (a plain wav2vec2-style export); it then runs one row per batch. */
  readonly io: { readonly audio: string; readonly lengths: string | null; readonly logits: string; readonly outLengths: string | null };
  readonly frameStrideSamples: number;
  readonly vocabulary: string;
  readonly blankId: number;
  readonly wordDelimiter: string | null;
  readonly output: { readonly script: string; readonly casing: 'none' | 'lower' | 'true_case'; readonly punctuation: boolean };
  readonly lm: { readonly file: string; readonly unit: 'char' | 'word'; readonly order: number; readonly alpha: number; readonly beta: number } | null;
  readonly decoding: { readonly default: 'greedy' | 'beam'; readonly beamWidth: number };
  /** Explicit default flag; without one the registry picks `small-<lang>-v1`. */
  readonly isDefault: boolean | null;
  /**
   * Most rows the pool may batch for this model; null: the pool's setting. 1 for a model whose
   * output depends on zero padding (`npm run models -- check` reports `padding_invariance`).
   */
  readonly maxBatchSize: number | null;
  /**
   * `confidence_calibration`: a JSON file in the model folder mapping raw decoding scores to
   * calibrated segment confidence (recognition/confidence-calibration.ts); null or absent: the raw
   * mean token posterior is the confidence.
   */
  readonly confidenceCalibration?: string | null;
  /**
   * `telephone_model`: the name of a model of the same language and vocabulary trained for
   * narrow-band calls, which serves this model's audio when this model is the language's default,
   * no model was named and the audio is 8 kHz or less (model-registry.ts `resolve`); null or
   * absent: none.
   */
  readonly telephoneModel?: string | null;
}

export interface LanguageIdManifest {
  readonly kind: 'language_id';
  readonly schemaVersion: 1;
  readonly name: string;
  readonly description: string;
  readonly onnx: string;
  readonly input: ModelInput;
  /** `lengths` is optional for a language-id model; without it the model runs one row per batch. */
  readonly io: { readonly audio: string; readonly lengths: string | null; readonly logits: string };
  /** Language code of each output column, in order. */
  readonly labels: readonly string[];
  readonly maxBatchSize: number | null;
}

export type ModelManifest = CtcManifest | LanguageIdManifest;

export class ManifestError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid manifest: ${problems.join('; ')}`);
    this.name = 'ManifestError';
  }
}

type Json = Record<string, unknown>;

class Reader {
  readonly problems: string[] = [];
  constructor(private readonly root: Json) {}

  private at(path: string): unknown {
    let value: unknown = this.root;
    for (const key of path.split('.')) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
      value = (value as Json)[key];
    }
    return value;
  }

  has(path: string): boolean {
    return this.at(path) !== undefined;
  }

  string(path: string, fallback?: string): string {
    const v = this.at(path);
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== 'string' || v.length === 0) {
      this.problems.push(`${path} must be a non-empty string`);
      return fallback ?? '';
    }
    return v;
  }

  nullableString(path: string): string | null {
    const v = this.at(path);
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string' || v.length === 0) {
      this.problems.push(`${path} must be a non-empty string or null`);
      return null;
    }
    return v;
  }

  number(path: string, opts: { fallback?: number; min?: number; max?: number; integer?: boolean } = {}): number {
    const v = this.at(path);
    if (v === undefined && opts.fallback !== undefined) return opts.fallback;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      this.problems.push(`${path} must be a number`);
      return opts.fallback ?? 0;
    }
    if (opts.integer && !Number.isInteger(v)) this.problems.push(`${path} must be an integer`);
    if (opts.min !== undefined && v < opts.min) this.problems.push(`${path} must be >= ${opts.min}`);
    if (opts.max !== undefined && v > opts.max) this.problems.push(`${path} must be <= ${opts.max}`);
    return v;
  }

  boolean(path: string, fallback?: boolean): boolean {
    const v = this.at(path);
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== 'boolean') {
      this.problems.push(`${path} must be true or false`);
      return fallback ?? false;
    }
    return v;
  }

  oneOf<T extends string>(path: string, allowed: readonly T[], fallback?: T): T {
    const v = this.at(path);
    if (v === undefined && fallback !== undefined) return fallback;
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
      this.problems.push(`${path} must be one of ${allowed.join(', ')}`);
      return fallback ?? allowed[0]!;
    }
    return v as T;
  }

  object(path: string): boolean {
    const v = this.at(path);
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      this.problems.push(`${path} must be an object`);
      return false;
    }
    return true;
  }

  stringArray(path: string): string[] {
    const v = this.at(path);
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' && x.length > 0)) {
      this.problems.push(`${path} must be a non-empty array of strings`);
      return [];
    }
    return v as string[];
  }
}

const LANGUAGE = /^[a-z]{2,3}$/;

/** A file name inside the model folder: no directories, no traversal. */
function checkFileName(r: Reader, path: string, value: string): void {
  if (value.includes('/') || value.includes('\\') || value === '.' || value === '..') {
    r.problems.push(`${path} must be a file name inside the model folder`);
  }
}

/**
 * `lm.file`: a file in the model folder, or `../<folder>/<file>` (e.g. `../lm/am-char-5gram.bin`)
 * so model folders of one models directory can share an LM; it may not leave the models directory.
 */
function checkLmPath(r: Reader, value: string): void {
  const parts = value.split('/');
  const plain = (p: string): boolean => p.length > 0 && p !== '.' && p !== '..' && !p.includes('\\');
  const ok = (parts.length === 1 && plain(parts[0]!)) || (parts.length === 3 && parts[0] === '..' && plain(parts[1]!) && plain(parts[2]!));
  if (!ok) r.problems.push('lm.file must be a file name in the model folder or ../<folder>/<file> inside the models directory');
}

function readInput(r: Reader): ModelInput {
  if (!r.object('input')) return { kind: 'waveform', sampleRate: 16000, normalize: 'none' };
  const kind = r.oneOf('input.kind', ['waveform', 'log_mel'] as const);
  const sampleRate = r.number('input.sample_rate', { fallback: 16000, integer: true });
  if (sampleRate !== 16000) r.problems.push('input.sample_rate must be 16000 (the gateway decodes audio to 16 kHz)');
  if (kind === 'waveform') {
    return { kind, sampleRate, normalize: r.oneOf('input.normalize', ['none', 'zero_mean_unit_var'] as const, 'none') };
  }
  const nFft = r.number('input.n_fft', { integer: true, min: 16, max: 8192 });
  const winLength = r.number('input.win_length', { fallback: nFft, integer: true, min: 1, max: nFft });
  const hopLength = r.number('input.hop_length', { integer: true, min: 1, max: 8192 });
  const nMels = r.number('input.n_mels', { integer: true, min: 1, max: 512 });
  const fMin = r.number('input.f_min', { fallback: 0, min: 0 });
  const fMax = r.number('input.f_max', { fallback: sampleRate / 2, min: 0, max: sampleRate / 2 });
  if (fMax <= fMin) r.problems.push('input.f_max must be above input.f_min');
  const power = r.number('input.power', { fallback: 2 });
  if (power !== 1 && power !== 2) r.problems.push('input.power must be 1 or 2');
  return {
    kind,
    sampleRate,
    nFft,
    winLength,
    hopLength,
    nMels,
    fMin,
    fMax,
    window: r.oneOf('input.window', ['hann'] as const, 'hann'),
    melScale: r.oneOf('input.mel_scale', ['htk', 'slaney'] as const, 'htk'),
    melNorm: r.oneOf('input.mel_norm', ['none', 'slaney'] as const, 'none'),
    center: r.boolean('input.center', true),
    power: power === 1 ? 1 : 2,
    logFloor: r.number('input.log_floor', { fallback: 1e-10, min: Number.MIN_VALUE }),
    normalize: r.oneOf('input.normalize', ['none', 'per_utterance'] as const, 'none'),
  };
}

/** Validates a parsed manifest.json; throws ManifestError listing every problem found. */
export function parseManifest(json: unknown): ModelManifest {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new ManifestError(['manifest must be a JSON object']);
  const r = new Reader(json as Json);
  const schemaVersion = r.number('schema_version', { integer: true });
  if (schemaVersion !== 1) r.problems.push('schema_version must be 1');
  const kind = r.oneOf('kind', ['ctc', 'language_id'] as const, 'ctc');
  const name = r.string('name');
  if (name && !MODEL_FOLDER_NAME.test(name)) r.problems.push('name must be lower-case letters, digits, ".", "_" or "-" (at most 64)');
  const description = r.string('description', '');
  const onnx = r.string('onnx', 'model.onnx');
  // A file in the folder, or in its `onnx/` subfolder (the layout transformers.js and Optimum publish).
  checkFileName(r, 'onnx', onnx.startsWith('onnx/') ? onnx.slice('onnx/'.length) : onnx);
  const input = readInput(r);
  r.object('io');

  if (kind === 'language_id') {
    const labels = r.stringArray('labels');
    if (new Set(labels).size !== labels.length) r.problems.push('labels must be distinct');
    const manifest: LanguageIdManifest = {
      kind,
      schemaVersion: 1,
      name,
      description,
      onnx,
      input,
      io: { audio: r.string('io.audio'), lengths: r.nullableString('io.lengths'), logits: r.string('io.logits') },
      labels,
      maxBatchSize: r.has('max_batch_size') ? r.number('max_batch_size', { integer: true, min: 1, max: 1024 }) : null,
    };
    if (r.problems.length > 0) throw new ManifestError(r.problems);
    return manifest;
  }

  const language = r.string('language');
  if (language && !LANGUAGE.test(language)) r.problems.push('language must be a 2-3 letter code');
  const vocabulary = r.string('vocabulary', 'vocab.txt');
  checkFileName(r, 'vocabulary', vocabulary);
  r.object('output');
  let lm: CtcManifest['lm'] = null;
  if (r.has('lm') && r.object('lm')) {
    const file = r.string('lm.file');
    checkLmPath(r, file);
    lm = {
      file,
      unit: r.oneOf('lm.unit', ['char', 'word'] as const, 'char'),
      order: r.number('lm.order', { integer: true, min: 1, max: 10, fallback: 3 }),
      alpha: r.number('lm.alpha', { fallback: 0.5 }),
      beta: r.number('lm.beta', { fallback: 0 }),
    };
  }
  const manifest: CtcManifest = {
    kind,
    schemaVersion: 1,
    name,
    language,
    description,
    onnx,
    input,
    io: {
      audio: r.string('io.audio'),
      lengths: r.nullableString('io.lengths'),
      logits: r.string('io.logits'),
      outLengths: r.nullableString('io.out_lengths'),
    },
    frameStrideSamples: r.number('frame_stride_samples', { integer: true, min: 1, max: 16000 }),
    vocabulary,
    blankId: r.number('blank_id', { integer: true, min: 0, fallback: 0 }),
    wordDelimiter: r.nullableString('word_delimiter'),
    output: {
      script: r.string('output.script', 'unknown'),
      casing: r.oneOf('output.casing', ['none', 'lower', 'true_case'] as const),
      punctuation: r.boolean('output.punctuation'),
    },
    lm,
    decoding: {
      default: r.oneOf('decoding.default', ['greedy', 'beam'] as const, 'greedy'),
      beamWidth: r.number('decoding.beam_width', { integer: true, min: 1, max: 1024, fallback: 8 }),
    },
    isDefault: r.has('default') ? r.boolean('default') : null,
    maxBatchSize: r.has('max_batch_size') ? r.number('max_batch_size', { integer: true, min: 1, max: 1024 }) : null,
    confidenceCalibration: r.nullableString('confidence_calibration'),
    telephoneModel: r.nullableString('telephone_model'),
  };
  if (manifest.confidenceCalibration) checkFileName(r, 'confidence_calibration', manifest.confidenceCalibration);
  if (input.kind === 'log_mel' && manifest.io.lengths === null) r.problems.push('io.lengths must be a non-empty string (log_mel input takes frame lengths)');
  if (input.kind === 'log_mel' && manifest.frameStrideSamples % input.hopLength !== 0) {
    r.problems.push('frame_stride_samples must be a multiple of input.hop_length');
  }
  if (r.problems.length > 0) throw new ManifestError(r.problems);
  return manifest;
}
