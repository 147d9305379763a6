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
  const parts = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String((error.params as { missingProperty: string }).missingProperty));
  if (error.keyword === 'additionalProperties') {
    parts.push(String((error.params as { additionalProperty: string }).additionalProperty));
  }
  return parts;
}

function describe(error: ErrorObject, param: string): string {
  switch (error.keyword) {
    case 'required':
      return `Missing required field '${param}'.`;
    case 'additionalProperties':
      return `Unknown field '${param}'.`;
    case 'enum': {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      return `Invalid value for '${param}': must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}.`;
    }
    default:
      return `Invalid value for '${param || 'body'}': ${error.message ?? 'invalid'}.`;
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
  const issues: ValidationIssue[] = list.map((e) => {
    const path = fieldPath(e);
    return { loc: [location, ...path], msg: describe(e, path.join('.')), type: issueType(e) };
  });
  const first = list[0];
  if (first === undefined) return new ApiError('invalid_field_value', { issues });
  const param = fieldPath(first).join('.');
  // Bodies: 400 with the field's code; query strings and paths: 422 validation_error.
  const code = location !== 'body' ? 'validation_error' : first.keyword === 'required' ? 'missing_required_field' : 'invalid_field_value';
  return new ApiError(code, { message: describe(first, param), ...(param ? { param } : {}), issues });
}
