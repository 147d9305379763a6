import { Type, type TSchema } from '@sinclair/typebox';

const names = new WeakMap<object, string>();
const byName = new Map<string, TSchema>();

/**
 * Marks a schema as a named component: /openapi.json lists it once under
 * components/schemas and refers to it by $ref. Validation uses the schema object itself.
 */
export function named<T extends TSchema>(name: string, schema: T): T {
  const existing = byName.get(name);
  if (existing !== undefined && existing !== schema) throw new Error(`schema name ${name} is already used`);
  names.set(schema, name);
  byName.set(name, schema);
  return schema;
}

export function schemaName(schema: object): string | undefined {
  return names.get(schema);
}

/** `schema` or null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
