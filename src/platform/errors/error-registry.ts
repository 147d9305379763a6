/**
 * The one error registry. Every error a client can see has a code here, mapped to its HTTP
 * status, `type`, default message and (where one applies) WebSocket close code. The job API
 * (X-API-Key) renders the same codes as `{detail}` with its own status and wording where the
 * spec quotes them.
 */
export interface ErrorDefinition {
  readonly status: number;
  readonly type: string;
  readonly message: string;
  /** Close code when the error ends a WebSocket session. */
  readonly wsClose?: number;
  /** Job API (`X-API-Key`) rendering, when it differs from the unified one. */
  readonly jobApi?: { readonly status?: number; readonly detail?: string };
}

const define = <K extends string>(registry: Record<K, ErrorDefinition>): Record<K, ErrorDefinition> => registry;

export const ERROR_REGISTRY = define({
  // 200: per-unit errors of file translation (`outputs[].error` of GET /translate/{job_id}/results; never an HTTP status)
  DOWNLOAD_ERROR: {
    status: 200,
    type: 'translation_unit_error',
    message: 'The source could not be fetched (HTTP error, unreachable, refused by the outbound guard, too large).',
  },
  UNSUPPORTED_FORMAT: {
    status: 200,
    type: 'translation_unit_error',
    message: 'The source is not valid UTF-8 text, or a .json source is not transcript JSON (a "segments" array of objects with "text").',
  },
  TRANSLATION_ERROR: {
    status: 200,
    type: 'translation_unit_error',
    message:
      'The translation engine failed on this unit 4 times (the attempt and 3 retries), a sentence of it could not be translated without a degenerate output (no retry: the same model fails it again), or none is configured.',
  },
  UPLOAD_ERROR: { status: 200, type: 'translation_unit_error', message: 'The output could not be written to the destination.' },
  INTERNAL_ERROR: {
    status: 200,
    type: 'translation_unit_error',
    message: 'An unexpected error stopped the unit, or the job ended before it ran (e.g. interrupted by server restarts twice).',
  },
  // 400
  missing_required_field: { status: 400, type: 'invalid_request_error', message: 'A required field is missing.' },
  invalid_field_value: { status: 400, type: 'invalid_request_error', message: 'A field has an invalid value.', wsClose: 1008 },
  untranslatable_text: {
    status: 400,
    type: 'invalid_request_error',
    message:
      'A sentence of the text could not be translated: every output of the translation model for it degenerated (a loop, or far longer than the sentence). Retrying the same text fails again; rephrase or shorten the sentence.',
  },
  invalid_audio_format: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The audio could not be decoded. Supported formats: MP3, WAV, M4A, FLAC, OGG, WEBM, AAC.',
  },
  file_too_large: { status: 400, type: 'invalid_request_error', message: 'The audio file exceeds the size limit.' },
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  invalid_url: { status: 400, type: 'invalid_request_error', message: 'The URL is malformed or not http(s).' },
  INVALID_FIELD: { status: 400, type: 'invalid_request_error', message: 'A field combination is not allowed.', wsClose: 1008 },
  invalid_multipart: { status: 400, type: 'invalid_request_error', message: 'The multipart body could not be parsed.' },
  audio_download_failed: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The audio URL could not be downloaded.',
  },
  batch_failed: {
    status: 400,
    type: 'invalid_request_error',
    message: 'No file of the batch could be transcribed.',
  },
  url_not_allowed: {
    status: 400,
    type: 'invalid_request_error',
    message:
      'The URL resolves to a private, loopback or link-local address, which this server does not fetch (a server allows them for local testing with ALLOW_PRIVATE_NETWORK=true or OUTBOUND_ALLOWED_CIDRS).',
  },
  // 401
  missing_api_key: {
    status: 401,
    type: 'authentication_error',
    message: 'Missing API key. Send it as "Authorization: Bearer <API_KEY>".',
    wsClose: 4001,
    jobApi: { status: 401, detail: 'Missing API Key. Include X-API-Key header.' },
  },
  invalid_api_key: {
    status: 401,
    type: 'authentication_error',
    message: 'Invalid API key.',
    wsClose: 4003,
    jobApi: { status: 403, detail: 'Invalid API Key.' },
  },
  expired_api_key: {
    status: 401,
    type: 'authentication_error',
    message: 'The API key has expired.',
    wsClose: 4003,
    jobApi: { status: 403, detail: 'Invalid API Key.' },
  },
  revoked_api_key: {
    status: 401,
    type: 'authentication_error',
    message: 'The API key has been revoked.',
    wsClose: 4003,
    jobApi: { status: 403, detail: 'API Key has been deactivated.' },
  },
  invalid_signature: {
    status: 403,
    type: 'permission_error',
    message: 'The signed URL is invalid or has been altered.',
  },
  expired_signature: { status: 403, type: 'permission_error', message: 'The signed URL has expired.' },
  // 403
  insufficient_scope: {
    status: 403,
    type: 'permission_error',
    message: 'The API key lacks the scope this endpoint requires.',
    wsClose: 4003,
    jobApi: { status: 403, detail: 'API Key lacks the required scope.' },
  },
  admin_required: {
    status: 403,
    type: 'permission_error',
    message: 'This endpoint requires an API key with the admin scope.',
    wsClose: 4003,
    jobApi: { status: 403, detail: 'Admin access required' },
  },
  ip_not_allowed: {
    status: 403,
    type: 'permission_error',
    message: 'Requests from this IP address are not allowed for this API key.',
    wsClose: 4003,
    jobApi: { status: 403, detail: 'IP address not allowed for this API Key.' },
  },
  origin_not_allowed: {
    status: 403,
    type: 'permission_error',
    message: 'Requests from this origin are not allowed for this API key.',
    wsClose: 4003,
    jobApi: { status: 403, detail: 'Origin not allowed for this API Key.' },
  },
  media_unavailable: {
    status: 403,
    type: 'permission_error',
    message: 'The media is private, region-blocked or requires sign-in.',
  },
  // 404
  job_not_found: { status: 404, type: 'not_found_error', message: 'Job not found.', jobApi: { detail: 'Job not found' } },
  webhook_not_found: { status: 404, type: 'not_found_error', message: 'Webhook not found.' },
  resource_not_found: { status: 404, type: 'not_found_error', message: 'Resource not found.', jobApi: { detail: 'Not Found' } },
  media_not_found: { status: 404, type: 'not_found_error', message: 'The media URL answered 404 Not Found.' },
  file_not_found: { status: 404, type: 'not_found_error', message: 'No uploaded file with this id.' },
  // 405, 409, 413, 415
  method_not_allowed: {
    status: 405,
    type: 'invalid_request_error',
    message: 'Method not allowed on this path.',
    jobApi: { detail: 'Method Not Allowed' },
  },
  job_not_cancellable: {
    status: 409,
    type: 'conflict_error',
    message: 'The job cannot be cancelled: it has already completed or failed.',
  },
  job_not_completed: { status: 409, type: 'conflict_error', message: 'The job has not completed yet.' },
  upload_not_complete: {
    status: 409,
    type: 'conflict_error',
    message: "The file's bytes have not been uploaded yet: PUT them to the signed upload_url first.",
  },
  upload_finalized: {
    status: 409,
    type: 'conflict_error',
    message: 'The upload is finalized as a media asset; its bytes can no longer be replaced.',
  },
  idempotency_key_in_use: {
    status: 409,
    type: 'idempotency_error',
    message: 'Another request with this Idempotency-Key is still being processed; retry it in a few seconds.',
  },
  job_in_progress: {
    status: 409,
    type: 'conflict_error',
    message: 'The operation is not allowed while the job is in progress.',
    jobApi: { detail: 'Job is still in progress' },
  },
  upgrade_required: {
    status: 426,
    type: 'invalid_request_error',
    message: 'This endpoint is a WebSocket: connect with an Upgrade: websocket request.',
  },
  payload_too_large: {
    status: 413,
    type: 'invalid_request_error',
    message: 'The request body or file exceeds the size limit.',
    wsClose: 1009,
  },
  uri_too_long: {
    status: 414,
    type: 'invalid_request_error',
    message: 'The request URL is too long.',
  },
  unsupported_content_type: {
    status: 415,
    type: 'invalid_request_error',
    message: 'Unsupported Content-Type for this endpoint.',
  },
  // 422
  validation_error: { status: 422, type: 'invalid_request_error', message: 'The request failed validation.' },
  UNSUPPORTED_LANGUAGE: { status: 422, type: 'invalid_request_error', message: 'The language is not supported.', wsClose: 1008 },
  UNSUPPORTED_MODEL: { status: 422, type: 'invalid_request_error', message: 'The model is not available for this language.', wsClose: 1008 },
  unsupported_media: {
    status: 422,
    type: 'invalid_request_error',
    message: 'The URL is not audio or video that this server can probe.',
  },
  idempotency_key_reused: {
    status: 422,
    type: 'idempotency_error',
    message: 'This Idempotency-Key was already used with a different request (another endpoint or body) within 24 hours; use a new key for a new request.',
  },
  // 429
  rate_limit_exceeded: { status: 429, type: 'rate_limit_error', message: 'Rate limit exceeded.', wsClose: 4029 },
  concurrent_limit_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many concurrent jobs for this API key.',
    wsClose: 4029,
  },
  daily_quota_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: 'The daily audio minutes quota of this API key is used up.',
    wsClose: 4029,
  },
  connection_limit_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many concurrent WebSocket connections for this API key.',
    wsClose: 4029,
  },
  // WebSocket-only conditions (status used if ever rendered over HTTP)
  message_rate_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many WebSocket messages per second on this connection.',
    wsClose: 4029,
  },
  audio_rate_exceeded: {
    status: 429,
    type: 'rate_limit_error',
    message: 'Too many audio bytes per second on this connection.',
    wsClose: 4029,
  },
  message_too_large: {
    status: 413,
    type: 'invalid_request_error',
    message: 'A WebSocket message exceeds the per-message size limit.',
    wsClose: 1009,
  },
  session_duration_exceeded: {
    status: 408,
    type: 'invalid_request_error',
    message: 'The WebSocket session reached its maximum duration.',
    wsClose: 1000,
  },
  idle_timeout: {
    status: 408,
    type: 'invalid_request_error',
    message: 'The WebSocket session was idle for too long.',
    wsClose: 1000,
  },
  slow_consumer: {
    status: 429,
    type: 'rate_limit_error',
    message: 'The client does not read server messages fast enough.',
    wsClose: 1008,
  },
  invalid_command: {
    status: 400,
    type: 'invalid_request_error',
    message: 'Unknown WebSocket command. Commands: FORMAT:<format>, TRANSCRIBE, END, CLEAR, PING.',
  },
  invalid_frame_payload: {
    status: 400,
    type: 'invalid_request_error',
    message: 'A WebSocket text message is not valid UTF-8.',
    wsClose: 1007,
  },
  invalid_audio_data: {
    status: 400,
    type: 'invalid_request_error',
    message: 'The audio message could not be decoded in the session format.',
  },
  invalid_session_token: {
    status: 401,
    type: 'authentication_error',
    message: 'The WebSocket session token is invalid, expired or already used.',
    wsClose: 4003,
  },
  resume_token_invalid: {
    status: 404,
    type: 'not_found_error',
    message: 'The resume token is unknown, or its session has ended (finished, or its resume window passed). Start a new session.',
    wsClose: 4004,
  },
  resume_token_forbidden: {
    status: 403,
    type: 'permission_error',
    message: 'The resume token belongs to a session of another API key.',
    wsClose: 4003,
  },
  resume_offset_unavailable: {
    status: 409,
    type: 'conflict_error',
    message: 'resume_from_bytes is beyond the audio the server holds for this session.',
    wsClose: 1008,
  },
  session_resumed_elsewhere: {
    status: 409,
    type: 'conflict_error',
    message: 'The session was resumed on a newer connection.',
    wsClose: 4009,
  },
  buffer_limit_exceeded: {
    status: 413,
    type: 'invalid_request_error',
    message: 'The audio buffer limit of this session was exceeded.',
    wsClose: 1009,
  },
  // 500, 502, 504
  internal_error: { status: 500, type: 'server_error', message: 'Internal server error.' },
  service_unavailable: {
    status: 500,
    type: 'server_error',
    message: 'The service is temporarily unavailable. Retry with exponential backoff.',
  },
  // 503: this gateway is past its capacity (graceful overload); retry after `retry_after` seconds.
  server_overloaded: {
    status: 503,
    type: 'server_error',
    message: 'The server is at capacity. Try again later.',
    wsClose: 1013,
  },
  model_error: { status: 500, type: 'server_error', message: 'The speech model failed to process the audio.' },
  upstream_error: { status: 502, type: 'api_error', message: 'The upstream media service failed.' },
  probe_timeout: { status: 504, type: 'api_error', message: 'The media probe exceeded its time window.' },
});

