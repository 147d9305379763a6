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
