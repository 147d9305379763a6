// A finished transcription (or its English translation) in the response formats of OpenAI's
// audio endpoints. Pure: the result in, the body out.
//
// Rules (docs/openai-compatible.md says the same to users):
// - Segments with empty text are left out; `text` is the segments' texts joined with spaces.
// - json: `{text, usage}`; text: the text and a line break; srt and vtt: the gateway's caption
//   files (caption-cues.ts: broadcast line and timing rules), from the segments.
// - verbose_json: `{task, language, duration, text, segments, words, usage}`: `segments` when
//   the granularities hold `segment`, `words` when they hold `word`; `language` is the English
//   name in lower case ("amharic"), and "english" for translations (OpenAI: "always english").
// - Per segment: `id` from 0; `seek` the start in 10 ms frames (each segment is decoded from
//   its own start); `start`/`end` in seconds; `tokens` [] (the models emit characters, not
//   Whisper token ids); `temperature` 0 (decoding is deterministic); `avg_logprob` the natural
//   log of the segment's confidence (its mean token probability, floored at 1e-4);
//   `compression_ratio` as Whisper computes it (UTF-8 bytes over zlib-compressed bytes);
//   `no_speech_prob` 0 (not computed: each segment is one the recogniser decoded text from).
// - words: `{word, start, end}` in seconds from the segments' `words` (CTC alignment); a
//   segment without word timings contributes none.
// - usage (transcriptions; OpenAI's translation objects have none): `{type: "duration",
//   seconds}`, whole seconds of audio rounded up.
import { deflateSync } from 'node:zlib';
import { buildCaptionCues } from '../../jobs/caption-cues.js';
import { CAPTION_CONTENT_TYPES, renderCaptions } from '../../jobs/caption-formats.js';
import type { OpenAiResponseFormat, OpenAiTask, TimestampGranularity } from './openai-request.js';

/** A word of a segment, absolute milliseconds in the audio. */
export interface ResultWord {
  readonly word: string;
  readonly start_ms: number;
  readonly end_ms: number;
}

export interface ResultSegment {
  readonly start_ms: number;
  readonly end_ms: number;
  readonly text: string;
  /** Mean token probability (0..1); null when nothing was recognised. */
  readonly confidence: number | null;
  readonly words?: readonly ResultWord[];
}

export interface AudioResult {
  readonly task: OpenAiTask;
  /** The English name of the language of the text, in lower case. */
  readonly language: string;
  readonly durationSeconds: number;
  readonly segments: readonly ResultSegment[];
}

export type RenderedAudio =
  | { readonly kind: 'json'; readonly body: Record<string, unknown> }
  | { readonly kind: 'text'; readonly body: string; readonly contentType: string };

export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';

const LOGPROB_FLOOR = 1e-4;

export function renderAudioResult(result: AudioResult, format: OpenAiResponseFormat, granularities: readonly TimestampGranularity[]): RenderedAudio {
  const segments = result.segments.filter((s) => s.text.trim().length > 0);
  const text = segments.map((s) => s.text.trim()).join(' ');
  // OpenAI's translation objects carry no usage.
  const usage = result.task === 'transcribe' ? { usage: { type: 'duration', seconds: Math.ceil(result.durationSeconds) } } : {};
  switch (format) {
    case 'json':
      return { kind: 'json', body: { text, ...usage } };
    case 'text':
      return { kind: 'text', body: `${text}\n`, contentType: TEXT_CONTENT_TYPE };
    case 'srt':
    case 'vtt': {
      const cues = buildCaptionCues(segments.map((s) => ({ start_ms: s.start_ms, end_ms: s.end_ms, text: s.text.trim(), speaker: null })));
      return { kind: 'text', body: renderCaptions(cues, format), contentType: CAPTION_CONTENT_TYPES[format] };
    }
    case 'verbose_json':
      return {
        kind: 'json',
        body: {
          task: result.task,
          language: result.language,
          duration: round(result.durationSeconds, 3),
          text,
          ...(granularities.includes('segment') ? { segments: segments.map(verboseSegment) } : {}),
          ...(granularities.includes('word') ? { words: segments.flatMap((s) => (s.words ?? []).map(verboseWord)) } : {}),
          ...usage,
        },
      };
  }
}

function verboseSegment(segment: ResultSegment, id: number): Record<string, unknown> {
  const text = segment.text.trim();
  return {
    id,
    seek: Math.round(segment.start_ms / 10),
    start: segment.start_ms / 1000,
    end: segment.end_ms / 1000,
    text,
    tokens: [],
    temperature: 0,
    avg_logprob: round(Math.log(Math.max(LOGPROB_FLOOR, segment.confidence ?? LOGPROB_FLOOR)), 4),
    compression_ratio: round(compressionRatio(text), 4),
    no_speech_prob: 0,
  };
}

function verboseWord(word: ResultWord): { word: string; start: number; end: number } {
  return { word: word.word, start: word.start_ms / 1000, end: word.end_ms / 1000 };
}

/** Whisper's measure of repetition: the text's UTF-8 bytes over their zlib-compressed length. */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length === 0 ? 0 : bytes.length / deflateSync(bytes).length;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
