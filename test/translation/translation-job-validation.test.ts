import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { REPO_MODELS_DIR, type Json } from './translation-fixtures.js';

/** Every validation rule of POST /translate: 422 `{detail: [{loc, msg, type}]}`, naming the field. */
let gw: TestGateway;
let guarded: TestGateway;
let key: string;
let guardedKey: string;

beforeAll(async () => {
  gw = await startTestGateway({ MODELS_DIR: REPO_MODELS_DIR, RATE_LIMIT_PER_MINUTE: '100000', JOB_SUBMISSIONS_PER_HOUR: '1000', TRANSLATION_MAX_UNITS: '6' });
  // The operator's default: the outbound guard refuses private and loopback addresses.
  guarded = await startTestGateway({ MODELS_DIR: REPO_MODELS_DIR, ALLOW_PRIVATE_NETWORK: 'false', RATE_LIMIT_PER_MINUTE: '100000' });
  key = await gw.key();
  guardedKey = await guarded.key();
});

afterAll(async () => {
  await gw?.close();
  await guarded?.close();
});

const valid = {
  source_language: 'en',
  target_languages: ['am'],
  input_config: { type: 'BLOB_STORAGE', uris: ['https://files.example.com/a.txt'] },
  output_config: { destination_uri: 'svc://out' },
};

async function post(body: unknown, target = gw, k = key): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${target.url}/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': k },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const without = (field: string): Json => Object.fromEntries(Object.entries(valid).filter(([name]) => name !== field));
const uris = (list: string[]) => ({ ...valid, input_config: { type: 'BLOB_STORAGE', uris: list } });
const many = (n: number) => Array.from({ length: n }, (_, i) => `https://files.example.com/${i}.txt`);

const CASES: [string, unknown, (string | number)[]][] = [
  ['source_language missing', without('source_language'), ['body', 'source_language']],
  ['source_language unsupported', { ...valid, source_language: 'fr' }, ['body', 'source_language']],
  ['target_languages missing', without('target_languages'), ['body', 'target_languages']],
  ['target_languages empty', { ...valid, target_languages: [] }, ['body', 'target_languages']],
  ['more than 5 targets', { ...valid, source_language: 'en', target_languages: ['am', 'ti', 'am', 'ti', 'am', 'ti'] }, ['body', 'target_languages']],
  ['a target not supported', { ...valid, target_languages: ['am', 'om'] }, ['body', 'target_languages', 1]],
  ['a target equal to the source', { ...valid, target_languages: ['am', 'en'] }, ['body', 'target_languages', 1]],
  ['a target listed twice', { ...valid, target_languages: ['am', 'am'] }, ['body', 'target_languages', 1]],
  ['target_languages not an array', { ...valid, target_languages: 'am' }, ['body', 'target_languages']],
  ['input_config missing', without('input_config'), ['body', 'input_config']],
  ['input_config.type missing', { ...valid, input_config: { uris: ['https://files.example.com/a.txt'] } }, ['body', 'input_config', 'type']],
  [
    'input_config.type not BLOB_STORAGE',
    { ...valid, input_config: { type: 'S3', uris: ['https://files.example.com/a.txt'] } },
    ['body', 'input_config', 'type'],
  ],
  ['uris missing', { ...valid, input_config: { type: 'BLOB_STORAGE' } }, ['body', 'input_config', 'uris']],
  ['uris empty', uris([]), ['body', 'input_config', 'uris']],
  ['more than 100 uris', uris(many(101)), ['body', 'input_config', 'uris']],
  ['an empty uri', uris(['']), ['body', 'input_config', 'uris', 0]],
  ['an http:// uri', uris(['https://files.example.com/a.txt', 'http://files.example.com/b.txt']), ['body', 'input_config', 'uris', 1]],
  ['a uri that is no URL', uris(['not a url']), ['body', 'input_config', 'uris', 0]],
  ['a uri with credentials', uris(['https://user:pw@files.example.com/a.txt']), ['body', 'input_config', 'uris', 0]],
  ['an svc:// uri with dot segments', uris(['svc://out/../../etc/passwd']), ['body', 'input_config', 'uris', 0]],
  ['output_config missing', without('output_config'), ['body', 'output_config']],
  ['destination_uri missing', { ...valid, output_config: {} }, ['body', 'output_config', 'destination_uri']],
  [
    'destination_uri of another scheme',
    { ...valid, output_config: { destination_uri: 'ftp://files.example.com/out/' } },
    ['body', 'output_config', 'destination_uri'],
  ],
  ['destination_uri http://', { ...valid, output_config: { destination_uri: 'http://files.example.com/out/' } }, ['body', 'output_config', 'destination_uri']],
  [
    'destination_uri with a query',
    { ...valid, output_config: { destination_uri: 'https://files.example.com/out/?x=1' } },
    ['body', 'output_config', 'destination_uri'],
  ],
  ['s3:// without S3 storage', { ...valid, output_config: { destination_uri: 's3://bucket/out' } }, ['body', 'output_config', 'destination_uri']],
  ['svc:// without a prefix', { ...valid, output_config: { destination_uri: 'svc://' } }, ['body', 'output_config', 'destination_uri']],
  ['callback_url http://', { ...valid, callback_url: 'http://hooks.example.com/cb' }, ['body', 'callback_url']],
  ['callback_url not a URL', { ...valid, callback_url: 'nope' }, ['body', 'callback_url']],
  ['callback_url not a string', { ...valid, callback_url: 5 }, ['body', 'callback_url']],
  ['callback_secret too short', { ...valid, callback_secret: 'short' }, ['body', 'callback_secret']],
];

