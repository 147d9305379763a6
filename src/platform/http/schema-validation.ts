import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { ApiError, type ValidationIssue } from '../errors/api-error.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Where a value came from; names the `loc` root of job-API validation issues. */
export type InputLocation = 'body' | 'query' | 'path';

function createAjv(coerceTypes: boolean): Ajv {
  // verbose: errors carry their schema, so a bound's message can name the other bound too.
  const ajv = new Ajv({ allErrors: true, coerceTypes, useDefaults: true, strict: false, removeAdditional: false, verbose: true });
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

/** A duration in seconds in words, when it is a whole number of days, hours or minutes ("7 days"). */
function spokenSeconds(seconds: number): string | null {
  for (const [unit, size] of [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ] as const) {
    if (seconds >= size && seconds % size === 0) return `${seconds / size} ${unit}${seconds === size ? '' : 's'}`;
  }
  return null;
}

/**
 * The one wording of a numeric range, whichever side a value falls off and whoever checks it
 * (the schema or a configured limit): "must be between 1 and 604800 seconds (7 days)"; with one
 * bound "must be at least 1" / "must be at most 200". `unit` is the schema's `x-unit`.
 */
export function rangeMessage(name: string, bounds: { readonly min?: number; readonly max?: number; readonly unit?: string }): string {
  const { min, max, unit } = bounds;
  const withUnit = (n: number): string => {
    if (unit === undefined) return String(n);
    const spoken = unit === 'seconds' ? spokenSeconds(n) : null;
    return `${n} ${unit}${spoken !== null && spoken !== `${n} ${unit}` ? ` (${spoken})` : ''}`;
  };
  const rule =
    min !== undefined && max !== undefined
      ? `must be between ${min} and ${withUnit(max)}`
      : min !== undefined
        ? `must be at least ${withUnit(min)}`
        : `must be at most ${withUnit(max!)}`;
  return `Invalid value for '${name}': ${rule}.`;
}

/** The bounds of the numeric schema an error came from (Ajv's parentSchema, with `verbose`). */
function numericBounds(error: ErrorObject): { min?: number; max?: number; unit?: string } {
  const schema = (error.parentSchema ?? {}) as { minimum?: unknown; maximum?: unknown; 'x-unit'?: unknown };
  return {
    ...(typeof schema.minimum === 'number' ? { min: schema.minimum } : {}),
    ...(typeof schema.maximum === 'number' ? { max: schema.maximum } : {}),
    ...(typeof schema['x-unit'] === 'string' ? { unit: schema['x-unit'] } : {}),
  };
}

/**
 * One problem in words a client can act on: the allowed values, bounds and types are named
 * ("must be one of "async", "sync"", "must be between 1 and 200"), never Ajv's internal wording.
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
      // A nullable union of literals: null is allowed too.
      if (siblings.some((e) => e.keyword === 'type' && (e.params as { type: string }).type === 'null')) unique.push('null');
      return unique.length === 1 ? `Invalid value for '${name}': must be ${unique[0]}.` : `Invalid value for '${name}': must be one of ${unique.join(', ')}.`;
    }
    case 'type': {
      const types = [...new Set(siblings.filter((e) => e.keyword === 'type').flatMap((e) => String((e.params as { type: string }).type).split(',')))];
      return `Invalid value for '${name}': must be ${types.map(article).join(' or ')}.`;
    }
    case 'maximum':
    case 'minimum':
      return rangeMessage(name, numericBounds(error));
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

const TYPE_KEYWORDS = new Set(['type', 'const', 'enum']);

/**
 * The error that speaks for a field, from all of that field's errors. A union (nullable, or of
 * types) fails once per member; the member whose type the value has failed a constraint, and
 * that constraint is the message (`max_speakers: 0` → "must be between 1 and 20", not also
 * "must be null"). Without one, the allowed values (const, enum), else the allowed types,
 * merged into one message by describe().
 */
function speaker(errors: readonly ErrorObject[]): ErrorObject {
  return errors.find((e) => !TYPE_KEYWORDS.has(e.keyword)) ?? errors.find((e) => e.keyword === 'const' || e.keyword === 'enum') ?? errors[0]!;
}

/**
 * Converts Ajv errors to an ApiError with one message per field: the first field decides the
 * unified envelope (missing_required_field or invalid_field_value with `param`); every field
 * becomes one entry of the job API's `[{loc, msg, type}]` list, in the order Ajv met them.
 */
export function validationError(errors: readonly ErrorObject[], location: InputLocation): ApiError {
  // Summaries ("must match a schema in anyOf") say nothing the members' errors do not.
  const useful = errors.filter((e) => !['anyOf', 'oneOf', 'if'].includes(e.keyword));
  const list = useful.length > 0 ? useful : errors;
  const fields = new Map<string, ErrorObject[]>();
  for (const e of list) {
    const key = JSON.stringify(fieldPath(e));
    const same = fields.get(key);
    if (same === undefined) fields.set(key, [e]);
    else same.push(e);
  }
  const chosen = [...fields.values()].map((field) => {
    const e = speaker(field);
    const path = fieldPath(e);
    const siblings = field.filter((other) => other.keyword === e.keyword || (TYPE_KEYWORDS.has(e.keyword) && TYPE_KEYWORDS.has(other.keyword)));
    return { e, path, msg: describe(e, path.join('.'), siblings) };
  });
  const issues: ValidationIssue[] = chosen.map(({ e, path, msg }) => ({ loc: [location, ...path], msg, type: issueType(e) }));
  const first = chosen[0];
  if (first === undefined) return new ApiError('invalid_field_value', { issues });
  const param = first.path.join('.');
  // Bodies: 400 with the field's code; query strings and paths: 422 validation_error.
  const code = location !== 'body' ? 'validation_error' : first.e.keyword === 'required' ? 'missing_required_field' : 'invalid_field_value';
  return new ApiError(code, { message: first.msg, ...(param ? { param } : {}), issues });
}
