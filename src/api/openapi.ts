import type { TSchema } from '@sinclair/typebox';
import { ERROR_REGISTRY } from '../platform/errors/error-registry.js';
import { JobApiErrorSchema, JobApiValidationErrorSchema, OpenAiErrorSchema, UnifiedErrorSchema } from './error-schemas.js';
import { schemaName } from '../platform/http/named-schema.js';
import type { RouteDefinition } from '../platform/http/route-types.js';

export interface OpenApiInfo {
  readonly title: string;
  readonly version: string;
  readonly description: string;
  readonly serverUrl: string;
  /** MAX_JSON_BODY_BYTES: the limit of JSON and form bodies, stated in every 413. */
  readonly maxJsonBodyBytes: number;
}

type Json = Record<string, unknown>;

/**
 * Builds the OpenAPI 3.1 document from the same route table and TypeBox schemas the router
 * validates with. Hidden routes (key management) are left out.
 */
export function buildOpenApi(routes: readonly RouteDefinition[], info: OpenApiInfo): Json {
  const components: Record<string, unknown> = {};
  const convert = (schema: TSchema): unknown => toJsonSchema(schema, components, true);
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    if (route.hidden) continue;
    const operation: Json = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [...route.tags],
    };
    if (route.description) operation['description'] = route.description;
    operation['security'] = security(route);
    const parameters = [...objectParameters(route.params, 'path', convert), ...objectParameters(route.query, 'query', convert)];
    if (parameters.length > 0) operation['parameters'] = parameters;
    const requestBody = bodyDocument(route, convert);
    if (requestBody) operation['requestBody'] = requestBody;
    operation['responses'] = responsesDocument(route, convert, info.maxJsonBodyBytes);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY> (unified API)' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'X-API-Key: <API_KEY> (job API)' },
      },
    },
  };
}

function security(route: RouteDefinition): unknown[] {
  switch (route.auth) {
    case 'bearer':
      return [{ bearerAuth: [] }];
    case 'x-api-key':
      return [{ apiKeyHeader: [] }];
    default:
      return [];
  }
}

function objectParameters(schema: TSchema | undefined, where: 'path' | 'query', convert: (s: TSchema) => unknown): Json[] {
  if (schema === undefined) return [];
  const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  const required = new Set((schema as { required?: string[] }).required ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const parameter: Json = { name, in: where, required: where === 'path' || required.has(name), schema: convert(property) };
    const description = (property as { description?: string }).description;
    if (description) parameter['description'] = description;
    if ((property as { deprecated?: boolean }).deprecated) parameter['deprecated'] = true;
    return parameter;
  });
}

function bodyDocument(route: RouteDefinition, convert: (s: TSchema) => unknown): Json | null {
  const spec = route.body;
  if (spec === undefined) return null;
  switch (spec.kind) {
    case 'json':
      return { required: true, content: { 'application/json': { schema: convert(spec.schema) } } };
    case 'form':
      return { required: true, content: { 'application/x-www-form-urlencoded': { schema: convert(spec.schema) } } };
    case 'multipart':
      return { required: true, content: { 'multipart/form-data': { schema: convert(spec.schema) } } };
    case 'json-or-multipart':
      return {
        required: true,
        content: {
          'application/json': { schema: convert(spec.json) },
          'multipart/form-data': { schema: convert(spec.multipart) },
        },
      };
    case 'raw':
      return {
        required: true,
        description: spec.description,
        content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
      };
  }
}

/**
 * Every status an operation can answer, each error with its envelope's schema: the route's own
 * declarations, plus the statuses the router itself produces (400 and 500 everywhere; 401, 403
 * and 429 with a key; 403 for signed URLs; 414 everywhere (URL over 8 KB); 413 and 415 with a
 * body (and the job API's 422); 422 for an invalid query or path parameter).
 */
