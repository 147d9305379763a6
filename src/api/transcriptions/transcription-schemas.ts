import { type Static, Type } from '@sinclair/typebox';
import { JOB_STATUSES } from '../../platform/db/job-records.js';
import { named, Nullable } from '../../platform/http/named-schema.js';
import { IDEMPOTENCY_RESPONSES } from '../idempotency-key.js';
import { cursorListSchema } from '../list-paging.js';
import { DiarizationConfigMultipartField, DiarizationConfigSchema, DiarizeField, DiarizeMultipartField, SpeakersSchema } from '../diarization-fields.js';
import { KeytermsJsonField, KeytermsMultipartField } from '../keyterm-fields.js';

export const SegmentWordSchema = named(
  'SegmentWord',
  Type.Object({
    word: Type.String(),
    start_ms: Type.Integer(),
    end_ms: Type.Integer(),
    confidence: Nullable(Type.Number({ minimum: 0, maximum: 1, description: "Mean posterior of the word's CTC tokens (null for a lone symbol)" })),
  }),
);

export const SegmentSchema = named(
  'Segment',
  Type.Object({
    id: Type.Integer({ description: 'Segment index' }),
    start_ms: Type.Integer(),
    end_ms: Type.Integer(),
    duration_ms: Type.Integer(),
    text: Type.String(),
    speaker: Nullable(Type.String()),
    confidence: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
    channel: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: 'Multi-channel audio (channels=2) only: the 0-based channel; `speaker` is its name (default agent for 0, customer for 1)',
      }),
    ),
    type: Type.Optional(
      Type.Union([Type.Literal('speech'), Type.Literal('male'), Type.Literal('female'), Type.Literal('music')], {
        description:
          "Extension, diarized files only (`diarize: true`): `male` / `female` (the speaker's voice, from pitch), `speech` (voice not classified or unsure), `music` (music without speech; such a segment has empty text and speaker null). See docs/diarization.md",
      }),
    ),
    // Static type readonly, as the record's (job-records.ts); the JSON Schema is the array's.
    words: Type.Optional(
      Type.Unsafe<readonly Static<typeof SegmentWordSchema>[]>(
        Type.Array(SegmentWordSchema, {
          description:
            'Extension: the words of `text` (joined with single spaces they are `text`), times in ms of the audio (stream ms on a WebSocket) from the CTC alignment of the decoded path, and a confidence. Absent on music segments and on segments stored before word times were kept',
        }),
      ),
    ),
  }),
);

export const ProgressSchema = named(
  'Progress',
  Type.Object({
    stage: Type.String({
      description: 'queued, downloading, decoding, detecting_language, transcribing, diarizing (with diarize), completed, failed, cancelled',
    }),
    percent: Type.Number({ minimum: 0, maximum: 100 }),
    total_segments: Type.Integer({ description: 'On a batch parent: files' }),
    done_segments: Type.Integer({ description: 'On a batch parent: files in a final state' }),
  }),
);

export const JobErrorSchema = named('JobError', Type.Object({ type: Type.String(), code: Type.String(), message: Type.String() }));

export const JobStatusSchema = Type.Union(JOB_STATUSES.map((s) => Type.Literal(s)));

export const JobMetadataSchema = named(
  'JobMetadata',
  Type.Object(
    {
      language: Type.String({ description: 'The language asked for' }),
      model: Type.String({ description: 'The model asked for; empty when the default was used' }),
      resolved_model: Type.Optional(Type.String({ description: 'The model that ran' })),
      end_reason: Type.Optional(
        Type.String({
          description:
            'WebSocket sessions, once ended: end, client_closed, client_disconnected (the connection dropped and was not resumed in time), session_duration_exceeded, idle_timeout, server_shutdown, or the error code that ended it',
        }),
      ),
      resumes: Type.Optional(Type.Integer({ description: 'WebSocket sessions, once ended: how many times a new connection resumed the session' })),
    },
    { description: 'metadata of a single job or a batch child (and of a WebSocket session)' },
  ),
);

export const BatchMetadataSchema = named(
  'BatchMetadata',
  Type.Object(
    {
      batch_mode: Type.Literal(true),
      total_count: Type.Integer({ description: 'Number of files' }),
      completed_count: Type.Optional(Type.Integer()),
      failed_count: Type.Optional(Type.Integer({ description: 'Failed files (a cancelled file counts as failed)' })),
      processing_count: Type.Optional(Type.Integer()),
      queued_count: Type.Optional(Type.Integer()),
      jobs: Type.Optional(
        Type.Array(
          Type.Object({
            job_id: Type.String({ description: 'The child job; GET /v1/transcriptions/{job_id} for segments and timings' }),
            url: Type.String({ description: 'Exactly the audio URL submitted; for a multipart file, its file name' }),
            status: Type.Union([Type.Literal('queued'), Type.Literal('processing'), Type.Literal('completed'), Type.Literal('failed')]),
            text: Type.Optional(Type.String({ description: 'Once the file is completed' })),
            progress: Type.Optional(ProgressSchema),
          }),
          { description: 'One entry per submitted file, in submission order' },
        ),
      ),
    },
    { description: 'metadata of a batch parent; the counts and jobs are absent in the creation response' },
  ),
);

