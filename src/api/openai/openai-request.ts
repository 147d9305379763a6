// The form fields of OpenAI's `POST /v1/audio/transcriptions` and `/v1/audio/translations`,
// read into this gateway's terms. Pure: fields in, a request or an ApiError out.
//
// Rules (docs/openai-compatible.md says the same to users):
// - `model`: a model name of GET /v1/models, or an alias in MODEL_ALIASES (OpenAI's model
//   names), which runs the default model of the language; left out: the alias. Any other name
//   is UNSUPPORTED_MODEL (param `model`). A model name implies its language.
// - `language`: an ISO-639-1 code of a language with a model (am, om, ti), any case. Left out:
//   the model's language when a model is named, else `auto` (detected on the first seconds, as
//   REST's language=auto). Not two letters: invalid_field_value; two letters without a model:
//   UNSUPPORTED_LANGUAGE. A model of another language than the one named: UNSUPPORTED_MODEL.
// - `prompt`: read as a keyterm list (promptKeyterms).
// - `response_format`: json (default), text, srt, vtt, verbose_json.
// - `timestamp_granularities[]` (or without the brackets; repeatable): segment, word; default
//   segment. They shape verbose_json only. Translations have no word timestamps.
// - `temperature`: a number 0..1, checked and not used (decoding is deterministic).
// - `stream`: false or left out; true is invalid_field_value (the answer is the whole result).
// - A field sent twice that takes one value is invalid_field_value. Other fields are ignored.
import { KEYTERM_LIMITS } from '../../engines/asr/asr.js';
import { ApiError } from '../../platform/errors/api-error.js';

export const OPENAI_RESPONSE_FORMATS = ['json', 'text', 'srt', 'vtt', 'verbose_json'] as const;
export type OpenAiResponseFormat = (typeof OPENAI_RESPONSE_FORMATS)[number];

export const TIMESTAMP_GRANULARITIES = ['segment', 'word'] as const;
export type TimestampGranularity = (typeof TIMESTAMP_GRANULARITIES)[number];

/** OpenAI's speech-to-text model names: each runs the default model of the language. */
export const MODEL_ALIASES = ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe'] as const;

/** At most this many keyterms are taken from a prompt, each of 1..MAX_PROMPT_KEYTERM_CHARS characters: the keyterm limits of every API. */
export const MAX_PROMPT_KEYTERMS = KEYTERM_LIMITS.maxTerms;
export const MAX_PROMPT_KEYTERM_CHARS = KEYTERM_LIMITS.maxChars;

export type OpenAiTask = 'transcribe' | 'translate';

/** What the routes know of the gateway's models: their names and languages, and the languages with a default model. */
export interface ModelCatalogue {
  readonly models: readonly { readonly name: string; readonly language: string }[];
  readonly languages: readonly string[];
}

export interface OpenAiAudioRequest {
  /** A language code, or `auto`. */
  readonly language: string;
  /** The model asked for; null: the language's default. */
  readonly model: string | null;
  readonly keyterms: readonly string[];
  readonly responseFormat: OpenAiResponseFormat;
  /** Distinct, in the order sent; `['segment']` when none was sent. */
  readonly granularities: readonly TimestampGranularity[];
  /** Checked, not used. */
  readonly temperature: number | null;
}

type Fields = Readonly<Record<string, string | readonly string[]>>;

export function readOpenAiFields(fields: Fields, catalogue: ModelCatalogue, task: OpenAiTask): OpenAiAudioRequest {
  const { language, model } = chooseModel(single(fields, 'model'), single(fields, 'language'), catalogue);
  checkStream(single(fields, 'stream'));
  const granularities = readGranularities(fields);
  if (task === 'translate' && granularities.includes('word')) {
    throw new ApiError('invalid_field_value', {
      message: 'Translations have no word timestamps: send timestamp_granularities[]=segment or leave it out.',
      param: 'timestamp_granularities[]',
    });
  }
  return {
    language,
    model,
    keyterms: promptKeyterms(single(fields, 'prompt')),
    responseFormat: readResponseFormat(single(fields, 'response_format')),
    granularities,
    temperature: readTemperature(single(fields, 'temperature')),
  };
}

/**
 * A prompt as keyterms: split at commas (`,` and the Ethiopic `፣`) and line breaks, each piece
 * NFC-normalised, trimmed and its inner white space made one space (as the `keyterms` field's
 * terms are); empty pieces and pieces over MAX_PROMPT_KEYTERM_CHARS characters
 * (prose, as Whisper prompts often are) are left out, repeats kept once, and the first
 * MAX_PROMPT_KEYTERMS taken.
 */
