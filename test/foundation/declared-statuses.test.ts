// OpenAPI declares every status the server answers (issue 31 item 6). Each operation of
// /openapi.json is sent the requests that reach the router's own answers and the handlers'
// common refusals: no key, an unknown key, a URL over 8 KB, a Content-Type it does not read,
// malformed JSON, an empty body, a query of unparsable values, ids that do not exist, and (for
// the routes that need one) a valid request to a server without a translation model. Every
// answered status must be among the operation's declared responses.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/suite-gateway.js';

const suite = useTestGateway({ RATE_LIMIT_PER_MINUTE: '1000000' }, { scopes: ['read', 'write'] });

type Operation = {
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string }>;
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, unknown>;
};

/** One request with any method and body (fetch refuses a body on GET); the status only. */
function send(url: string, method: string, headers: Record<string, string>, body?: string | Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: method.toUpperCase(),
      headers: { ...headers, ...(body !== undefined ? { 'content-length': String(Buffer.byteLength(body)) } : {}) },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('declared statuses', () => {
  it('every status an operation answers is in its OpenAPI responses', async () => {
    const base = suite.gw.url;
    const doc = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const undeclared: string[] = [];
    let requests = 0;
    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        // The WebSocket upgrade is checked by the WebSocket tests (a plain GET is answered 426).
        if (method === 'get' && template === '/v1/ws/transcribe') continue;
        const path = template.replace(/\{[^}]+\}/g, 'xyz_does_not_exist');
        const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
        const auth: Record<string, string> = schemes.includes('bearerAuth')
          ? { authorization: `Bearer ${suite.key}` }
          : schemes.includes('apiKeyHeader')
            ? { 'x-api-key': suite.key }
            : {};
        const wrongAuth: Record<string, string> = schemes.includes('bearerAuth') ? { authorization: 'Bearer sk_wrong' } : { 'x-api-key': 'sk_wrong' };
        const query = (operation.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => `${encodeURIComponent(p.name)}=%25%25not-a-value`)
          .join('&');
        const types = Object.keys(operation.requestBody?.content ?? {});
        const formKey = types.includes('application/x-www-form-urlencoded') ? `key=${encodeURIComponent(suite.key)}&` : '';
        const attempts: Array<[string, string, Record<string, string>, string?]> = [
          ['plain', path, auth],
          ['no key', path, {}],
          ['unknown key', path, wrongAuth],
          ['URL over 8 KB', `${path}?pad=${'a'.repeat(9_000)}`, auth],
        ];
        if (query !== '') attempts.push(['unparsable query', `${path}?${query}`, auth]);
        if (types.length > 0) {
          attempts.push(['text/plain body', path, { ...auth, 'content-type': 'text/plain' }, 'hello']);
          if (types.includes('application/json')) {
            attempts.push(['malformed JSON', path, { ...auth, 'content-type': 'application/json' }, '{']);
            attempts.push(['empty JSON object', path, { ...auth, 'content-type': 'application/json' }, '{}']);
          }
          if (types.includes('application/x-www-form-urlencoded')) {
            attempts.push(['empty form', path, { 'content-type': 'application/x-www-form-urlencoded' }, formKey]);
            attempts.push(['valid form', path, { 'content-type': 'application/x-www-form-urlencoded' }, `${formKey}text=Selam&src_lang=am&tgt_lang=en`]);
          }
          if (types.includes('multipart/form-data')) {
            const boundary = 'declared-statuses';
            attempts.push([
              'multipart without a file',
              path,
              { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
              `--${boundary}\r\ncontent-disposition: form-data; name="language"\r\n\r\nam\r\n--${boundary}--\r\n`,
            ]);
          }
        }
        // A valid request where one is cheap: the translation routes on a server without a model.
        if (method === 'post' && template === '/translate') {
          attempts.push([
            'valid file translation',
            path,
            { ...auth, 'content-type': 'application/json' },
            JSON.stringify({ source_language_code: 'am', target_language_codes: ['en'], input_config: { uris: ['https://example.com/a.txt'] } }),
          ]);
        }
        for (const [what, target, headers, body] of attempts) {
          const status = await send(`${base}${target}`, method, headers, body);
          requests++;
          if (!(String(status) in operation.responses)) undeclared.push(`${method.toUpperCase()} ${template} (${what}) → ${status}`);
        }
      }
    }
    expect(requests).toBeGreaterThan(250);
    expect(undeclared).toEqual([]);
  }, 120_000);
});
