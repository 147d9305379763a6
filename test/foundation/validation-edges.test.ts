import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { bearer } from '../helpers/test-gateway.js';
import { useTestGateway } from '../helpers/suite-gateway.js';

/** Validation text, the URL length limit, one `limit` rule, and an OpenAPI document that declares every error with its schema. */
const suite = useTestGateway({ RATE_LIMIT_PER_MINUTE: '100000', LIST_MAX_LIMIT: '200' }, { scopes: ['write'] });

async function json(path: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${suite.gw.url}${path}`, { ...init, headers: bearer(suite.key, (init.headers ?? {}) as Record<string, string>) });
  return { status: response.status, body: await response.json() };
}

describe('validation messages and limits', () => {
  it('names the allowed values of an enumerated field (body: 400)', async () => {
    const answer = await json('/v1/transcriptions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ audio_url: 'https://example.com/a.wav', language: 'am', mode: 'later' }),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_field_value', param: 'mode' });
    expect(answer.body.error.message).toBe(`Invalid value for 'mode': must be one of "async", "sync".`);
  });

  it('names the allowed values of a query parameter (query: 422)', async () => {
    const answer = await json('/v1/transcriptions?source=email');
    expect(answer.status).toBe(422);
    expect(answer.body.error).toMatchObject({ code: 'validation_error', param: 'source' });
    expect(answer.body.error.message).toBe(`Invalid value for 'source': must be one of "batch", "websocket".`);
  });

  it('says the same about `limit` in every list and at every size', async () => {
    for (const path of ['/v1/transcriptions', '/v1/media', '/v1/webhooks']) {
      for (const limit of [201, 20_000, 1e9]) {
        const answer = await json(`${path}?limit=${limit}`);
        expect(answer.status, `${path} ${limit}`).toBe(422);
        expect(answer.body.error.message, `${path} ${limit}`).toBe(`Invalid value for 'limit': must be between 1 and 200.`);
      }
      // One range, one message, whichever side the value falls off.
      const zero = await json(`${path}?limit=0`);
      expect(zero.status).toBe(422);
      expect(zero.body.error.message).toBe(`Invalid value for 'limit': must be between 1 and 200.`);
    }
  });

  it('the job API lists one message per field (a nullable bound says its range, not also "must be null")', async () => {
    const response = await fetch(`${suite.gw.url}/transcribe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': suite.key },
      body: JSON.stringify({
        audio_urls: ['https://example.com/a.mp3'],
        language: 'am',
        diarize: true,
        diarization_config: { max_speakers: 0, min_speakers: 'two' },
      }),
    });
    expect(response.status).toBe(422);
    const { detail } = (await response.json()) as { detail: Array<{ loc: string[]; msg: string }> };
    expect(detail.map((d) => [d.loc.join('.'), d.msg])).toEqual([
      ['body.diarization_config.min_speakers', `Invalid value for 'diarization_config.min_speakers': must be an integer or null.`],
      ['body.diarization_config.max_speakers', `Invalid value for 'diarization_config.max_speakers': must be between 1 and 20.`],
    ]);
  });

  it('answers 414 to a request URL over 8 KB', async () => {
    for (const size of [9_000, 40_000]) {
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(`${suite.gw.url}/v1/languages?pad=${'a'.repeat(size)}`, { headers: bearer(suite.key) });
        req.on('response', (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        });
        req.on('error', reject);
        req.end();
      });
      expect(answer.status).toBe(414);
      expect(JSON.parse(answer.body).error.code).toBe('uri_too_long');
    }
  });
});

describe('the OpenAPI document', () => {
  it('gives every error response a body schema, and declares 413, 422 and the model rules', async () => {
    const doc = (await (await fetch(`${suite.gw.url}/openapi.json`)).json()) as any;
    let errors = 0;
    for (const [path, operations] of Object.entries<any>(doc.paths)) {
      for (const [method, operation] of Object.entries<any>(operations)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) < 400) continue;
          errors++;
          expect(response.content?.['application/json']?.schema, `${method} ${path} ${status}`).toBeDefined();
        }
        if (operation.requestBody !== undefined) expect(operation.responses['413'], `${method} ${path}`).toBeDefined();
        // The OpenAI-compatible paths answer a bad parameter 400, in OpenAI's error shape (docs/openai-compatible.md).
        const badParameter = path.startsWith('/v1/audio/') || path.startsWith('/v1/models') ? '400' : '422';
        if ((operation.parameters ?? []).length > 0) expect(operation.responses[badParameter], `${method} ${path}`).toBeDefined();
      }
    }
    expect(errors).toBeGreaterThan(200);
    for (const path of ['/v1/transcriptions', '/v1/transcriptions/batch']) {
      expect(doc.paths[path].post.responses['422'].description).toMatch(/UNSUPPORTED_LANGUAGE.*UNSUPPORTED_MODEL/);
    }
  });
});
