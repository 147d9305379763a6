// Query parameters of GET /v1/ws/transcribe, checked before a session starts.
import type { CaptionFormat } from '../jobs/caption-formats.js';
import { ApiError } from '../platform/errors/api-error.js';
import { audioBandOf, CHANNEL_NAMES_RULE, checkKeyterms, DEFAULT_CHANNEL_NAMES, keytermProblemText, parseChannelNames, type Asr } from '../engines/asr/asr.js';
import { isStreamFormat, MULTICHANNEL_FORMATS, STREAM_FORMAT_SAMPLE_RATE, STREAM_FORMATS, type StreamFormat } from '../engines/signal/signal.js';

export type VadType = 'energy' | 'silero';

export interface SessionSettings {
  readonly language: string;
  /** null for `auto`: detected from the first piece of speech. */
  readonly model: string | null;
  readonly requestedModel: string;
  readonly format: StreamFormat;
  /** `channels=2`: one VAD and turn stream per channel of interleaved audio (call-centre stereo). */
  readonly channels: 1 | 2;
  /** `channel_names`: the speaker name of each channel (default agent, customer); empty for mono. */
  readonly channelNames: readonly string[];
  /** turn_detection=server_vad was asked for. */
  readonly serverVad: boolean;
  readonly vadType: VadType;
  readonly partialResults: boolean;
  /** `captions=webvtt|srt`: ready-to-display `caption` messages per committed turn; null when not asked. */
  readonly captions: CaptionFormat | null;
  /** `record=true`: the session's client messages are stored (needs the key's `record` scope). */
  readonly record: boolean;
  /** `keyterms`: terms every turn, partial and final boosts (checked: checkKeyterms); absent or empty for none. */
  readonly keyterms?: readonly string[];
}

const CAPTION_QUERY_VALUES: Record<string, CaptionFormat | null> = { '': null, webvtt: 'vtt', vtt: 'vtt', srt: 'srt' };

const BOOLEAN: Record<string, boolean> = { true: true, '1': true, yes: true, false: false, '0': false, no: false };

/**
 * Reads language (or the deprecated `lang`), model, format, channels, channel_names,
 * turn_detection, vad_type, partial_results, captions, record and keyterms. Throws ApiError (invalid_field_value, INVALID_FIELD, UNSUPPORTED_*), which
 * closes the session with 1008 after an `error` message.
 */
