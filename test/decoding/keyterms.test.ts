// Keyterm boosting over the real server (issue 31 item 3): the shipped Amharic model (small-am-v2,
// beam 16 + LM) on a committed ALFFA clip of a speaker group it never trained on, whose plain
// transcript misses two words of its reference ("ካርታ", "ነበርኩ"). With them as keyterms every
// surface writes them: REST multipart (repeated field) and JSON (comma-separated, audio_url), the
// job API, and a WebSocket session; a list of words the clip does not hold changes nothing. The
// limits are refused per surface: 400 invalid_field_value (unified API), 422 (job API), 1008 (WebSocket).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alffaScoringForm } from '../../src/engines/asr/text/alffa-scoring.js';
import { startFileServer } from '../helpers/audio-files.js';
import { wavData } from '../helpers/fixtures.js';
import { JobsClient, TranscribeJobClient } from '../helpers/jobs-client.js';
import { useTestGateway } from '../helpers/suite-gateway.js';
import { bearer } from '../helpers/test-gateway.js';
import { chunks, connect, connectReady, paced, wsUrl } from '../ws/ws-client.js';
import { heldOutClip } from '../../training/common/heldout-fixtures.js';

const MODELS_DIR = fileURLToPath(new URL('../../models', import.meta.url));
const CLIP = heldOutClip('alffa_spk_heldout_v2-tr_10590_tr04104.wav').path;
/** Reference: "ካርታ ውን በ ው ዤ ው ነበርኩ". */
const TERMS = ['ካርታ', 'ነበርኩ'];
/** Words of 4+ letters of other ALFFA sentences; the clip holds none of them. */
const OTHERS = ['ኢትዮጵያ', 'መንግስት', 'ፕሬዚዳንት', 'ኤርትራ', 'ሱዳን'];

const suite = useTestGateway({ MODELS_DIR, DEFAULT_LANGUAGE: 'am', RATE_LIMIT_PER_MINUTE: '100000', SYNC_WAIT_SECONDS: '60' });
let client: JobsClient;
let files: Awaited<ReturnType<typeof startFileServer>>;

/** Which of the terms a text writes (ALFFA scoring form: homophones merged, no spaces). */
const written = (text: string, terms: readonly string[]): string[] => terms.filter((term) => alffaScoringForm(text).includes(alffaScoringForm(term)));

async function uploadText(fields: Record<string, string>, repeated: readonly string[] = []): Promise<string> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const term of repeated) form.append('keyterms', term);
  form.append('file', new Blob([readFileSync(CLIP)]), 'clip.wav');
  const response = await fetch(`${suite.gw.url}/v1/transcriptions`, { method: 'POST', headers: client.headers(), body: form });
  const body = (await response.json()) as { id: string; status: string; text: string };
  expect(response.status, JSON.stringify(body)).toBe(202);
  const job = body.status === 'completed' ? body : await client.waitFor(body.id);
  expect(job.status).toBe('completed');
  return job.text;
}

beforeAll(async () => {
  client = new JobsClient(suite.gw.url, suite.key);
  files = await startFileServer({ 'clip.wav': CLIP });
});
afterAll(async () => files?.close());

describe('keyterms over the real server', () => {
  it('REST: the plain transcript misses the terms; with them as keyterms it writes them; other keyterms change nothing', async () => {
    const plain = await uploadText({ language: 'am', mode: 'sync' });
    expect(written(plain, TERMS), plain).toEqual([]);
    const boosted = await uploadText({ language: 'am', mode: 'sync' }, TERMS);
    expect(written(boosted, TERMS), boosted).toEqual(TERMS);
    const others = await uploadText({ language: 'am', mode: 'sync' }, OTHERS);
    expect(others).toBe(plain);

    const json = await client.submitUrl({ audio_url: files.url('clip.wav'), language: 'am', mode: 'sync', keyterms: TERMS.join(', ') });
    expect(json.status, JSON.stringify(json.body)).toBe(202);
    const job = json.body.status === 'completed' ? json.body : await client.waitFor(json.body.id);
    expect(written(job.text, TERMS), job.text).toEqual(TERMS);
  }, 120_000);

  it('the job API: keyterms as an array', async () => {
    const jobs = new TranscribeJobClient(suite.gw.url, suite.key);
    const { job, transcript } = await jobs.run({ audio_urls: [files.url('clip.wav')], language: 'am', keyterms: TERMS });
    expect(job.status).toBe('COMPLETED');
    expect(written(transcript.text, TERMS), transcript.text).toEqual(TERMS);
  }, 120_000);

  it('WebSocket: the turns of a session opened with keyterms write them', async () => {
    const pcm = wavData(readFileSync(CLIP)).pcm;
    const stream = async (query: Record<string, string>): Promise<string> => {
      const ws = await connectReady(wsUrl(suite.gw.url, { language: 'am', turn_detection: 'server_vad', ...query }), bearer(suite.key));
      await paced(ws, chunks(Buffer.concat([pcm, Buffer.alloc(32_000)]), 3_200), 0);
      ws.send('END');
      const final = await ws.waitFor('transcription', (m) => m.is_final, 60_000);
      expect((await ws.closed).code).toBe(1000);
      return final.full_text as string;
    };
    const plain = await stream({});
    expect(written(plain, TERMS), plain).toEqual([]);
    const boosted = await stream({ keyterms: TERMS.join(',') });
    expect(written(boosted, TERMS), boosted).toEqual(TERMS);
  }, 120_000);
});

