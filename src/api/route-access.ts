// Who may call a route, spread into its definition (`...BEARER_READ`): the surface its errors
// take, how the caller's key travels (see AuthMode) and the scope the key needs.

/** Unified API, `Authorization: Bearer` keys. */
export const BEARER_READ = { surface: 'unified', auth: 'bearer', scope: 'read' } as const;
export const BEARER_WRITE = { surface: 'unified', auth: 'bearer', scope: 'write' } as const;
/** Admin scope; left out of /openapi.json, /llms.txt and the root listing. */
export const BEARER_ADMIN = { surface: 'unified', auth: 'bearer', scope: 'admin', hidden: true } as const;

/** Job API, `X-API-Key` keys. */
export const JOB_KEY_READ = { surface: 'job', auth: 'x-api-key', scope: 'read' } as const;
export const JOB_KEY_WRITE = { surface: 'job', auth: 'x-api-key', scope: 'write' } as const;

/** OpenAI-compatible routes (`/v1/audio/*`, `/v1/models`): bearer keys, errors in OpenAI's envelope. */
export const OPENAI_READ = { surface: 'openai', auth: 'bearer', scope: 'read' } as const;
export const OPENAI_WRITE = { surface: 'openai', auth: 'bearer', scope: 'write' } as const;

/** The text translation form: the key is its field `key`. */
export const FORM_KEY_READ = { surface: 'unified', auth: 'form-key', scope: 'read' } as const;

/** No key. */
export const PUBLIC = { surface: 'unified', auth: 'none' } as const;
/** Signed links: the URL carries its own signature, which the handler checks. */
export const SIGNED = { surface: 'unified', auth: 'signed' } as const;
export const JOB_SIGNED = { surface: 'job', auth: 'signed' } as const;
