// The translation queue under load, on a real gateway (port 0) with the shipped model and small
// limits set through configuration (one account holds at most 8 of the 16 sentences of room per
// mode; a text has at most 4 sentences; a file unit keeps a window of 4 sentences queued):
// - a multi-file job completes (no PARTIAL) while the queue is full for a moment: its units wait
//   for room instead of spending their retries;
// - another account's small job and text are served while one account has a big backlog;
// - an output is bounded by its input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputCap } from '../../src/engines/translation/output-cap.js';
import { readTranslationManifest } from '../../src/engines/translation/translation.js';
import { TranslationTokenizer } from '../../src/engines/translation/translation-tokenizer.js';
import { until } from '../helpers/polling.js';
import { startTestGateway, type TestGateway } from '../helpers/test-gateway.js';
import { TRANSLATION_MODEL_DIR } from '../helpers/translation-model.js';
import { REPO_MODELS_DIR, type Json } from './translation-fixtures.js';
import { useSourceServer } from './translation-test-servers.js';

let gw: TestGateway;
const keys: Record<string, string> = {};

const lines = (count: number, first = 0): string => Array.from({ length: count }, (_, i) => `Where is the hospital ${first + i}?`).join('\n');
const sources = useSourceServer({
  'four/a.txt': { body: lines(6, 0) },
  'four/b.txt': { body: lines(6, 10) },
  'four/c.txt': { body: lines(6, 20) },
  'four/d.txt': { body: lines(6, 30) },
  'big.txt': { body: lines(24, 100) },
  'small.txt': { body: 'Good morning.\nThe market is open.' },
});

beforeAll(async () => {
  gw = await startTestGateway({
    MODELS_DIR: REPO_MODELS_DIR,
    RATE_LIMIT_PER_MINUTE: '100000',
    // The network's queue is under test: no direction is answered by the folder's transfer tables.
    TRANSLATION_TRANSFER: 'off',
    TRANSLATION_MAX_BATCH: '8',
    TRANSLATION_MAX_QUEUED: '16',
    TRANSLATION_MAX_QUEUED_PER_ACCOUNT: '8',
    TRANSLATION_MAX_REQUEST_SENTENCES: '4',
    TRANSLATION_UNIT_CONCURRENCY: '4',
    // Without the waits for room, the units refused below would spend these retries in 70 ms.
    TRANSLATION_RETRY_DELAY_MS: '10',
    TRANSLATION_QUEUE_WAIT_SECONDS: '60',
  });
  for (const account of ['jobs', 'big', 'small', 'flood', 'quiet']) keys[account] = await gw.key({ account });
}, 180_000);

afterAll(async () => {
  await gw?.close();
});

const submit = async (account: string, uris: string[]): Promise<string> => {
  const response = await fetch(`${gw.url}/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': keys[account]! },
    body: JSON.stringify({
      source_language: 'en',
      target_languages: ['am'],
      input_config: { type: 'BLOB_STORAGE', uris },
      output_config: { destination_uri: `svc://translations/${account}` },
    }),
  });
  const body = (await response.json()) as Json;
  expect(response.status, JSON.stringify(body)).toBe(202);
  return body.job_id as string;
};

const status = async (account: string, id: string): Promise<Json> =>
  (await fetch(`${gw.url}/translate/${id}`, { headers: { 'x-api-key': keys[account]! } })).json();

const finished = (account: string, id: string, timeoutMs = 60_000): Promise<Json> =>
  until(
    async () => {
      const body = await status(account, id);
      return ['COMPLETED', 'PARTIAL', 'FAILED'].includes(body.status as string) ? body : undefined;
    },
    timeoutMs,
    50,
    `translation job ${id} did not finish`,
  );

const translate = (account: string, text: string) =>
  fetch(`${gw.url}/translate/v1`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ key: keys[account]!, text, src_lang: 'en', tgt_lang: 'am' }).toString(),
  });