describe('keyterm limits per surface', () => {
  const many = Array.from({ length: 101 }, (_, i) => `ቃል${i}`);

  it('the unified API: 400 invalid_field_value naming the field (JSON and multipart, batches too)', async () => {
    const tooMany = await client.submitUrl({ audio_url: files.url('clip.wav'), language: 'am', keyterms: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toMatchObject({
      code: 'invalid_field_value',
      param: 'keyterms',
      message: "Invalid value for 'keyterms': must hold at most 100 items.",
    });
    const hundred = await client.submitUrl({ audio_url: files.url('clip.wav'), language: 'am', keyterms: many.slice(0, 100) });
    expect(hundred.status).toBe(202);

    const form = new FormData();
    form.append('language', 'am');
    form.append('keyterms', 'ካርታ');
    form.append('keyterms', 'ሀ'.repeat(51));
    form.append('file', new Blob([readFileSync(CLIP)]), 'clip.wav');
    const long = await fetch(`${suite.gw.url}/v1/transcriptions`, { method: 'POST', headers: client.headers(), body: form });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_field_value', param: 'keyterms.1' });

    const blank = await client.submitUrl({ audio_url: files.url('clip.wav'), language: 'am', keyterms: ['ካርታ', '  '] });
    expect(blank.body.error).toMatchObject({ code: 'invalid_field_value', param: 'keyterms.1', message: "Invalid value for 'keyterms.1': must not be empty." });

    const batch = await fetch(`${suite.gw.url}/v1/transcriptions/batch`, {
      method: 'POST',
      headers: client.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ audio_urls: ['https://example.com/clip.wav'], language: 'am', keyterms: many.join(',') }),
    });
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_field_value', param: 'keyterms' });
  });

  it('the job API: 422 with the field in loc', async () => {
    const jobs = new TranscribeJobClient(suite.gw.url, suite.key);
    const tooMany = await jobs.submit({ audio_urls: [files.url('clip.wav')], language: 'am', keyterms: many });
    expect(tooMany.status).toBe(422);
    expect(await tooMany.json()).toEqual({
      detail: [{ loc: ['body', 'keyterms'], msg: "Invalid value for 'keyterms': must hold at most 100 items.", type: 'value_error' }],
    });
    const long = await jobs.submit({ audio_urls: [files.url('clip.wav')], language: 'am', keyterms: ['ካርታ', 'ሀ'.repeat(51)] });
    expect(long.status).toBe(422);
    expect(((await long.json()) as { detail: Array<{ loc: unknown }> }).detail[0]!.loc).toEqual(['body', 'keyterms', 1]);
    const notStrings = await jobs.submit({ audio_urls: [files.url('clip.wav')], language: 'am', keyterms: [1, 2] });
    expect(notStrings.status).toBe(422);
  });

  it('WebSocket: 1008 after an invalid_field_value error, before any session', async () => {
    const ws = connect(wsUrl(suite.gw.url, { language: 'am', keyterms: many.join(',') }), bearer(suite.key));
    const closed = await ws.closed;
    expect(closed.code).toBe(1008);
    expect(ws.ofType('ready')).toHaveLength(0);
    expect(ws.ofType('error')[0]!.error).toMatchObject({ code: 'invalid_field_value', param: 'keyterms' });
  });
});
