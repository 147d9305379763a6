import { Type } from '@sinclair/typebox';
import { named, Nullable } from '../../platform/http/named-schema.js';
import { DiarizationConfigSchema, DiarizeField } from '../diarization-fields.js';
import { KeytermsJobApiField } from '../keyterm-fields.js';

export const SubmitTranscribeBody = Type.Object({
  audio_urls: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, description: 'Public or pre-signed URLs; one job may hold several files' }),
  language: Type.String({ description: 'am, om, ti, or auto' }),
  diarize: Type.Optional(DiarizeField),
  diarization_config: Type.Optional(DiarizationConfigSchema),
  keyterms: Type.Optional(KeytermsJobApiField),
});

export const SubmitTranscribeResponse = named('JobSubmission', Type.Object({ job_id: Type.String(), status: Type.String(), message: Type.String() }));

export const TranscribeJobStatusSchema = named(
  'TranscribeJobStatus',
  Type.Object({
    job_id: Type.String(),
    status: Type.Union(['PENDING', 'PROCESSING', 'COMPLETED', 'PARTIAL', 'FAILED'].map((s) => Type.Literal(s))),
    transcript_urls: Nullable(Type.Array(Type.String())),
    results: Nullable(
      Type.Array(
        Type.Object({
          original_url: Type.String(),
          status: Type.String({ description: 'COMPLETED or FAILED once final; PENDING or PROCESSING before' }),
          transcript_url: Nullable(Type.String()),
          error: Nullable(Type.String()),
          processing_time: Nullable(Type.Number()),
          duration: Nullable(Type.Number()),
          num_segments: Nullable(Type.Integer()),
        }),
      ),
    ),
    error: Nullable(Type.String()),
    submitted_at: Type.String({ format: 'date-time' }),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
    processing_time: Nullable(Type.Number()),
  }),
);
