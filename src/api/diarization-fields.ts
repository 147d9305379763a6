// The request fields that switch speaker diarization on, shared by the job API (`POST /transcribe`,
// where the spec defines them) and the unified API (`POST /v1/transcriptions` and batches, where
// they are this gateway's documented extension). docs/diarization.md describes the behaviour.
import { Type } from '@sinclair/typebox';
import { ApiError } from '../platform/errors/api-error.js';
import { named } from '../platform/http/named-schema.js';
import { validateInput } from '../platform/http/schema-validation.js';
import type { DiarizationConfig } from '../jobs/job-diarization.js';

const SpeakerBound = (which: string) =>
  Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 20 }), Type.Null()], {
      description: `${which} number of speakers, 1 to 20; omit or null to detect it`,
    }),
  );

export const DiarizationConfigSchema = named(
  'DiarizationConfig',
  Type.Object(
    {
      backend: Type.Optional(
        Type.Union([Type.Literal('backend_a'), Type.Literal('backend_b')], {
          default: 'backend_a',
          description:
            'backend_a: conversations and interviews (fine windows); backend_b: long-form audio and batch at scale (coarse windows, two-stage clustering)',
        }),
      ),
      min_speakers: SpeakerBound('Least'),
      max_speakers: SpeakerBound('Most'),
    },
    { additionalProperties: false, description: 'Speaker diarization settings; min_speakers must not exceed max_speakers' },
  ),
);

export const DiarizeField = Type.Boolean({
  default: false,
  description: 'Speaker diarization: segments get `speaker` (SPEAKER_NN by first appearance, null on non-speech) and the job `speakers: {count, labels}`',
});

/** Multipart text fields: `diarize` as `true`/`false`, `diarization_config` as a JSON object. */
export const DiarizeMultipartField = Type.Union([Type.Literal('true'), Type.Literal('false')], {
  description: 'true: speaker diarization (see the JSON form)',
});
export const DiarizationConfigMultipartField = Type.String({ description: 'diarization_config as JSON, e.g. {"min_speakers":2,"max_speakers":4}' });

/** Whether both bounds are set and out of order. */
export const boundsInverted = (config: DiarizationConfig | undefined): boolean =>
  config?.min_speakers != null && config.max_speakers != null && config.min_speakers > config.max_speakers;

/** The unified API's check of a (JSON) diarization_config: 400 invalid_field_value when min exceeds max. */
export function checkDiarizationConfig(config: DiarizationConfig | undefined): void {
  if (boundsInverted(config)) {
    throw new ApiError('invalid_field_value', { message: 'diarization_config.min_speakers must not exceed max_speakers.', param: 'diarization_config' });
  }
}

/** Reads the multipart forms of the diarization fields (already checked against their schemas) into the JSON forms. */
export function multipartDiarization(fields: { diarize?: string; diarization_config?: string }): { diarize: boolean; config: DiarizationConfig | undefined } {
  let config: DiarizationConfig | undefined;
  if (fields.diarization_config !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(fields.diarization_config);
    } catch {
      throw new ApiError('invalid_field_value', { message: 'diarization_config must be a JSON object.', param: 'diarization_config' });
    }
    config = validateInput<DiarizationConfig>(DiarizationConfigSchema, parsed, 'body');
    checkDiarizationConfig(config);
  }
  return { diarize: fields.diarize === 'true', config };
}

/** `{count, labels}` of a diarized job. */
export const SpeakersSchema = named(
  'Speakers',
  Type.Object({
    count: Type.Integer({ minimum: 0, description: 'Number of speakers found' }),
    labels: Type.Array(Type.String(), { description: 'SPEAKER_00, SPEAKER_01, ... in order of first appearance' }),
  }),
);
