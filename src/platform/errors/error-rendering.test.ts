import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { renderError } from './error-rendering.js';

describe("renderError('openai')", () => {
  it("renders OpenAI's envelope: message, type, param (null when none) and code", () => {
    expect(renderError('openai', new ApiError('invalid_api_key'))).toEqual({
      status: 401,
      body: { error: { message: 'Invalid API key.', type: 'authentication_error', param: null, code: 'invalid_api_key' } },
      headers: {},
    });
    const field = renderError('openai', new ApiError('invalid_field_value', { message: "'temperature' must be a number from 0 to 1.", param: 'temperature' }));
    expect(field.body).toEqual({
      error: { message: "'temperature' must be a number from 0 to 1.", type: 'invalid_request_error', param: 'temperature', code: 'invalid_field_value' },
    });
  });

  it('answers 400 where the registry says 422, and keeps 413, 415, 429 (with Retry-After) and 5xx', () => {
    expect(renderError('openai', new ApiError('UNSUPPORTED_LANGUAGE')).status).toBe(400);
    expect(renderError('openai', new ApiError('validation_error')).status).toBe(400);
    expect(renderError('openai', new ApiError('payload_too_large')).status).toBe(413);
    expect(renderError('openai', new ApiError('unsupported_content_type')).status).toBe(415);
    const limited = renderError('openai', new ApiError('rate_limit_exceeded', { retryAfter: 12.2 }));
    expect(limited.status).toBe(429);
    expect(limited.headers).toEqual({ 'Retry-After': '13' });
    expect(renderError('openai', new ApiError('server_overloaded', { retryAfter: 5 })).status).toBe(503);
    expect(renderError('openai', new ApiError('internal_error')).status).toBe(500);
  });

  it('leaves the unified envelope as it was', () => {
    expect(renderError('unified', new ApiError('UNSUPPORTED_LANGUAGE')).status).toBe(422);
    expect(renderError('unified', new ApiError('invalid_api_key')).body).toEqual({
      error: { type: 'authentication_error', code: 'invalid_api_key', message: 'Invalid API key.' },
    });
  });
});
