import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ApiError, type ValidationIssue } from '../errors/api-error.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Where a value came from; names the `loc` root of job-API validation issues. */
export type InputLocation = 'body' | 'query' | 'path';

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({ allErrors: true, coerceTypes, useDefaults: true, strict: false, removeAdditional: false });
  addFormats(ajv);
  return ajv;
}

/** JSON bodies are checked as sent; query strings, paths and form fields are coerced from text. */
const strictAjv = createAjv(false);
const coercingAjv = createAjv('array' as unknown as boolean);

const cache = new WeakMap<TSchema, ValidateFunction>();
const coercingCache = new WeakMap<TSchema, ValidateFunction>();

export function compileValidator(schema: TSchema, coerce: boolean): ValidateFunction {
  const map = coerce ? coercingCache : cache;
  let fn = map.get(schema);
  if (fn === undefined) {
    fn = (coerce ? coercingAjv : strictAjv).compile(schema);
    map.set(schema, fn);
  }
  return fn;
}

/** Validates (and, for coercing locations, converts and defaults) `value` in place. */
export function validateInput<T>(schema: TSchema, value: unknown, location: InputLocation): T {
  const validate = compileValidator(schema, location !== 'body');
  if (validate(value)) return value as T;
  throw validationError(validate.errors ?? [], location);
}

/** Validates a value the server is about to send; returns problems instead of throwing. */
export function responseProblems(schema: TSchema, value: unknown): string[] {
  const validate = compileValidator(schema, false);
  if (validate(structuredClone(value))) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`.trim());
}

function fieldPath(error: ErrorObject): string[] {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String((error.params as { missingProperty: string }).missingProperty));
  if (error.keyword === 'additionalProperties') {
    parts.push(String((error.params as { additionalProperty: string }).additionalProperty));
  }
  return parts;
}

/**
 * One problem in words a client can act on: the allowed values, bounds and types are named
 * ("must be one of "async", "sync"", "must be at most 200"), never Ajv's internal wording.
 * `siblings` are the other errors of the same field (a union of literals fails once per member).
 */
function describe(error: ErrorObject, param: string, siblings: readonly ErrorObject[] = [error]): string {
  const name = param || 'body';
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `Missing required field '${param}'.`;
    case 'additionalProperties':
      return `Unknown field '${param}'.`;
    case 'enum':
    case 'const': {
      const allowed = siblings.flatMap((e) =>
        e.keyword === 'enum'
          ? ((e.params as { allowedValues: unknown[] }).allowedValues ?? [])
          : e.keyword === 'const'
            ? [(e.params as { allowedValue: unknown }).allowedValue]
            : [],
      );
      const unique = [...new Set(allowed.map((v) => JSON.stringify(v)))];
      return unique.length === 1 ? `Invalid value for '${name}': must be ${unique[0]}.` : `Invalid value for '${name}': must be one of ${unique.join(', ')}.`;
    }
    case 'type': {
      const types = [...new Set(siblings.filter((e) => e.keyword === 'type').flatMap((e) => String((e.params as { type: string }).type).split(',')))];
      return `Invalid value for '${name}': must be ${types.map(article).join(' or ')}.`;
    }
    case 'maximum':
      return `Invalid value for '${name}': must be at most ${String(p['limit'])}.`;
    case 'minimum':
      return `Invalid value for '${name}': must be at least ${String(p['limit'])}.`;
    case 'exclusiveMaximum':
      return `Invalid value for '${name}': must be less than ${String(p['limit'])}.`;
    case 'exclusiveMinimum':
      return `Invalid value for '${name}': must be greater than ${String(p['limit'])}.`;
    case 'maxLength':
      return `Invalid value for '${name}': must be at most ${String(p['limit'])} characters long.`;
    case 'minLength':
      return Number(p['limit']) === 1
        ? `Invalid value for '${name}': must not be empty.`
        : `Invalid value for '${name}': must be at least ${String(p['limit'])} characters long.`;
    case 'maxItems':
      return `Invalid value for '${name}': must hold at most ${String(p['limit'])} items.`;
    case 'minItems':
      return `Invalid value for '${name}': must hold at least ${String(p['limit'])} item${Number(p['limit']) === 1 ? '' : 's'}.`;
    case 'format':
      return `Invalid value for '${name}': must be a valid ${String(p['format'])}.`;
    case 'pattern':
      return `Invalid value for '${name}': must match the pattern ${String(p['pattern'])}.`;
    default:
      return `Invalid value for '${name}': ${error.message ?? 'invalid'}.`;
  }
}

function article(type: string): string {
  switch (type) {
    case 'integer':
      return 'an integer';
    case 'array':
      return 'an array';
    case 'object':
      return 'an object';
    case 'null':
      return 'null';
    default:
      return `a ${type}`;
  }
}

function issueType(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'missing';
    case 'additionalProperties':
      return 'extra_forbidden';
    case 'type':
      return `${String((error.params as { type: string }).type)}_type`;
    case 'enum':
      return 'enum';
    default:
      return `value_error.${error.keyword}`;
  }
}

/**
 * Converts Ajv errors to an ApiError: the first problem decides the unified envelope
 * (missing_required_field or invalid_field_value with `param`); all of them become the
 * job API's `[{loc, msg, type}]` list.
 */
export function validationError(errors: readonly ErrorObject[], location: InputLocation): ApiError {
  // Prefer the most specific error: drop "must match a schema in anyOf" style summaries.
  const useful = errors.filter((e) => !['anyOf', 'oneOf', 'if'].includes(e.keyword));
  const list = useful.length > 0 ? useful : errors;
  const siblingsOf = (e: ErrorObject): ErrorObject[] => list.filter((other) => other.instancePath === e.instancePath && other.keyword === e.keyword);
  const issues: ValidationIssue[] = list.map((e) => {
    const path = fieldPath(e);
    return { loc: [location, ...path], msg: describe(e, path.join('.'), siblingsOf(e)), type: issueType(e) };
  });
  const first = list[0];
  if (first === undefined) return new ApiError('invalid_field_value', { issues });
  const param = fieldPath(first).join('.');
  // Bodies: 400 with the field's code; query strings and paths: 422 validation_error.
  const code = location !== 'body' ? 'validation_error' : first.keyword === 'required' ? 'missing_required_field' : 'invalid_field_value';
  return new ApiError(code, { message: describe(first, param, siblingsOf(first)), ...(param ? { param } : {}), issues });
}