export type ErrorCode = keyof typeof ERROR_REGISTRY;

export function errorDefinition(code: ErrorCode): ErrorDefinition {
  return ERROR_REGISTRY[code];
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_REGISTRY, value);
}

/**
 * What each engine error means to a client: the engines (src/engines) throw EngineError with one
 * of these kinds and never an HTTP code; the API, job and WebSocket layers map the kind to the
 * registry code through this one table (asApiError in api-error.ts).
 */
export const ENGINE_ERROR_CODES = {
  /** The audio is not decodable, or not in a supported container. */
  invalid_audio: 'invalid_audio_format',
  /** The audio file is over the size limit (`limit` says which). */
  audio_too_large: 'file_too_large',
  /** A request value the engine cannot serve (a channel count, a language pair, ...); `param` names it. */
  invalid_value: 'invalid_field_value',
  /** A model named together with `language=auto`. */
  model_with_auto: 'INVALID_FIELD',
  unsupported_model: 'UNSUPPORTED_MODEL',
  unsupported_language: 'UNSUPPORTED_LANGUAGE',
  /** The engine's queue is full or it is shutting down, or an optional part (Silero) cannot start. */
  unavailable: 'service_unavailable',
  /** The engine refuses more work for now; `retryAfterSeconds` says when to try again. */
  overloaded: 'server_overloaded',
  /** The model failed to load or run, or its worker died. */
  model_failed: 'model_error',
  /** Every guarded decoding of a sentence degenerated (translation); `param` names the text field. Not retryable. */
  untranslatable: 'untranslatable_text',
} as const satisfies Record<string, ErrorCode>;

export type EngineErrorKind = keyof typeof ENGINE_ERROR_CODES;