export const TranscriptionJobSchema = named(
  'TranscriptionJob',
  Type.Object({
    id: Type.String(),
    object: Type.Literal('transcription'),
    status: JobStatusSchema,
    language: Type.String({ description: 'The job language; for auto, the detected language once known' }),
    text: Nullable(Type.String()),
    segments: Nullable(Type.Array(SegmentSchema)),
    speakers: Nullable(SpeakersSchema),
    warnings: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Only on jobs that asked for diarization: messages such as a failed diarization (the job then completes without speakers)',
      }),
    ),
    progress: Nullable(ProgressSchema),
    duration_seconds: Nullable(Type.Number()),
    processing_time_seconds: Nullable(Type.Number()),
    error: Nullable(JobErrorSchema),
    metadata: Nullable(Type.Union([JobMetadataSchema, BatchMetadataSchema])),
    created_at: Type.String({ format: 'date-time' }),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
    result_url: Nullable(Type.String()),
    audio_url: Nullable(Type.String()),
    audio_download_url: Type.Optional(Nullable(Type.String())),
    url: Type.String({ description: 'Relative path /v1/transcriptions/<job_id>' }),
  }),
);

export const TranscriptionListSchema = cursorListSchema('TranscriptionList', TranscriptionJobSchema);

const LanguageField = Type.String({ description: 'am, om, ti or auto (language detection)', examples: ['am'] });
const ModeField = Type.Union([Type.Literal('async'), Type.Literal('sync')], {
  default: 'async',
  description: 'sync waits up to SYNC_WAIT_SECONDS for the result and may still answer queued or processing',
});
const ModelField = Type.String({ description: 'A model of the given language; needs an explicit language (not auto)' });
const CHANNELS_DESCRIPTION =
  '2: a stereo call recording with one speaker per channel (extension): each channel is transcribed on its own, segments carry `channel` and `speaker` and are merged in time order, `text` is one `speaker: text` line per change of speaker; a file with one channel is refused (400 invalid_field_value, param channels). Default 1 (channels mixed).';
const ChannelNamesField = Type.String({ description: 'channels=2: the two speaker names, comma-separated (letters, digits, _ . -); default agent,customer' });

export const CreateTranscriptionJson = Type.Object({
  audio_url: Type.String({ minLength: 1, description: 'http(s) URL of the audio, or a file_url / svc:// URI from the upload endpoints' }),
  language: LanguageField,
  mode: Type.Optional(ModeField),
  model: Type.Optional(ModelField),
  channels: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2)], { description: CHANNELS_DESCRIPTION })),
  channel_names: Type.Optional(ChannelNamesField),
  diarize: Type.Optional(DiarizeField),
  diarization_config: Type.Optional(DiarizationConfigSchema),
  keyterms: Type.Optional(KeytermsJsonField),
});

const MultipartChannelsField = Type.Union([Type.Literal('1'), Type.Literal('2')], { description: CHANNELS_DESCRIPTION });

/** Multipart text fields as validated after the upload (the file arrives as a stream). */
export const MultipartTranscriptionFields = Type.Object({
  language: LanguageField,
  mode: Type.Optional(ModeField),
  model: Type.Optional(ModelField),
  channels: Type.Optional(MultipartChannelsField),
  channel_names: Type.Optional(ChannelNamesField),
  diarize: Type.Optional(DiarizeMultipartField),
  diarization_config: Type.Optional(DiarizationConfigMultipartField),
});

export const CreateTranscriptionMultipart = Type.Object({
  file: Type.String({ format: 'binary', description: 'The audio: MP3, WAV, M4A, FLAC, OGG, WEBM or AAC, up to 500 MB' }),
  ...MultipartTranscriptionFields.properties,
  // Read apart from the other fields (it may be repeated): keyterm-fields.ts.
  keyterms: Type.Optional(KeytermsMultipartField),
});

export const ListTranscriptionsQuery = Type.Object({
  status_filter: Type.Optional(JobStatusSchema),
  source: Type.Optional(
    Type.Union([Type.Literal('batch'), Type.Literal('websocket')], { description: 'batch: file transcriptions; websocket: streaming sessions' }),
  ),
  cursor: Type.Optional(Type.String({ description: 'next_cursor of the previous page' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, default: 50, description: 'Page size, at most LIST_MAX_LIMIT (default 200)' })),
});

export const JobIdParams = Type.Object({ job_id: Type.String({ description: 'The job id' }) });

export const DeletedSchema = named('Deleted', Type.Object({ id: Type.String(), object: Type.String(), deleted: Type.Literal(true) }));

/**
 * The answers of a route that submits audio jobs, besides its 202: those of choosing a language and
 * model (resolveModel) and those of the Idempotency-Key header.
 */
export const AUDIO_SUBMISSION_RESPONSES = {
  404: { description: 'Not found' },
  422: {
    description: 'UNSUPPORTED_LANGUAGE (the message lists the languages, with auto) or UNSUPPORTED_MODEL (the message lists the models of the language)',
  },
  ...IDEMPOTENCY_RESPONSES,
};
