import { describe, expect, it } from 'vitest';
import { asApiError } from './api-error.js';
import { renderError } from './error-rendering.js';

/** An engine error as src/engines/runtime/engine-error.ts throws it (platform does not import engines). */
const engineError = (kind: string, message: string, param?: string): Error => Object.assign(new Error(message), { engineError: kind, param });

describe('asApiError', () => {
  it('an untranslatable sentence is 400 untranslatable_text on text, with the message naming it, not retryable', () => {
    const message = 'The sentence ("ok ok ok") could not be translated from en to am: every output of the model degenerated.';
    const api = asApiError(engineError('untranslatable', message, 'text'));
    expect(api?.code).toBe('untranslatable_text');
    const rendered = renderError('unified', api!);
    expect(rendered.status).toBe(400);
    expect(rendered.body).toEqual({ error: { type: 'invalid_request_error', code: 'untranslatable_text', message, param: 'text' } });
    expect(rendered.headers).toEqual({});
  });

  it('leaves values that are not engine errors to the caller', () => {
    expect(asApiError(new Error('boom'))).toBeNull();
    expect(asApiError(engineError('no_such_kind', 'x'))).toBeNull();
  });
});
