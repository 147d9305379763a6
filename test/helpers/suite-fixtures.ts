// Fixtures per file or describe block, made by vitest's beforeAll and removed by its afterAll: a
// PostgreSQL schema (createTestSchema) and a scratch folder. Kept apart from the helpers that
// benchmarks import without vitest. Read what they return inside tests and hooks only; hooks
// registered after one of these run once it exists, and their afterAll runs before it goes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { createTestSchema, type TestSchema } from './distributed-servers.js';

/** A fresh schema of the test PostgreSQL, dropped with everything in it afterwards. */
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

/** A new temporary folder named from `prefix`, removed with its contents afterwards; the function gives paths inside it. */
export function useScratchDir(prefix: string): (...parts: string[]) => string {
  let dir: string | undefined;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return (...parts) => join(dir!, ...parts);
}

/**
 * One describe block per implementation of an interface (named by its key), each running the same
 * `tests` on an instance `make` gives before them, closed after them: the implementations must
 * behave identically.
 */
export function describeEachImplementation<T extends { close(): Promise<void> }>(
  implementations: Record<string, () => Promise<T>>,
  tests: (current: () => T) => void,
): void {
  for (const [name, make] of Object.entries(implementations)) {
    describe(name, () => {
      let instance: T | undefined;
      beforeAll(async () => {
        instance = await make();
      });
      afterAll(async () => instance?.close());
      tests(() => instance!);
    });
  }
}
