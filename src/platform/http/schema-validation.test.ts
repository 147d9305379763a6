import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../errors/api-error.js';
import { rangeMessage, validateInput } from './schema-validation.js';

const Body = Type.Object({
  mode: Type.Optional(Type.Union([Type.Literal('async'), Type.Literal('sync')])),
  kind: Type.Optional(Type.Literal('x')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 5 })),
  url: Type.Optional(Type.String({ format: 'uri' })),
  items: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  maybe: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  speakers: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 20 }), Type.Null()])),
  floor: Type.Optional(Type.Integer({ minimum: 1 })),
  ttl: Type.Optional(Type.Integer({ minimum: 1, maximum: 604_800, 'x-unit': 'seconds' })),
  pace: Type.Optional(Type.Union([Type.Literal('slow'), Type.Literal('fast'), Type.Null()])),
});

function errorFor(value: unknown, where: 'body' | 'query' = 'body'): ApiError {
  try {
    validateInput(Body, value, where);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('no validation error');
}

function messageFor(value: unknown, where: 'body' | 'query' = 'body'): { message: string; code: string } {
  const error = errorFor(value, where);
  return { message: error.message, code: error.code };
}

describe('validation messages name what is allowed', () => {
  it.each([
    [{ mode: 'fast' }, `Invalid value for 'mode': must be one of "async", "sync".`],
    [{ kind: 'y' }, `Invalid value for 'kind': must be "x".`],
    [{ limit: 500 }, `Invalid value for 'limit': must be between 1 and 200.`],
    [{ limit: 0 }, `Invalid value for 'limit': must be between 1 and 200.`],
    [{ floor: 0 }, `Invalid value for 'floor': must be at least 1.`],
    [{ ttl: 0 }, `Invalid value for 'ttl': must be between 1 and 604800 seconds (7 days).`],
    [{ ttl: 2_592_000 }, `Invalid value for 'ttl': must be between 1 and 604800 seconds (7 days).`],
    [{ speakers: 0 }, `Invalid value for 'speakers': must be between 1 and 20.`],
    [{ speakers: 'two' }, `Invalid value for 'speakers': must be an integer or null.`],
    [{ pace: 'medium' }, `Invalid value for 'pace': must be one of "slow", "fast", null.`],
    [{ limit: 1.5 }, `Invalid value for 'limit': must be an integer.`],
    [{ name: '' }, `Invalid value for 'name': must not be empty.`],
    [{ name: 'toolong' }, `Invalid value for 'name': must be at most 5 characters long.`],
    [{ url: 'not a url' }, `Invalid value for 'url': must be a valid uri.`],
    [{ items: ['a', 'b', 'c'] }, `Invalid value for 'items': must hold at most 2 items.`],
    [{ maybe: 3 }, `Invalid value for 'maybe': must be a string or null.`],
  ])('%j → %s', (value, expected) => {
    expect(messageFor(value).message).toBe(expected);
  });

  it('body problems are 400 (field codes), query problems 422 validation_error', () => {
    expect(messageFor({ mode: 'fast' }, 'body').code).toBe('invalid_field_value');
    expect(messageFor({ limit: '500' }, 'query')).toEqual({ code: 'validation_error', message: `Invalid value for 'limit': must be between 1 and 200.` });
  });

  it('one message per field, however many members of a union it failed; every field listed once', () => {
    const error = errorFor({ speakers: 0, maybe: 3, pace: 'medium', mode: 'fast' });
    expect(error.issues).toEqual([
      { loc: ['body', 'mode'], msg: `Invalid value for 'mode': must be one of "async", "sync".`, type: 'value_error.const' },
      { loc: ['body', 'maybe'], msg: `Invalid value for 'maybe': must be a string or null.`, type: 'string_type' },
      { loc: ['body', 'speakers'], msg: `Invalid value for 'speakers': must be between 1 and 20.`, type: 'value_error.minimum' },
      { loc: ['body', 'pace'], msg: `Invalid value for 'pace': must be one of "slow", "fast", null.`, type: 'value_error.const' },
    ]);
    expect(error.message).toBe(error.issues![0]!.msg);
  });

  it('words a range the same whoever checks it (rangeMessage, for limits from the configuration)', () => {
    expect(rangeMessage('expires_in', { min: 1, max: 604_800, unit: 'seconds' })).toBe(
      `Invalid value for 'expires_in': must be between 1 and 604800 seconds (7 days).`,
    );
    expect(rangeMessage('limit', { min: 1, max: 200 })).toBe(errorFor({ limit: 201 }).message);
    expect(rangeMessage('wait', { min: 1, max: 3_600, unit: 'seconds' })).toBe(`Invalid value for 'wait': must be between 1 and 3600 seconds (1 hour).`);
    expect(rangeMessage('n', { max: 90, unit: 'seconds' })).toBe(`Invalid value for 'n': must be at most 90 seconds.`);
  });
});
