import { Type } from '@sinclair/typebox';
import { named } from '../../platform/http/named-schema.js';
import { TranscriptionJobSchema } from '../transcriptions/transcription-schemas.js';
import { DiarizationConfigMultipartField, DiarizationConfigSchema, DiarizeField, DiarizeMultipartField } from '../diarization-fields.js';
import { KeytermsJsonField, KeytermsMultipartField } from '../keyterm-fields.js';

const LanguageField = Type.String({ description: 'am, om, ti or auto; default DEFAULT_LANGUAGE', examples: ['am'] });
const ModelField = Type.String({ description: 'A model of the given language (applies to every file); needs an explicit language' });

export const CreateBatchJson = Type.Object({
  audio_urls: Type.Array(Type.String({ minLength: 1, maxLength: 8192 }), {
    minItems: 1,
    description: 'One URL per file: https:// URLs, svc://media/<file_id> URIs or file_urls of uploads; at most BATCH_MAX_FILES (100)',
  }),
  language: Type.Optional(LanguageField),
  model: Type.Optional(ModelField),
  diarize: Type.Optional(DiarizeField),
  diarization_config: Type.Optional(DiarizationConfigSchema),
  keyterms: Type.Optional(KeytermsJsonField),
});

export const CreateBatchMultipart = Type.Object({
  files: Type.Array(Type.String({ format: 'binary' }), { description: 'One part named `files` per audio file; at most BATCH_MAX_FILES (100)' }),
  language: Type.Optional(LanguageField),
  model: Type.Optional(ModelField),
  diarize: Type.Optional(DiarizeMultipartField),
  diarization_config: Type.Optional(DiarizationConfigMultipartField),
  keyterms: Type.Optional(KeytermsMultipartField),
});

/** Multipart text fields, validated once the files are stored. */
export const BatchMultipartFields = Type.Object({
  language: Type.Optional(LanguageField),
  model: Type.Optional(ModelField),
  diarize: Type.Optional(DiarizeMultipartField),
  diarization_config: Type.Optional(DiarizationConfigMultipartField),
});

export const BatchCreatedSchema = named(
  'BatchCreated',
  Type.Object(
    {
      ...TranscriptionJobSchema.properties,
      status: Type.Literal('queued'),
      metadata: Type.Object({ batch_mode: Type.Literal(true), total_count: Type.Integer() }, { additionalProperties: false }),
    },
    { description: 'The batch parent as created: no batch_id, no top-level jobs; poll GET /v1/transcriptions/{id}' },
  ),
);
