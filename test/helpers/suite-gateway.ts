// A test gateway per file or describe block, started and closed by vitest's hooks. Kept apart
// from test-gateway.ts, which the in-process benchmarks import without vitest.
import { afterAll, beforeAll } from 'vitest';
import type { CreateKeyInput } from '../../src/platform/auth/key-service.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from './test-gateway.js';

export interface SuiteGateway {
  /** The gateway; set by beforeAll, so read it inside tests and hooks only. */
  readonly gw: TestGateway;
  /** A key of it, made with the `keyInput` given. */
  readonly key: string;
}

/**
 * Registers beforeAll (start a gateway with `env` and make a key, 60 s allowed) and afterAll
 * (close it) in the enclosing describe block or file. `env` may be a function, called in the
 * beforeAll, when it needs what earlier hooks made (a database schema).
 */
export function useTestGateway(
  env: Record<string, string> | (() => Record<string, string>) = {},
  keyInput: Partial<CreateKeyInput> = {},
  options: TestGatewayOptions = {},
): SuiteGateway {
  const suite: { gw?: TestGateway; key?: string } = {};
  beforeAll(async () => {
    suite.gw = await startTestGateway(typeof env === 'function' ? env() : env, options);
    suite.key = await suite.gw.key(keyInput);
  }, 60_000);
  afterAll(async () => suite.gw?.close());
  return {
    get gw() {
      return suite.gw!;
    },
    get key() {
      return suite.key!;
    },
  };
}

/** A JSON request to a gateway with a bearer key: the status, the parsed body (undefined when empty) and the headers. */
export async function callJson<T>(
  baseUrl: string,
  method: string,
  path: string,
  body: unknown,
  apiKey: string,
): Promise<{ status: number; body: T; headers: Headers }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, headers: response.headers };
}