export function promptKeyterms(prompt: string | undefined): string[] {
  if (prompt === undefined) return [];
  const terms: string[] = [];
  for (const piece of prompt.normalize('NFC').split(/[,፣\r\n]+/u)) {
    const term = piece.trim().replace(/\s+/gu, ' ');
    const length = [...term].length;
    if (length === 0 || length > MAX_PROMPT_KEYTERM_CHARS || terms.includes(term)) continue;
    terms.push(term);
    if (terms.length === MAX_PROMPT_KEYTERMS) break;
  }
  return terms;
}

/** The language and model a request runs with, by the rules in this file's header. */
export function chooseModel(model: string | undefined, language: string | undefined, catalogue: ModelCatalogue): { language: string; model: string | null } {
  const named = model === undefined ? '' : model.trim();
  const alias = named === '' || (MODEL_ALIASES as readonly string[]).includes(named);
  const entry = alias ? undefined : catalogue.models.find((m) => m.name === named);
  if (!alias && entry === undefined) {
    throw new ApiError('UNSUPPORTED_MODEL', {
      message: `Model '${named}' is not available. Models: ${[...catalogue.models.map((m) => m.name), ...MODEL_ALIASES].join(', ')} (the aliases run the language's default model).`,
      param: 'model',
    });
  }
  const code = language === undefined || language.trim() === '' ? null : language.trim().toLowerCase();
  if (code !== null && !/^[a-z]{2}$/.test(code)) {
    throw new ApiError('invalid_field_value', {
      message: `'language' must be an ISO-639-1 code (${catalogue.languages.join(', ')}), or left out to detect the language; got '${language!.trim()}'.`,
      param: 'language',
    });
  }
  if (code !== null && !catalogue.languages.includes(code)) {
    throw new ApiError('UNSUPPORTED_LANGUAGE', {
      message: `Language '${code}' is not supported. Languages: ${catalogue.languages.join(', ')}; leave 'language' out to detect it.`,
      param: 'language',
    });
  }
  if (entry === undefined) return { language: code ?? 'auto', model: null };
  if (code !== null && code !== entry.language) {
    throw new ApiError('UNSUPPORTED_MODEL', {
      message: `Model '${entry.name}' transcribes '${entry.language}', not '${code}'. Models for '${code}': ${catalogue.models
        .filter((m) => m.language === code)
        .map((m) => m.name)
        .join(', ')}.`,
      param: 'model',
    });
  }
  return { language: entry.language, model: entry.name };
}

function single(fields: Fields, name: string): string | undefined {
  const value = fields[name];
  if (value === undefined || typeof value === 'string') return value;
  if (value.length === 1) return value[0];
  throw new ApiError('invalid_field_value', { message: `Field '${name}' was sent ${value.length} times; send it once.`, param: name });
}

function readResponseFormat(value: string | undefined): OpenAiResponseFormat {
  if (value === undefined || value === '') return 'json';
  if ((OPENAI_RESPONSE_FORMATS as readonly string[]).includes(value)) return value as OpenAiResponseFormat;
  throw new ApiError('invalid_field_value', {
    message: `'response_format' must be one of ${OPENAI_RESPONSE_FORMATS.join(', ')}; got '${value}'.`,
    param: 'response_format',
  });
}

function readGranularities(fields: Fields): TimestampGranularity[] {
  const sent = [fields['timestamp_granularities[]'], fields['timestamp_granularities']].flatMap((v) =>
    v === undefined ? [] : typeof v === 'string' ? [v] : [...v],
  );
  const out: TimestampGranularity[] = [];
  for (const value of sent) {
    if (!(TIMESTAMP_GRANULARITIES as readonly string[]).includes(value)) {
      throw new ApiError('invalid_field_value', {
        message: `'timestamp_granularities[]' values must be ${TIMESTAMP_GRANULARITIES.join(' or ')}; got '${value}'.`,
        param: 'timestamp_granularities[]',
      });
    }
    if (!out.includes(value as TimestampGranularity)) out.push(value as TimestampGranularity);
  }
  return out.length === 0 ? ['segment'] : out;
}

function readTemperature(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0 || number > 1) {
    throw new ApiError('invalid_field_value', { message: `'temperature' must be a number from 0 to 1; got '${value}'.`, param: 'temperature' });
  }
  return number;
}

function checkStream(value: string | undefined): void {
  if (value === undefined || value === '' || value === 'false') return;
  const message =
    value === 'true'
      ? 'stream=true is not supported: the answer is the whole transcript. Leave stream out (or false); for live results use the WebSocket endpoint /v1/ws/transcribe.'
      : `'stream' must be false; got '${value}'.`;
  throw new ApiError('invalid_field_value', { message, param: 'stream' });
}