export function parseSessionQuery(query: URLSearchParams, defaults: { language: string }, speech: Pick<Asr, 'resolveModel'>): SessionSettings {
  const language = (query.get('language') ?? query.get('lang') ?? defaults.language).trim().toLowerCase() || defaults.language;
  const modelParam = query.get('model')?.trim() || undefined;
  const formatRaw = (query.get('format') ?? 'pcm_s16le').trim().toLowerCase();
  // 8 kHz formats with no model named run on the default's telephone model (TELEPHONE_MODELS)
  const band = isStreamFormat(formatRaw) ? audioBandOf(STREAM_FORMAT_SAMPLE_RATE[formatRaw]) : 'wideband';
  const choice = speech.resolveModel(language, modelParam, band);

  if (!isStreamFormat(formatRaw)) {
    throw new ApiError('invalid_field_value', { message: `format must be one of ${STREAM_FORMATS.join(', ')}.`, param: 'format' });
  }
  const channelsRaw = (query.get('channels') ?? '1').trim();
  if (channelsRaw !== '1' && channelsRaw !== '2') {
    throw new ApiError('invalid_field_value', { message: 'channels must be 1 or 2.', param: 'channels' });
  }
  const channels = channelsRaw === '2' ? 2 : 1;
  if (channels === 2 && !MULTICHANNEL_FORMATS.includes(formatRaw)) {
    throw new ApiError('invalid_field_value', {
      message: `channels=2 needs a format that keeps channels apart: ${MULTICHANNEL_FORMATS.join(', ')} (${formatRaw} carries one channel).`,
      param: 'channels',
    });
  }
  const namesRaw = query.get('channel_names');
  if (namesRaw !== null && channels === 1) {
    throw new ApiError('invalid_field_value', { message: 'channel_names needs channels=2.', param: 'channel_names' });
  }
  const channelNames = channels === 1 ? [] : namesRaw === null ? [...DEFAULT_CHANNEL_NAMES] : parseChannelNames(namesRaw);
  if (channelNames === null) throw new ApiError('invalid_field_value', { message: `channel_names must be ${CHANNEL_NAMES_RULE}.`, param: 'channel_names' });
  const turnRaw = query.get('turn_detection');
  if (turnRaw !== null && turnRaw !== '' && turnRaw !== 'server_vad' && turnRaw !== 'none') {
    throw new ApiError('invalid_field_value', { message: "turn_detection must be 'server_vad' (or 'none').", param: 'turn_detection' });
  }
  const vadRaw = (query.get('vad_type') ?? 'energy').trim().toLowerCase();
  if (vadRaw !== 'energy' && vadRaw !== 'silero') {
    throw new ApiError('invalid_field_value', { message: "vad_type must be 'energy' or 'silero'.", param: 'vad_type' });
  }
  const partialRaw = (query.get('partial_results') ?? 'false').trim().toLowerCase();
  const partialResults = BOOLEAN[partialRaw];
  if (partialResults === undefined) {
    throw new ApiError('invalid_field_value', { message: 'partial_results must be true or false.', param: 'partial_results' });
  }
  const captionsRaw = (query.get('captions') ?? '').trim().toLowerCase();
  const captions = CAPTION_QUERY_VALUES[captionsRaw];
  if (captions === undefined) {
    throw new ApiError('invalid_field_value', { message: "captions must be 'webvtt' or 'srt'.", param: 'captions' });
  }
  const record = BOOLEAN[(query.get('record') ?? 'false').trim().toLowerCase()];
  if (record === undefined) {
    throw new ApiError('invalid_field_value', { message: 'record must be true or false.', param: 'record' });
  }
  // Comma-separated and/or repeated; empty pieces are ignored, as in the REST field.
  const keyterms = checkKeyterms(
    query
      .getAll('keyterms')
      .flatMap((value) => value.split(/[,፣]/u))
      .filter((piece) => piece.trim() !== ''),
  );
  if (!('keyterms' in keyterms)) throw new ApiError('invalid_field_value', keytermProblemText(keyterms));
  return {
    language: choice.language,
    model: choice.model,
    requestedModel: modelParam ?? '',
    format: formatRaw,
    channels,
    channelNames,
    serverVad: turnRaw === 'server_vad',
    vadType: vadRaw,
    partialResults,
    captions,
    record,
    ...(keyterms.keyterms.length > 0 ? { keyterms: keyterms.keyterms } : {}),
  };
}

/** A connection that resumes a session (`resume_token`); its other query parameters are ignored. */
export interface ResumeQuery {
  readonly token: string;
  /** Byte offset of the stream where this connection's audio starts; null: where the server is. */
  readonly fromBytes: number | null;
  /** seq of the last turn_detected, transcription or caption message received; null: the last one sent before the drop. */
  readonly lastSeq: number | null;
}

/** `resume_token`, `resume_from_bytes` and `last_seq`, or null when the connection opens a new session. */
export function parseResumeQuery(query: URLSearchParams): ResumeQuery | null {
  const token = query.get('resume_token');
  if (token === null) return null;
  return { token: token.trim(), fromBytes: count(query, 'resume_from_bytes'), lastSeq: count(query, 'last_seq') };
}

function count(query: URLSearchParams, name: string): number | null {
  const raw = query.get(name)?.trim();
  if (raw === undefined || raw === '') return null;
  if (!/^\d{1,15}$/.test(raw)) throw new ApiError('invalid_field_value', { message: `${name} must be a non-negative integer.`, param: name });
  return Number(raw);
}
