// Request and response schemas of the OpenAI-compatible routes, as OpenAI documents them. The
// multipart schema documents the fields (openai-request.ts reads them); the response schemas are
// checked on every JSON answer in tests.
import { Type } from '@sinclair/typebox';
import { named } from '../../platform/http/named-schema.js';
import { MODEL_ALIASES, OPENAI_RESPONSE_FORMATS, TIMESTAMP_GRANULARITIES } from './openai-request.js';

const fileField = Type.String({ format: 'binary', description: 'The audio file: MP3, WAV, M4A, FLAC, OGG, WEBM or AAC, up to MAX_AUDIO_BYTES' });
const modelField = Type.String({
  description: `A model name of GET /v1/models, or ${MODEL_ALIASES.join(', ')} (the language's default model); left out: the default model. A model name implies its language.`,
});
const promptField = Type.String({
  description:
    'Read as keyterms to boost: split at commas (, and ፣) and line breaks, trimmed; pieces over 50 characters are ignored, the first 100 distinct ones used.',
});
const formatField = Type.Union(
  OPENAI_RESPONSE_FORMATS.map((f) => Type.Literal(f)),
  { description: 'Default json. text, srt and vtt answer plain text.' },
);
const temperatureField = Type.Number({ minimum: 0, maximum: 1, description: 'Accepted (0..1) and ignored: decoding is deterministic' });
const streamField = Type.Boolean({ description: 'false only: true is refused with 400 (use the WebSocket endpoint for live results)' });

export const OpenAiTranscriptionFields = named(
  'OpenAiTranscriptionRequest',
  Type.Object({
    file: fileField,
    model: Type.Optional(modelField),
    language: Type.Optional(
      Type.String({ description: 'ISO-639-1 code of the spoken language: am, om or ti (any case). Left out: detected (or the named model’s language).' }),
    ),
    prompt: Type.Optional(promptField),
    response_format: Type.Optional(formatField),
    'timestamp_granularities[]': Type.Optional(
      Type.Array(Type.Union(TIMESTAMP_GRANULARITIES.map((g) => Type.Literal(g))), {
        description: 'verbose_json only: segment (default), word, or both. Words come from the CTC alignment of the decoded text.',
      }),
    ),
    temperature: Type.Optional(temperatureField),
    stream: Type.Optional(streamField),
  }),
);

export const OpenAiTranslationFields = named(
  'OpenAiTranslationRequest',
  Type.Object({
    file: fileField,
    model: Type.Optional(modelField),
    language: Type.Optional(
      Type.String({
        description: 'Extension: ISO-639-1 code of the spoken language (am or ti, the languages the translation model reads). Left out: detected.',
      }),
    ),
    prompt: Type.Optional(promptField),
    response_format: Type.Optional(formatField),
    temperature: Type.Optional(temperatureField),
  }),
);

const usage = Type.Object(
  { type: Type.Literal('duration'), seconds: Type.Integer({ minimum: 0, description: 'Audio seconds, rounded up' }) },
  { description: 'Transcriptions only' },
);

export const OpenAiTranscriptionSchema = named(
  'OpenAiTranscription',
  Type.Object({ text: Type.String(), usage: Type.Optional(usage) }, { description: 'response_format=json' }),
);

const SegmentSchema = named(
  'OpenAiTranscriptionSegment',
  Type.Object({
    id: Type.Integer({ minimum: 0 }),
    seek: Type.Integer({ minimum: 0, description: 'The segment start in 10 ms frames (each segment is decoded from its own start)' }),
    start: Type.Number({ minimum: 0, description: 'Seconds' }),
    end: Type.Number({ minimum: 0, description: 'Seconds' }),
    text: Type.String(),
    tokens: Type.Array(Type.Integer(), { description: 'Always empty: the models emit characters, not Whisper token ids' }),
    temperature: Type.Number({ description: 'Always 0: decoding is deterministic' }),
    avg_logprob: Type.Number({ maximum: 0, description: "Natural log of the segment's confidence (mean token probability, floored at 1e-4)" }),
    compression_ratio: Type.Number({ minimum: 0, description: 'UTF-8 bytes of the text over its zlib-compressed bytes, as Whisper computes it' }),
    no_speech_prob: Type.Number({ minimum: 0, maximum: 1, description: 'Always 0: not computed (every segment holds decoded text)' }),
  }),
);

const WordSchema = named('OpenAiTranscriptionWord', Type.Object({ word: Type.String(), start: Type.Number({ minimum: 0 }), end: Type.Number({ minimum: 0 }) }));

export const OpenAiVerboseSchema = named(
  'OpenAiTranscriptionVerbose',
  Type.Object(
    {
      task: Type.Union([Type.Literal('transcribe'), Type.Literal('translate')]),
      language: Type.String({ description: 'English name in lower case, e.g. amharic; translations: english' }),
      duration: Type.Number({ minimum: 0, description: 'Seconds of audio' }),
      text: Type.String(),
      segments: Type.Optional(Type.Array(SegmentSchema, { description: 'With the segment granularity (the default)' })),
      words: Type.Optional(Type.Array(WordSchema, { description: 'With the word granularity' })),
      usage: Type.Optional(usage),
    },
    { description: 'response_format=verbose_json' },
  ),
);

export const OpenAiAudioResultSchema = Type.Union([OpenAiVerboseSchema, OpenAiTranscriptionSchema]);

export const OpenAiModelSchema = named(
  'OpenAiModel',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('model'),
    created: Type.Integer({ description: 'Unix seconds: when this gateway process started (the models are read at start)' }),
    owned_by: Type.String(),
  }),
);

export const OpenAiModelListSchema = named('OpenAiModelList', Type.Object({ object: Type.Literal('list'), data: Type.Array(OpenAiModelSchema) }));

export const OpenAiModelParams = Type.Object({ model: Type.String({ description: 'A model id of GET /v1/models' }) });
