import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import type { ApiError } from '../errors/api-error.js';
import { validateInput } from './schema-validation.js';

const Body = Type.Object({
  mode: Type.Optional(Type.Union([Type.Literal('async'), Type.Literal('sync')])),
  kind: Type.Optional(Type.Literal('x')),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 5 })),
  url: Type.Optional(Type.String({ format: 'uri' })),
  items: Type.Optional(Type.Array(Type.String(), { maxItems: 2 })),
  maybe: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});

function messageFor(value: unknown, where: 'body' | 'query' = 'body'): { message: string; code: string } {
  try {
    validateInput(Body, value, where);
  } catch (error) {
    return { message: (error as ApiError).message, code: (error as ApiError).code };
  }
  throw new Error('no validation error');
}

describe('validation messages name what is allowed', () => {
  it.each([
    [{ mode: 'fast' }, `Invalid value for 'mode': must be one of "async", "sync".`],
    [{ kind: 'y' }, `Invalid value for 'kind': must be "x".`],
    [{ limit: 500 }, `Invalid value for 'limit': must be at most 200.`],
    [{ limit: 0 }, `Invalid value for 'limit': must be at least 1.`],
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
    expect(messageFor({ limit: '500' }, 'query')).toEqual({ code: 'validation_error', message: `Invalid value for 'limit': must be at most 200.` });
  });
});
