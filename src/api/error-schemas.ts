import { Type } from '@sinclair/typebox';
import { named } from '../platform/http/named-schema.js';

export const UnifiedErrorSchema = named(
  'Error',
  Type.Object(
    {
      error: Type.Object({
        type: Type.String({ description: 'Error class, e.g. invalid_request_error' }),
        code: Type.String({ description: 'Stable machine-readable code' }),
        message: Type.String(),
        param: Type.Optional(Type.String({ description: 'The offending parameter' })),
        retry_after: Type.Optional(Type.Number({ description: 'Seconds to wait (429)' })),
      }),
    },
    { description: 'Error envelope of the unified API' },
  ),
);

export const JobApiErrorSchema = named('JobApiError', Type.Object({ detail: Type.String() }, { description: 'Error envelope of the job API' }));

export const JobApiValidationErrorSchema = named(
  'JobApiValidationError',
  Type.Object({
    detail: Type.Array(
      Type.Object({
        loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
        msg: Type.String(),
        type: Type.String(),
      }),
    ),
  }),
);

export const OpenAiErrorSchema = named(
  'OpenAiError',
  Type.Object(
    {
      error: Type.Object({
        message: Type.String(),
        type: Type.String({ description: 'Error class, e.g. invalid_request_error, authentication_error, rate_limit_error, server_error' }),
        param: Type.Union([Type.String(), Type.Null()], { description: 'The offending parameter, or null' }),
        code: Type.Union([Type.String(), Type.Null()], { description: 'Stable machine-readable code (the unified API code)' }),
      }),
    },
    { description: "Error envelope of the OpenAI-compatible routes (/v1/audio/*, /v1/models), as OpenAI's API has it" },
  ),
);
