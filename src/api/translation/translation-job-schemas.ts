import { Type } from '@sinclair/typebox';
import { named, Nullable } from '../../platform/http/named-schema.js';
import { TRANSLATION_LANGUAGES } from '../../engines/translation/translation.js';

const Language = Type.Union(TRANSLATION_LANGUAGES.map((l) => Type.Literal(l)));
const Status = Type.Union(['PENDING', 'PROCESSING', 'COMPLETED', 'PARTIAL', 'FAILED'].map((s) => Type.Literal(s)));

export const SubmitTranslateBody = Type.Object({
  source_language: Type.Union(
    TRANSLATION_LANGUAGES.map((l) => Type.Literal(l)),
    { description: 'am, en or ti' },
  ),
  target_languages: Type.Array(Language, { minItems: 1, maxItems: 5, description: '1 to 5 distinct codes, each different from source_language' }),
  input_config: Type.Object({
    type: Type.Literal('BLOB_STORAGE', { description: 'only BLOB_STORAGE' }),
    uris: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
      minItems: 1,
      maxItems: 100,
      description: '1 to 100 https:// URLs (signed URLs allowed) or svc:// URIs of plain text (.txt) or transcript JSON',
    }),
  }),
  output_config: Type.Object({
    destination_uri: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'svc://<prefix>, s3://<bucket>/<prefix> (FILES_BACKEND=s3) or an https:// prefix receiving one PUT per output',
    }),
  }),
  callback_url: Type.Optional(
    Type.String({ minLength: 1, maxLength: 2048, description: 'https:// URL POSTed the final job payload once the job leaves PROCESSING' }),
  ),
  callback_secret: Type.Optional(
    Type.String({ minLength: 16, maxLength: 256, description: 'signs the callback with X-Webhook-Signature (t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">)' }),
  ),
});

export const SubmitTranslateResponse = named('TranslationJobSubmission', Type.Object({ job_id: Type.String(), status: Type.String(), message: Type.String() }));

export const TranslationJobStatusSchema = named(
  'TranslationJobStatus',
  Type.Object({
    job_id: Type.String(),
    status: Status,
    created_at: Type.String({ format: 'date-time' }),
    completed_at: Nullable(Type.String({ format: 'date-time' })),
    expires_at: Type.String({
      format: 'date-time',
      description: 'when the job metadata is removed once final (TRANSLATION_JOB_EXPIRY_HOURS after submission)',
    }),
    progress: Type.Object({ total_units: Type.Integer(), completed_units: Type.Integer(), failed_units: Type.Integer() }),
  }),
);

export const TranslationResultsSchema = named(
  'TranslationResults',
  Type.Object({
    job_id: Type.String(),
    summary: Type.Object({ status: Status, total_characters: Type.Integer(), success_count: Type.Integer(), failure_count: Type.Integer() }),
    outputs: Type.Array(
      Type.Object({
        source_uri: Type.String(),
        target_uri: Nullable(Type.String({ description: 'signed URL, fetched without a credential (TRANSLATION_OUTPUT_URL_TTL_SECONDS)' })),
        target_language: Type.String(),
        status: Type.Union([Type.Literal('COMPLETED'), Type.Literal('FAILED')]),
        error: Nullable(
          Type.Object({
            code: Type.Union(['DOWNLOAD_ERROR', 'UNSUPPORTED_FORMAT', 'TRANSLATION_ERROR', 'UPLOAD_ERROR', 'INTERNAL_ERROR'].map((c) => Type.Literal(c))),
            message: Type.String(),
          }),
        ),
      }),
    ),
  }),
);