describe('POST /translate validation', () => {
  it.each(CASES)('422 for %s', async (_name, body, loc) => {
    const { status, body: answer } = await post(body);
    expect(status).toBe(422);
    expect(Array.isArray(answer.detail)).toBe(true);
    for (const issue of answer.detail) {
      expect(Object.keys(issue).sort()).toEqual(['loc', 'msg', 'type']);
      expect(typeof issue.msg).toBe('string');
      expect(typeof issue.type).toBe('string');
    }
    // Array indices: numbers from the field checks, digit strings from the schema validator.
    expect(answer.detail.map((issue: Json) => JSON.stringify(issue.loc.map(String)))).toContain(JSON.stringify(loc.map(String)));
  });

  it('reports every problem of a request at once', async () => {
    const { status, body } = await post({ ...valid, target_languages: ['en', 'am', 'am'], callback_url: 'http://x.example.com' });
    expect(status).toBe(422);
    expect(body.detail.map((i: Json) => i.loc)).toEqual([
      ['body', 'target_languages', 0],
      ['body', 'target_languages', 2],
      ['body', 'callback_url'],
    ]);
  });

  it('answers 422 for a body that is not an object', async () => {
    expect((await post([1, 2])).status).toBe(422);
  });

  it('answers 400 beyond the translation-unit limit (TRANSLATION_MAX_UNITS)', async () => {
    const { status, body } = await post({ ...valid, target_languages: ['am', 'ti'], input_config: { type: 'BLOB_STORAGE', uris: many(4) } });
    expect(status).toBe(400);
    expect(body.detail).toContain('8');
    expect((await post({ ...valid, target_languages: ['am', 'ti'], input_config: { type: 'BLOB_STORAGE', uris: many(3) } })).status).toBe(202);
  });

  it('runs every URL through the outbound guard: sources, destination and callback', async () => {
    const loopback = await post(uris(['https://127.0.0.1:8443/a.txt', 'https://[::1]/b.txt', 'https://10.1.2.3/c.txt']), guarded, guardedKey);
    expect(loopback.status).toBe(422);
    expect(loopback.body.detail.map((i: Json) => i.loc)).toEqual([
      ['body', 'input_config', 'uris', 0],
      ['body', 'input_config', 'uris', 1],
      ['body', 'input_config', 'uris', 2],
    ]);
    expect(loopback.body.detail[0].msg).toContain('private, loopback or link-local');
    const destination = await post({ ...valid, output_config: { destination_uri: 'https://192.168.1.20/out/' } }, guarded, guardedKey);
    expect(destination.body.detail[0].loc).toEqual(['body', 'output_config', 'destination_uri']);
    const callback = await post({ ...valid, callback_url: 'https://169.254.169.254/latest' }, guarded, guardedKey);
    expect(callback.body.detail[0].loc).toEqual(['body', 'callback_url']);
  });

  it('refuses a source host that resolves to a private address when the job runs (DOWNLOAD_ERROR)', async () => {
    const { status, body } = await post(uris(['https://localhost:9/a.txt']), guarded, guardedKey);
    expect(status).toBe(202);
    const job = await (async () => {
      for (let i = 0; i < 200; i++) {
        const r = (await (await fetch(`${guarded.url}/translate/${body.job_id}/results`, { headers: { 'x-api-key': guardedKey } })).json()) as Json;
        if (r.summary) return r;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('job did not finish');
    })();
    expect(job.outputs[0].error.code).toBe('DOWNLOAD_ERROR');
    expect(job.outputs[0].error.message).toMatch(/private|loopback|not allowed/i);
  });
});
