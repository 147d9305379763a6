// A PostgreSQL schema per file or describe block (createTestSchema), made and dropped by vitest's
// hooks. Kept apart from distributed-servers.ts, which has no vitest hooks of its own.
import { afterAll, beforeAll } from 'vitest';
import { createTestSchema, type TestSchema } from './distributed-servers.js';

/**
 * Registers beforeAll (create the schema) and afterAll (drop it) in the enclosing describe block
 * or file. Read the result inside tests and hooks only; hooks registered after this call run
 * once the schema exists, and their afterAll runs before it is dropped.
 */
export function useTestSchema(label: string): TestSchema {
  let current: TestSchema | undefined;
  beforeAll(async () => {
    current = await createTestSchema(label);
  });
  afterAll(async () => current?.drop());
  return {
    get url() {
      return current!.url;
    },
    get schema() {
      return current!.schema;
    },
    drop: () => current!.drop(),
  };
}