function responsesDocument(route: RouteDefinition, convert: (s: TSchema) => unknown, maxJsonBodyBytes: number): Json {
  const out: Json = {};
  const job = route.surface === 'job';
  const openai = route.surface === 'openai';
  const errorContent = (status: number): Json => {
    const schema = job ? (status === 422 ? JobApiValidationErrorSchema : JobApiErrorSchema) : openai ? OpenAiErrorSchema : UnifiedErrorSchema;
    return { 'application/json': { schema: convert(schema) } };
  };
  for (const [status, spec] of Object.entries(route.responses)) {
    const response: Json = { description: spec.description };
    if (spec.schema !== undefined) {
      response['content'] = { [spec.contentType ?? 'application/json']: { schema: convert(spec.schema) } };
    } else if (spec.contentType !== undefined) {
      response['content'] = { [spec.contentType]: { schema: { type: 'string' } } };
    } else if (Number(status) >= 400) {
      response['content'] = errorContent(Number(status));
    }
    for (const type of spec.alsoText ?? []) ((response['content'] ??= {}) as Json)[type] = { schema: { type: 'string' } };
    if (spec.headers) {
      response['headers'] = Object.fromEntries(Object.entries(spec.headers).map(([name, description]) => [name, { description, schema: { type: 'string' } }]));
    }
    out[status] = response;
  }
  const errorStatuses = new Set<number>([400, 500]);
  if (route.auth === 'bearer' || route.auth === 'x-api-key' || route.auth === 'form-key') {
    for (const s of [401, 403, 429]) errorStatuses.add(s);
  }
  if (route.auth === 'signed') errorStatuses.add(403);
  // Every route: a request URL over 8 KB is refused before routing (router.ts refuseLongUrl).
  errorStatuses.add(414);
  if (route.body !== undefined) {
    errorStatuses.add(413);
    // A Content-Type the route does not read: 415 on every surface; the job API's invalid body: 422.
    errorStatuses.add(415);
    if (job) errorStatuses.add(422);
  }
  // OpenAI's envelope answers 400 where the others answer 422 (error-rendering.ts).
  if (route.query !== undefined || route.params !== undefined) errorStatuses.add(openai ? 400 : 422);
  for (const status of errorStatuses) {
    if (out[String(status)] !== undefined) continue;
    out[String(status)] = {
      description: status === 413 ? sizeLimitDescription(route, maxJsonBodyBytes) : errorDescription(status, openai),
      content: errorContent(status),
      ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } } : {}),
    };
  }
  return out;
}

/** The 413 of a route with a body, naming its configured limits. */
function sizeLimitDescription(route: RouteDefinition, maxJsonBodyBytes: number): string {
  const kind = route.body?.kind;
  const jsonLimit = Math.min(route.maxBodyBytes ?? maxJsonBodyBytes, maxJsonBodyBytes);
  const json = `a JSON or form body over ${jsonLimit} bytes (MAX_JSON_BODY_BYTES)`;
  const named = route.sizeLimit ?? { bytes: route.maxBodyBytes ?? maxJsonBodyBytes, subject: 'The request body' };
  const streamed = `${named.subject.toLowerCase().replace(/^the /, 'a ')} over ${named.bytes} bytes`;
  const what = kind === 'json' || kind === 'form' ? json : kind === 'json-or-multipart' ? `${json}, or ${streamed}` : streamed;
  return `payload_too_large: ${what}. The message names the limit.`;
}

/** The codes a status carries; OpenAI's envelope answers the registry's 422 codes as 400. */
function errorDescription(status: number, openai = false): string {
  const codes = Object.entries(ERROR_REGISTRY)
    .filter(([, def]) => def.status === status || (openai && status === 400 && def.status === 422))
    .map(([code]) => code);
  return codes.length > 0 ? `Error; codes: ${codes.join(', ')}` : 'Error';
}

/**
 * TypeBox schema → plain JSON Schema. Named schemas become $refs into `components`
 * (except at the root of their own component definition).
 */
function toJsonSchema(schema: unknown, components: Record<string, unknown>, allowRef: boolean): unknown {
  if (schema === null || typeof schema !== 'object') return schema;
  if (Array.isArray(schema)) return schema.map((item) => toJsonSchema(item, components, true));
  const name = schemaName(schema);
  if (name !== undefined && allowRef) {
    if (!(name in components)) {
      components[name] = {}; // placeholder breaks cycles
      components[name] = toJsonSchema(schema, components, false);
    }
    return { $ref: `#/components/schemas/${name}` };
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === '$id') continue;
    out[key] = toJsonSchema(value, components, true);
  }
  return out;
}