const refusedBeamSentences = async (): Promise<number> => {
  const text = await (await fetch(gw.metricsUrl!)).text();
  const line = text.split('\n').find((l) => l.startsWith('translation_sentences_total{') && l.includes('mode="beam"') && l.includes('outcome="refused"'));
  return line === undefined ? 0 : Number(line.split(' ').pop());
};

describe('file jobs wait for room', () => {
  it('a job of 4 files completes while its account share of the queue is full: refused units wait, no retry is spent', async () => {
    const refusedBefore = await refusedBeamSentences();
    const id = await submit(
      'jobs',
      ['a', 'b', 'c', 'd'].map((f) => sources.url(`four/${f}.txt`)),
    );
    const done = await finished('jobs', id);
    expect(done).toMatchObject({ status: 'COMPLETED', progress: { total_units: 4, completed_units: 4, failed_units: 0 } });
    // Two units' windows (4 + 4) filled the account's 8 sentences: the other two were refused and waited.
    expect(await refusedBeamSentences()).toBeGreaterThan(refusedBefore);
  }, 90_000);
});

describe('fair shares between accounts', () => {
  it("serves another account's small job while one account's long job is still translating", async () => {
    const big = await submit('big', [sources.url('big.txt')]);
    await until(async () => ((await status('big', big)).status === 'PROCESSING' ? true : undefined), 20_000, 20, 'the big job did not start');
    const small = await submit('small', [sources.url('small.txt')]);
    expect(await finished('small', small, 30_000)).toMatchObject({ status: 'COMPLETED' });
    // The long job is still at work: the small one did not wait behind its backlog.
    expect((await status('big', big)).status).toBe('PROCESSING');
    expect(await finished('big', big)).toMatchObject({ status: 'COMPLETED', progress: { completed_units: 1 } });
  }, 120_000);

  it("serves another account's text while one account's texts fill its share, and refuses a text over the sentence maximum", async () => {
    const four = 'Good morning. Where is the market? The road is long. We need water.';
    const flood = Array.from({ length: 5 }, () => translate('flood', four));
    const quiet = await translate('quiet', 'Where is the hospital?');
    expect(quiet.status).toBe(200);
    expect(((await quiet.json()) as Json).tgt_text.length).toBeGreaterThan(0);
    const answers = await Promise.all(flood);
    const codes = answers.map((r) => r.status);
    expect(codes.filter((c) => c === 200).length).toBeGreaterThanOrEqual(2);
    for (const answer of answers.filter((r) => r.status === 503)) {
      const body = (await answer.json()) as Json;
      expect(body.error).toMatchObject({ code: 'server_overloaded' });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const five = await translate('flood', `${four} The end.`);
    expect(five.status).toBe(400);
    const body = (await five.json()) as Json;
    expect(body.error).toMatchObject({ code: 'invalid_field_value', param: 'text' });
    expect(body.error.message).toContain('at most 4');
  }, 60_000);
});

describe('the output bound', () => {
  it('each sentence of a text yields at most ceil(2.5 x its pieces) + 4 pieces, where the model would loop on', async () => {
    const manifest = readTranslationManifest(TRANSLATION_MODEL_DIR);
    const tokenizer = await TranslationTokenizer.open(manifest.tokenizer, manifest.specialIds.unk);
    const inputs = ['Yes.', 'Hello.', 'Yes.', 'Hello.'];
    const response = await translate('quiet', inputs.join('\n'));
    expect(response.status).toBe(200);
    const outputs = ((await response.json()) as Json).tgt_text.split('\n') as string[];
    expect(outputs).toHaveLength(inputs.length);
    outputs.forEach((output, i) => {
      const cap = outputCap(tokenizer.encode(inputs[i]!).ids.length, manifest.decoding);
      // Pieces of the output as the tokenizer cuts it again (one more allowed for a different cut).
      expect(tokenizer.encode(output).ids.length, output).toBeLessThanOrEqual(cap + 1);
    });
  }, 60_000);
});
